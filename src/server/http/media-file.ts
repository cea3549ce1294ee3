import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context";
import { type MediaFileKind, type MediaVersionId, openMediaFile } from "../features/studio/studio.service";

/**
 * Streams a media file with HTTP Range support (206 Partial Content, 416 when unsatisfiable), so
 * players can seek. `versionId` serves that version's file instead of `kind` (studio versions).
 * `opts.unsatisfiable(size)` gives the 416's JSON body (the public API's Error shape), else
 * `{success: false, error}`. Shared by the studio's file routes, the public API's media downloads and
 * the campaigns' public landing pages.
 */
export async function sendMediaFile(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  item: Parameters<typeof openMediaFile>[1],
  kind: MediaFileKind,
  cache = "private, max-age=3600",
  versionId?: MediaVersionId,
  opts: { unsatisfiable?: (size: number) => unknown } = {},
) {
  const file = await openMediaFile(ctx, item, kind, req.headers.range, versionId);
  reply.header("Accept-Ranges", "bytes").header("Cache-Control", cache).type(file.contentType);
  if (file.status === 416) {
    return reply
      .status(416)
      .type("application/json")
      .header("Content-Range", `bytes */${file.size}`)
      .send(opts.unsatisfiable?.(file.size) ?? { success: false, error: "Requested range not satisfiable" });
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
