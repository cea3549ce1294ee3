import fs from "node:fs";
import Papa from "papaparse";
import { z } from "zod";
import type { AppContext } from "../../context";
import type { ContactImport } from "../../db/schema";
import { CSV_FORMULA_ESCAPE } from "../../lib/csv";
import { AppError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { parseInput } from "../../lib/validate";
import { type ContactsLimit, contactsLimitOf } from "../billing/billing.service";
import { phoneCountryOf } from "../workspaces/workspaces.service";
import { importEventListener } from "./crm.contact-events";
import { type AddedBy, refreshContactStatsSoon } from "./crm.contacts";
import {
  type ColumnMapping,
  decodeWithEncoding,
  IMPORT_FIELDS,
  matchHeaders,
  sniffEncoding,
} from "./crm.csv";
import {
  type ImportRowError,
  importRows,
  isClearedReport,
  isEncodingReport,
  isOptOutReport,
  isPhoneReport,
} from "./crm.import";
import { insertContactImport, selectContactImport, selectWorkspaceImportIds } from "./crm.imports.queries";
import { geocodeContactsJob, importContactsJob, importStorageKey } from "./crm.jobs";
import { importJsonSchema } from "./crm.schemas";

// Starting imports (a JSON body, or an uploaded CSV handed to the import job) and reading their
// progress. The streaming import itself is crm.import.ts (run by crm.handlers.ts).

type Ctx = Pick<AppContext, "db" | "sql" | "jobs" | "providers" | "log" | "env">;

/**
 * The contact limit an import runs under (spec section 9, issue 12): the workspace's plan limit
 * (billing contactsLimitOf: the plan's number of contacts and the sentence rejected rows get); null
 * when unlimited. The importer checks it per batch, counting the workspace's contacts under the
 * contact-creation lock (ContactImporter's `contactLimit`), so concurrent imports and creates are seen.
 */
export async function importContactLimit(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<ContactsLimit | null> {
  const limit = await contactsLimitOf(ctx, workspaceId);
  return limit.max === null ? null : limit;
}

/**
 * POST /api/contacts/import {contacts:[...], on_duplicate?}: validates and upserts the rows by email
 * (skip or update duplicates), then queues geocoding and a statistics refresh (refreshContactStatsSoon;
 * every caller, also the v1 bulk upsert, gets it). Emits `contact.created` and `contact.updated`
 * (issue 15; the single-contact events' data) for the created and updated rows when an endpoint
 * listens (importEventListener: one select otherwise). Returns `{imported, created, updated, skipped,
 * errors (count), error_rows:[{line, reason}]}` where imported = created + updated. `by`: who the
 * rows come from, which the contacts it creates record (updated contacts keep theirs): the API key
 * (`apiKeyId`, the v1 bulk upsert: contacts.created_by_api_key_id) or the signed-in person
 * (`userId`, the app's import: contacts.created_by, the contact page's "Added by").
 */
export async function importContactsJson(ctx: Ctx, workspaceId: string, input: unknown, by: AddedBy = {}) {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new AppError("BAD_REQUEST", 'Send a JSON object: {"contacts": [{"first_name", "email", ...}]}');
  const body = parseInput(importJsonSchema, input);
  const r = await importRows(
    ctx.sql,
    workspaceId,
    body.contacts,
    body.on_duplicate,
    await importContactLimit(ctx, workspaceId),
    await phoneCountryOf(ctx, workspaceId),
    // contact.created / contact.updated in each batch's transaction, when an endpoint listens
    await importEventListener(ctx, workspaceId),
    by,
  );
  if (r.created + r.updated > 0) {
    await ctx.jobs.send(geocodeContactsJob, { workspaceId }, { singletonKey: `geo:${workspaceId}` });
    await refreshContactStatsSoon(ctx);
  }
  return {
    imported: r.created + r.updated,
    created: r.created,
    updated: r.updated,
    skipped: r.skipped,
    errors: r.errorCount,
    // rows imported with a phone that is not a valid number (kept, unreachable by SMS and calls)
    phone_invalid: r.phoneInvalid ?? 0,
    // rows imported with a website, LinkedIn/Facebook URL or time zone left empty (CLEARED_FIELDS)
    fields_cleared: r.fieldsCleared ?? 0,
    // rows whose person opted out earlier: imported with those opt-ins kept off (only they can opt back in)
    opt_outs_kept: r.optOutsKept ?? 0,
    error_rows: r.errors.slice(0, 1000).map(toErrorRow),
  };
}

/**
 * One listed row of an import's report as the APIs show it: `{line, reason, kept}`, plus `field` on a
 * kept row (phone, mobile, the field left empty: CLEARED_FIELDS, or the field whose values hold bytes
 * the file's encoding could not read) and `kind: 'encoding'` on that last report (its `line` is the
 * first of the lines its reason names). Encoding reports stored before they named their field have
 * `field: 'encoding'`. A row whose person opted out earlier has `kind: 'opted_out'` and `field` the
 * first opt-in flag kept off (email_opt_in, sms_opt_in, call_opt_in).
 */
function toErrorRow(e: ImportRowError) {
  const { line, reason, kept, field } = e;
  return {
    line,
    reason,
    kept: !!kept,
    ...(kept && field ? { field } : {}),
    ...(isEncodingReport(e) ? { kind: "encoding" as const } : {}),
    ...(isOptOutReport(e) ? { kind: "opted_out" as const } : {}),
  };
}

const importMappingSchema = z
  .partialRecord(z.enum(IMPORT_FIELDS), z.number().int().min(0).max(10_000))
  .refine(
    (m) => new Set(Object.values(m)).size === Object.values(m).length,
    "Each column can be mapped to one field only",
  );

/** The import progress shape returned by the REST API and tRPC. */
export function toImportJson(i: ContactImport) {
  return {
    id: i.id,
    status: i.status,
    file_name: i.fileName,
    file_size: i.fileSize,
    bytes_processed: i.bytesProcessed,
    progress: i.fileSize > 0 ? Math.min(1, i.bytesProcessed / i.fileSize) : 1,
    rows_processed: i.rowsProcessed,
    imported: i.created + i.updated,
    created: i.created,
    updated: i.updated,
    skipped: i.skipped,
    errors: i.errorCount,
    // rows imported with a phone that is not a valid number (kept, unreachable by SMS and calls)
    // (the importer's counts; from the stored row reports for imports before migration 0062)
    phone_invalid: i.phoneInvalid ?? i.errors.filter(isPhoneReport).length,
    // rows imported with a website, LinkedIn/Facebook URL or time zone left empty (CLEARED_FIELDS)
    fields_cleared: i.fieldsCleared ?? new Set(i.errors.filter(isClearedReport).map((e) => e.line)).size,
    // rows whose person opted out earlier: imported with those opt-ins kept off (only they can opt back in)
    opt_outs_kept: i.optOutsKept ?? i.errors.filter(isOptOutReport).length,
    // the first 100 rejected rows, then the first 100 kept ones (so neither list hides the other)
    error_rows: [
      ...i.errors.filter((e) => !e.kept).slice(0, 100),
      ...i.errors.filter((e) => e.kept).slice(0, 100),
    ].map(toErrorRow),
    failure_reason: i.failureReason,
    created_at: i.createdAt.toISOString(),
    finished_at: i.finishedAt?.toISOString() ?? null,
  };
}

/**
 * Registers an uploaded CSV (spooled to `file.path`), moves it to the storage provider and queues
 * `crm.import-contacts`.
 * Checks before queueing: not empty, text (not binary), a header row, a column for email (from
 * `mapping` or the header rules). `onDuplicate`: "skip" (default, also when blank) or "update".
 * @throws BAD_REQUEST (empty, bad mapping, an `onDuplicate` other than skip/update), UNSUPPORTED_MEDIA_TYPE
 * (binary), UNPROCESSABLE (no email column).
 */
export async function startFileImport(
  ctx: Ctx,
  workspaceId: string,
  file: { importId: string; path: string; name: string; size: number },
  opts: { mapping?: unknown; onDuplicate?: unknown; createdBy?: string | null },
) {
  const mapping = opts.mapping === undefined || opts.mapping === "" ? undefined : parseMapping(opts.mapping);
  // the JSON import's rule and sentence ("On duplicate must be one of: skip, update"): a misspelt
  // value is refused, not read as "skip"; a blank or absent field is "skip"
  const onDuplicate = parseInput(importJsonSchema.pick({ on_duplicate: true }), {
    on_duplicate: opts.onDuplicate === "" ? undefined : opts.onDuplicate,
  }).on_duplicate;
  if (file.size === 0) throw new AppError("BAD_REQUEST", "The file is empty");
  const fd = await fs.promises.open(file.path, "r");
  const head = Buffer.alloc(65536);
  const { bytesRead } = await fd.read(head, 0, head.length, 0);
  await fd.close();
  const { encoding, bomLength } = sniffEncoding(head.subarray(0, bytesRead));
  const text = decodeWithEncoding(encoding, head.subarray(bomLength, bytesRead));
  const firstRows = Papa.parse<string[]>(text, { preview: 2, skipEmptyLines: "greedy" }).data;
  const headers = firstRows[0]?.map(String) ?? [];
  if (headers.length === 0 || headers.every((h) => !h.trim()))
    throw new AppError("BAD_REQUEST", "The file has no header row");
  const effective = mapping ?? matchHeaders(headers);
  for (const idx of Object.values(effective))
    if (idx !== undefined && idx >= headers.length)
      throw new AppError(
        "BAD_REQUEST",
        `The mapping points at column ${idx + 1}, but the file has ${headers.length} columns`,
      );
  if (effective.email === undefined)
    throw new AppError(
      "UNPROCESSABLE",
      `No email column found (columns: ${headers.slice(0, 10).join(", ").slice(0, 200)}). Every contact needs an email; map a column to Email.`,
    );
  // hand the file to the storage provider (local disk or S3) so whichever worker runs the job can read it
  await ctx.providers.storage.putFile(importStorageKey(file.importId), file.path, {
    contentType: "text/csv",
    move: true,
  });
  try {
    const row = await insertContactImport(ctx.db, {
      id: file.importId,
      workspaceId,
      createdBy: opts.createdBy ?? null,
      fileName: file.name.slice(0, 200),
      fileSize: file.size,
      mapping: effective,
      onDuplicate,
    });
    if (!row) throw new AppError("INTERNAL", "Could not start the import");
    await ctx.jobs.send(importContactsJob, { importId: row.id }, { singletonKey: row.id });
    return getImport(ctx, workspaceId, row.id);
  } catch (e) {
    // no job will read the stored file: do not leave it in storage
    await ctx.providers.storage.delete(importStorageKey(file.importId)).catch(() => {});
    throw e;
  }
}

/**
 * Before a workspace is deleted (features/account): returns the clean-up to run once its rows are
 * gone, which deletes the stored file of each of its imports (`imports/<id>.csv`: an import still
 * queued or running keeps its file until its job ends; finished ones have none, and deleting an absent
 * key is fine). A storage failure is logged, not thrown. An import job that runs after the deletion
 * finds no import row and ends without a retry (PermanentJobError).
 */
export async function importFilesCleanupForDeletion(
  ctx: Pick<AppContext, "db" | "providers" | "log">,
  workspaceId: string,
): Promise<() => Promise<void>> {
  const ids = await selectWorkspaceImportIds(ctx.db, workspaceId);
  return async () => {
    for (const id of ids)
      await ctx.providers.storage.delete(importStorageKey(id)).catch((err) => {
        ctx.log.warn({ err, importId: id }, "a deleted workspace's import file was not removed");
      });
  };
}

function parseMapping(raw: unknown): ColumnMapping {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new AppError("BAD_REQUEST", "mapping must be a JSON object of field -> column index");
    }
  }
  return parseInput(importMappingSchema, value) as ColumnMapping;
}

