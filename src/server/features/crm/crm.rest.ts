import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import { sendCsvDownload } from "../../http/csv-download";
import { pathId } from "../../http/path-id";
import { AppError } from "../../lib/errors";
import { assertStorableText } from "../../lib/nul";
import { jsonWithRaw } from "../../lib/raw-json";
import { SHOWN_WORKSPACE_PARAM } from "../../lib/shown-workspace";
import { parseInput } from "../../lib/validate";
import { importFilePath, sweepImportSpool } from "./crm.jobs";
import { type BulkOperationInput, listContactsQuerySchema } from "./crm.schemas";
import * as crm from "./crm.service";

/**
 * REST adapters of the crm feature (spec section 7 "/api/contacts..."): each parses with the
 * service's zod schemas, calls the service and shapes `{success, ...}`. Every call is scoped to the
 * signed-in user; another user's id gives 404.
 */
export async function crmRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // uploads a crash or a lost client left in the spool folder: removed at boot, then hourly
  const sweep = () =>
    sweepImportSpool(ctx.env.DATA_DIR).then(
      (n) => n > 0 && ctx.log.info({ removed: n }, "removed orphaned import uploads"),
      (err) => ctx.log.warn({ err }, "could not sweep the import upload folder"),
    );
  await sweep();
  const sweeper = setInterval(sweep, 60 * 60 * 1000);
  sweeper.unref();
  app.addHook("onClose", async () => clearInterval(sweeper));

  app.get("/api/contacts", async (req, reply) => {
    const tenant = requireTenant(req);
    // the query string is closed: an unknown parameter is a 400 naming it (listContactsQuerySchema)
    const query = parseInput(listContactsQuerySchema, req.query ?? {});
    // the page as JSON text written from the driver's values (crm listContactsJson), sent as it is
    const r = await crm.listContactsJson(ctx, tenant.workspaceId, query);
    return reply
      .type("application/json; charset=utf-8")
      .send(jsonWithRaw({ success: true, contacts: r.contacts, pagination: r.pagination }));
  });

  app.get("/api/contacts/tags/all", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, tags: await crm.listTags(ctx, tenant.workspaceId) };
  });

  app.post("/api/contacts/tags", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, tag: await crm.createTag(ctx, tenant.workspaceId, req.body) };
  });

  app.get("/api/contacts/lists/all", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, lists: await crm.listSegments(ctx, tenant.workspaceId) };
  });

  app.post("/api/contacts/lists", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, list: await crm.createSegment(ctx, tenant.workspaceId, req.body) };
  });

  /** Renames a saved segment (list) and replaces its filter when one is given: {name, filter?}. */
  app.put("/api/contacts/lists/:id", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      list: await crm.updateSegment(ctx, tenant.workspaceId, pathId(req, "List"), req.body),
    };
  });

  /** Deletes a saved segment (list); its contacts stay. 404 'List not found' for another workspace's. */
  app.delete("/api/contacts/lists/:id", async (req) => {
    const tenant = requireTenant(req);
    await crm.deleteSegment(ctx, tenant.workspaceId, pathId(req, "List"));
    return { success: true };
  });

  /** The map's markers: every contact with coordinates (at most 5,000, newest first). */
  app.get("/api/contacts/map", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, contacts: await crm.listLocatedContacts(ctx, tenant.workspaceId) };
  });

  app.get("/api/contacts/export.csv", async (req, reply) => {
    const tenant = requireTenant(req);
    // closed as the list's query: `?lifecycle_stage=customer` is a 400 naming it, never an export of
    // every contact with the filter silently ignored. The app's link adds the workspace its tab shows
    // (`workspace`, checked by requireTenant), which is not a filter.
    const { [SHOWN_WORKSPACE_PARAM]: _shown, ...filterQuery } = (req.query ?? {}) as Record<string, unknown>;
    const query = parseInput(listContactsQuerySchema, filterQuery);
    // the export's own checks answer before the 200 goes out (sendCsvDownload)
    return sendCsvDownload(reply, crm.exportContactsCsv(ctx, tenant.workspaceId, query), "contacts");
  });

  /**
   * The Opt-outs screen's CSV (session cookie): the workspace's suppression list with `search` and
   * `channel` as the screen's (crm exportOptOutsCsv; closed: another parameter is a 400 naming it),
   * `opt-outs-{YYYY-MM-DD}.csv`.
   */
  app.get("/api/contacts/opt-outs.csv", async (req, reply) => {
    const tenant = requireTenant(req);
    const { [SHOWN_WORKSPACE_PARAM]: _shown, ...query } = (req.query ?? {}) as Record<string, unknown>;
    return sendCsvDownload(reply, crm.exportOptOutsCsv(ctx, tenant.workspaceId, query), "opt-outs");
  });

  app.post("/api/contacts/search/location", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, contacts: await crm.searchByLocation(ctx, tenant.workspaceId, req.body) };
  });

  app.post("/api/contacts/bulk/operation", { bodyLimit: 4 * 1024 * 1024 }, async (req) => {
    const tenant = requireTenant(req);
    const r = await crm.bulkOperation(ctx, tenant.workspaceId, req.body as BulkOperationInput, tenant);
    return { success: true, ...r };
  });

  app.post("/api/contacts/import", { bodyLimit: 32 * 1024 * 1024 }, async (req) => {
    const tenant = requireTenant(req);
    const r = await crm.importContactsJson(ctx, tenant.workspaceId, req.body, { userId: tenant.userId });
    return { success: true, ...r };
  });

  /**
   * Streaming import: multipart/form-data with optional fields `mapping` (JSON field -> column
   * index) and `on_duplicate` (skip|update) BEFORE the `file` part (or in the query string).
   * The file streams to disk (100 MB limit) and a `crm.import-contacts` job takes it from there.
   * 202 `{success, import}`; poll GET /api/contacts/imports/{id}.
   */
  app.post("/api/contacts/import/upload", async (req, reply) => {
    const tenant = requireTenant(req);
    if (!req.isMultipart())
      throw new AppError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Upload the CSV as multipart/form-data in a field named 'file'",
      );
    const part = await req.file();
    if (!part) throw new AppError("BAD_REQUEST", "No file was uploaded");
    const name = part.filename || "upload.csv";
    const q = req.query as Record<string, unknown>;
    const field = (n: string) => {
      const f = part.fields[n] as { value?: unknown } | undefined;
      return f && "value" in f ? f.value : q[n];
    };
    const fieldValues = Object.values(part.fields).map((f) =>
      f && typeof f === "object" && "value" in f ? (f as { value: unknown }).value : null,
    );
    try {
      // multipart fields and the file name arrive after the global preHandler has run
      assertStorableText([name, fieldValues]);
    } catch (e) {
      part.file.resume();
      throw e;
    }
    if (!/\.csv$/i.test(name)) {
      part.file.resume();
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Only .csv files can be imported");
    }
    const importId = randomUUID();
    const dest = importFilePath(ctx.env.DATA_DIR, importId);
    // the spooled file is removed on every path but a started import (which moved it to storage):
    // a client that aborts mid-upload fails the pipeline, and that too lands in the finally
    let started = false;
    try {
      await fs.promises.mkdir(path.dirname(dest), { recursive: true });
      try {
        await pipeline(part.file, fs.createWriteStream(dest));
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code?.startsWith("FST_") || req.raw.destroyed || req.raw.aborted)
          throw new AppError(
            "BAD_REQUEST",
            "The upload was interrupted or could not be read. Please try again.",
          );
        throw e;
      }
      if (part.file.truncated)
        throw new AppError("PAYLOAD_TOO_LARGE", "File too large. Maximum size is 100MB.");
      const size = (await fs.promises.stat(dest)).size;
      const imp = await crm.startFileImport(
        ctx,
        tenant.workspaceId,
        { importId, path: dest, name, size },
        { mapping: field("mapping"), onDuplicate: field("on_duplicate"), createdBy: tenant.userId },
      );
      started = true;
      return reply.status(202).send({ success: true, import: imp });
    } finally {
      if (!started) await fs.promises.rm(dest, { force: true }).catch(() => {});
    }
  });

  app.get("/api/contacts/imports/:importId", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      import: await crm.getImport(ctx, tenant.workspaceId, (req.params as { importId: string }).importId),
    };
  });

  app.get("/api/contacts/imports/:importId/errors.csv", async (req, reply) => {
    const tenant = requireTenant(req);
    const id = (req.params as { importId: string }).importId;
    const body = await crm.importErrorsCsv(ctx, tenant.workspaceId, id);
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="import-errors-${id.slice(0, 8)}.csv"`)
      .send(body);
  });

  app.get("/api/contacts/:id", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      ...(await crm.getContactDetail(ctx, tenant.workspaceId, pathId(req, "Contact"), tenant)),
    };
  });

  app.post("/api/contacts", async (req) => {
    const tenant = requireTenant(req);
    const c = await crm.createContact(ctx, tenant.workspaceId, req.body, { userId: tenant.userId });
    return { success: true, contact: crm.toContactJson(c) };
  });

  app.put("/api/contacts/:id", async (req) => {
    const tenant = requireTenant(req);
    const c = await crm.updateContact(ctx, tenant.workspaceId, pathId(req, "Contact"), req.body);
    return { success: true, contact: crm.toContactJson(c) };
  });

  app.delete("/api/contacts/:id", async (req) => {
    const tenant = requireTenant(req);
    await crm.deleteContact(ctx, tenant.workspaceId, pathId(req, "Contact"));
    return { success: true };
  });

  app.post("/api/contacts/:id/notes", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      note: await crm.addNote(ctx, tenant.workspaceId, pathId(req, "Contact"), req.body, {
        userId: tenant.userId,
      }),
    };
  });

  app.put("/api/contacts/:id/notes/:noteId", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      note: await crm.editNote(
        ctx,
        tenant.workspaceId,
        pathId(req, "Contact"),
        pathId(req, "Note", "noteId"),
        req.body,
        tenant,
      ),
    };
  });

  app.delete("/api/contacts/:id/notes/:noteId", async (req) => {
    const tenant = requireTenant(req);
    await crm.deleteNote(
      ctx,
      tenant.workspaceId,
      pathId(req, "Contact"),
      pathId(req, "Note", "noteId"),
      tenant,
    );
    return { success: true };
  });

  app.post("/api/contacts/:id/send-email", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      ...(await crm.sendEmailToContact(
        ctx,
        tenant.workspaceId,
        pathId(req, "Contact"),
        req.body,
        tenant.userId,
      )),
    };
  });

  app.post("/api/contacts/:id/send-sms", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      ...(await crm.sendSmsToContact(
        ctx,
        tenant.workspaceId,
        pathId(req, "Contact"),
        req.body,
        tenant.userId,
      )),
    };
  });

  app.post("/api/contacts/:id/make-call", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      ...(await crm.makeCallToContact(
        ctx,
        tenant.workspaceId,
        pathId(req, "Contact"),
        req.body,
        tenant.userId,
      )),
    };
  });
}
