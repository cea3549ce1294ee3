import fsp from "node:fs/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { AppContext } from "../../context";
import type { MediaSource, MediaType } from "../../db/schema";
import { requireTenant } from "../../http/auth";
import { sendMediaFile } from "../../http/media-file";
import { pathId } from "../../http/path-id";
import { AppError } from "../../lib/errors";
import { assertStorableText } from "../../lib/nul";
import { parseInput } from "../../lib/validate";
import { FILE_TOO_LARGE_MESSAGE, mediaVersionIdSchema } from "./studio.schemas";
import {
  applyAdvanced,
  applyTrim,
  createMediaFromFile,
  deleteMedia,
  getEdit,
  getMedia,
  listDraftsFirst,
  listMyVideos,
  listPublicMedia,
  type MediaFileKind,
  type PublicMedia,
  streamToTempFile,
  toPublicEdit,
  toPublicMedia,
} from "./studio.service";

const FILE_FIELDS = new Set(["file", "video", "audio"]);

/** The answer of every upload route (`POST /api/media/upload`, `/upload-draft`, `/api/videos|audio/upload`). */
export interface MediaUploadResponse {
  success: true;
  media: PublicMedia;
}

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
): Promise<MediaUploadResponse> {
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
    return { success: true as const, media: toPublicMedia(item) };
  } finally {
    if (tmp) await fsp.rm(tmp.path, { force: true });
  }
}

async function serveFile(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, kind: MediaFileKind) {
  const tenant = requireTenant(req);
  const id = pathId(req, "Media");
  const item = await getMedia(ctx, tenant.workspaceId, id);
  return sendMediaFile(ctx, req, reply, item, kind);
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
    return { success: true, media: await listPublicMedia(ctx, tenant.workspaceId) };
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
    const id = pathId(req, "Media");
    const item = await getMedia(ctx, tenant.workspaceId, id);
    return { success: true, media: toPublicMedia(item), peaks: item.peaks ?? null };
  });
  app.delete("/api/media/:id", async (req) => {
    const tenant = requireTenant(req);
    const id = pathId(req, "Media");
    await deleteMedia(ctx, tenant.workspaceId, id);
    return { success: true };
  });

  for (const kind of ["file", "poster", "gif", "original"] as const) {
    app.get(`/api/media/:id/${kind}`, async (req, reply) => serveFile(ctx, req, reply, kind));
  }

  /** One version's file (the library's version list plays these; listing and restoring are tRPC). */
  app.get("/api/media/:id/versions/:version/file", async (req, reply) => {
    const tenant = requireTenant(req);
    const id = pathId(req, "Media");
    const { version } = parseInput(z.object({ version: mediaVersionIdSchema }), req.params);
    const item = await getMedia(ctx, tenant.workspaceId, id);
    return sendMediaFile(ctx, req, reply, item, "file", "private, max-age=3600", version);
  });

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
  /** Render progress of an edit (status queued|rendering|done|failed, progress 0-100). */
  app.get("/api/media/edits/:id", async (req) => {
    const tenant = requireTenant(req);
    const id = pathId(req, "Edit");
    return { success: true, edit: toPublicEdit(await getEdit(ctx, tenant.workspaceId, id)) };
  });
}