/** One import of the workspace. @throws AppError NOT_FOUND 'Import not found' (also for another's id). */
async function findImport(ctx: Pick<AppContext, "db">, workspaceId: string, importId: string) {
  if (!isUuid(importId)) throw new AppError("NOT_FOUND", "Import not found");
  const row = await selectContactImport(ctx.db, workspaceId, importId);
  if (!row) throw new AppError("NOT_FOUND", "Import not found");
  return row;
}

/** One import of the workspace with its progress (toImportJson). @throws NOT_FOUND 'Import not found'. */
export async function getImport(ctx: Pick<AppContext, "db">, workspaceId: string, importId: string) {
  return toImportJson(await findImport(ctx, workspaceId, importId));
}

/**
 * The import's report as CSV (line, reason, row, imported), formula-safe: rejected rows (imported
 * "no") and rows kept with an invalid phone number (imported "yes"). @throws NOT_FOUND.
 */
export async function importErrorsCsv(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  importId: string,
): Promise<string> {
  const row = await findImport(ctx, workspaceId, importId);
  return Papa.unparse(
    {
      fields: ["line", "reason", "row", "imported"],
      data: row.errors.map((e) => [e.line, e.reason, e.raw ?? "", e.kept ? "yes" : "no"]),
    },
    { escapeFormulae: CSV_FORMULA_ESCAPE },
  );
}
