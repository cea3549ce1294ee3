import fs from "node:fs";
import fsp from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { AppContext } from "../../context";
import type { MediaSource, MediaType } from "../../db/schema";
import { requireTenant } from "../../http/auth";
import { AppError } from "../../lib/errors";
import { assertStorableText } from "../../lib/nul";
import { parseInput } from "../../lib/validate";
import {
  landingByToken,
  launchVideoCampaign,
  thumbnailByPublicId,
  trackView,
  videoCampaignStats,
} from "./studio.campaigns";
import { renderLandingPage, renderUnavailablePage } from "./studio.landing";
import { editIdSchema, FILE_TOO_LARGE_MESSAGE, mediaIdSchema } from "./studio.schemas";
import {
  applyAdvanced,
  applyTrim,
  createMediaFromFile,
  deleteMedia,
  getEdit,
  getMedia,
  listDraftsFirst,
  listMedia,
  listMyVideos,
  type MediaFileKind,
  openMediaFile,
  streamToTempFile,
  toPublicEdit,
  toPublicMedia,
} from "./studio.service";

const FILE_FIELDS = new Set(["file", "video", "audio"]);
const PLYR_DIST = path.dirname(createRequire(import.meta.url).resolve("plyr/dist/plyr.css"));
const PLYR_ASSETS: Record<string, { file: string; type: string }> = {
  "plyr.js": { file: "plyr.min.js", type: "application/javascript; charset=utf-8" },
  "plyr.css": { file: "plyr.css", type: "text/css; charset=utf-8" },
  "plyr.svg": { file: "plyr.svg", type: "image/svg+xml" },
};
const tokenParams = z.object({ token: z.string().max(100) });

/**
 * Reads a multipart upload (spec section 3: "file, or a field named video or audio, plus name"),
 * streaming the file part to a temporary file (never buffered), and stores it with
 * `createMediaFromFile`. Fields may come before or after the file.
 * @throws AppError BAD_REQUEST (no file / not multipart), PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE.
 */
async function handleUpload(
  ctx: AppContext,
  req: FastifyRequest,
  opts: { source: MediaSource; isDraft: boolean; typeHint: MediaType },
) {
  const tenant = requireTenant(req);
  if (!req.isMultipart()) throw new AppError("BAD_REQUEST", "Please upload the file as multipart/form-data");
  let tmp: { path: string; size: number } | null = null;
  const fields: Record<string, string> = {};
  let fileName = "";
  try {
    try {
      for await (const part of req.parts()) {
        if (part.type === "file") {
          if (!FILE_FIELDS.has(part.fieldname) || tmp) {
            part.file.resume();
            continue;
          }
          fileName = part.filename ?? "";
          tmp = await streamToTempFile(ctx, part.file);
        } else if (typeof part.value === "string") {
          fields[part.fieldname] = part.value;
        }
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "FST_REQ_FILE_TOO_LARGE") throw new AppError("PAYLOAD_TOO_LARGE", FILE_TOO_LARGE_MESSAGE);
      if (code === "FST_FILES_LIMIT") throw new AppError("BAD_REQUEST", "Please upload one file at a time");
      if (code?.startsWith("FST_"))
        throw new AppError("BAD_REQUEST", "The upload could not be read. Please try again.");
      throw error;
    }
    if (!tmp) throw new AppError("BAD_REQUEST", "No file was uploaded");
    // multipart fields and the file name are read here, after the global preHandler
    assertStorableText([fileName, fields]);
    const name = (fields.name ?? "").trim() || fileName.replace(/\.[^.]+$/, "") || "Untitled";
    const item = await createMediaFromFile(ctx, tenant.workspaceId, {
      path: tmp.path,
      move: true,
      name,
      source: opts.source,
      isDraft: opts.isDraft,
      typeHint: opts.typeHint,
      createdBy: tenant.userId,
    });
    tmp = null;
    return { success: true, media: toPublicMedia(item) };
  } finally {
    if (tmp) await fsp.rm(tmp.path, { force: true });
  }
}

async function serveFile(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, kind: MediaFileKind) {
  const tenant = requireTenant(req);
  const { id } = parseInput(z.object({ id: mediaIdSchema }), req.params);
  const item = await getMedia(ctx, tenant.workspaceId, id);
  return sendMediaFile(ctx, req, reply, item, kind);
}

/**
 * Streams a media file with HTTP Range support (206 Partial Content, 416 when unsatisfiable), so
 * players can seek. Shared by the owner's file routes and the public landing page.
 */
export async function sendMediaFile(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  item: Parameters<typeof openMediaFile>[1],
  kind: MediaFileKind,
  cache = "private, max-age=3600",
) {
  const file = await openMediaFile(ctx, item, kind, req.headers.range);
  reply.header("Accept-Ranges", "bytes").header("Cache-Control", cache).type(file.contentType);
  if (file.status === 416) {
    return reply
      .status(416)
      .type("application/json")
      .header("Content-Range", `bytes */${file.size}`)
      .send({ success: false, error: "Requested range not satisfiable" });
  }
  if (file.status === 206 && file.range) {
    reply
      .status(206)
      .header("Content-Range", `bytes ${file.range.start}-${file.range.end}/${file.size}`)
      .header("Content-Length", String(file.range.end - file.range.start + 1));
  } else {
    reply.header("Content-Length", String(file.size));
  }
  if (req.method === "HEAD") {
    file.stream.destroy();
    return reply.send();
  }
  return reply.send(file.stream);
}

/** REST adapters of the studio feature (spec section 7). */
export async function studioRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/media/upload-draft", async (req) =>
    handleUpload(ctx, req, { source: "recording", isDraft: true, typeHint: "video" }),
  );
  app.post("/api/media/upload", async (req) =>
    handleUpload(ctx, req, { source: "recording", isDraft: false, typeHint: "audio" }),
  );
  app.post("/api/videos/upload", async (req) =>
    handleUpload(ctx, req, { source: "upload", isDraft: false, typeHint: "video" }),
  );
  app.post("/api/audio/upload", async (req) =>
    handleUpload(ctx, req, { source: "upload", isDraft: false, typeHint: "audio" }),
  );

  app.get("/api/media/list", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, media: (await listMedia(ctx, tenant.workspaceId)).map(toPublicMedia) };
  });
  app.get("/api/media/drafts", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, media: (await listDraftsFirst(ctx, tenant.workspaceId)).map(toPublicMedia) };
  });
  app.get("/api/videos/my-videos", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, videos: await listMyVideos(ctx, tenant.workspaceId) };
  });

  /** One item with its waveform peaks (editor). */
  app.get("/api/media/:id", async (req) => {
    const tenant = requireTenant(req);
    const { id } = parseInput(z.object({ id: mediaIdSchema }), req.params);
    const item = await getMedia(ctx, tenant.workspaceId, id);
    return { success: true, media: toPublicMedia(item), peaks: item.peaks ?? null };
  });
  app.delete("/api/media/:id", async (req) => {
    const tenant = requireTenant(req);
    const { id } = parseInput(z.object({ id: mediaIdSchema }), req.params);
    await deleteMedia(ctx, tenant.workspaceId, id);
    return { success: true };
  });

  for (const kind of ["file", "poster", "gif", "original"] as const) {
    app.get(`/api/media/:id/${kind}`, async (req, reply) => serveFile(ctx, req, reply, kind));
  }

  app.post("/api/media/edit/trim", async (req) => {
    const tenant = requireTenant(req);
    const edit = await applyTrim(ctx, tenant.workspaceId, req.body);
    return { success: true, edit: toPublicEdit(edit) };
  });
  app.post("/api/media/edit/advanced", async (req) => {
    const tenant = requireTenant(req);
    const edit = await applyAdvanced(ctx, tenant.workspaceId, req.body);
    return { success: true, edit: toPublicEdit(edit) };
  });
  /** Video campaign (spec section 7): launched through the campaign engine. */
  app.post("/api/campaigns/video", async (req) => {
    const tenant = requireTenant(req);
    const result = await launchVideoCampaign(ctx, tenant.workspaceId, req.body, tenant.userId);
    return { success: true, campaign: result.campaign, queued: result.queued, skipped: result.skipped };
  });
  /** Video engagement of a video campaign (views, watch milestones). */
  app.get("/api/campaigns/video/:id/stats", async (req) => {
    const tenant = requireTenant(req);
    const { id } = parseInput(
      z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
      req.params,
    );
    return { success: true, stats: await videoCampaignStats(ctx, tenant.workspaceId, id) };
  });

  // ---- public recipient landing pages (no sign-in; the token is the credential)
  app.get("/v/assets/:file", async (req, reply) => {
    const { file } = parseInput(z.object({ file: z.string().max(40) }), req.params);
    const asset = PLYR_ASSETS[file];
    if (!asset) throw new AppError("NOT_FOUND", "Not found");
    return reply
      .type(asset.type)
      .header("Cache-Control", "public, max-age=86400")
      .send(fs.createReadStream(path.join(PLYR_DIST, asset.file)));
  });
  app.get("/v/t/:file", async (req, reply) => {
    const { file } = parseInput(z.object({ file: z.string().max(100) }), req.params);
    const thumb = await thumbnailByPublicId(ctx, file.replace(/\.(gif|jpg)$/, ""));
    if (!thumb) throw new AppError("NOT_FOUND", "Not found");
    // email clients load it from their own origin: helmet's same-site CORP would block it
    reply.header("Cross-Origin-Resource-Policy", "cross-origin");
    return sendMediaFile(ctx, req, reply, thumb.media, thumb.kind, "public, max-age=300");
  });
  app.get("/v/:token", async (req, reply) => {
    const { token } = parseInput(tokenParams, req.params);
    const data = await landingByToken(ctx, token);
    reply
      .header("Cache-Control", "no-store")
      .header("Referrer-Policy", "no-referrer")
      .type("text/html; charset=utf-8");
    if (!data) return reply.status(404).send(renderUnavailablePage());
    return reply.send(renderLandingPage(data, token));
  });
  for (const [suffix, kind] of [
    ["video", "file"],
    ["poster", "poster"],
  ] as const) {
    app.get(`/v/:token/${suffix}`, async (req, reply) => {
      const { token } = parseInput(tokenParams, req.params);
      const data = await landingByToken(ctx, token);
      if (!data) throw new AppError("NOT_FOUND", "Not found");
      return sendMediaFile(ctx, req, reply, data.media, kind, "private, max-age=300");
    });
  }
  app.post("/v/:token/events", async (req) => {
    const { token } = parseInput(tokenParams, req.params);
    const tracked = await trackView(ctx, token, req.body);
    return { success: true, tracked };
  });

  /** Render progress of an edit (status queued|rendering|done|failed, progress 0-100). */
  app.get("/api/media/edits/:id", async (req) => {
    const tenant = requireTenant(req);
    const { id } = parseInput(z.object({ id: editIdSchema }), req.params);
    return { success: true, edit: toPublicEdit(await getEdit(ctx, tenant.workspaceId, id)) };
  });
}
