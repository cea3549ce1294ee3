import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import { AppError } from "../../lib/errors";
import { parseRange } from "../studio/studio.service";
import { createAvatarVideo, getAvatarVideoStatus, getDemoAvatarVideo } from "./avatar.service";

/** HTML-escapes text for the public page. */
function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/**
 * REST adapters of the avatar feature (spec section 7):
 * - `POST /api/videos/create/did|heygen|local` JSON {script} -> {success, provider, videoId, status, error}
 *   (HTTP 502 with status `error` and the vendor's reason when the vendor refused the video)
 * - `GET /api/videos/status/{provider}/{videoId}` -> {success, videoUrl, status, error, ...}
 * - public `GET /a/{token}`: the landing-page demo's avatar video page (refreshes every 5 s until the
 *   video is ready), and `GET /a/{token}/video.mp4` (HTTP Range supported)
 */
export async function avatarRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post<{ Params: { provider: string } }>(
    "/api/videos/create/:provider",
    { bodyLimit: 64 * 1024 },
    async (req, reply) => {
      const tenant = requireTenant(req);
      const video = await createAvatarVideo(
        ctx,
        tenant.workspaceId,
        req.params.provider,
        req.body ?? {},
        tenant.userId,
      );
      const failed = video.status === "error";
      return reply.status(failed ? 502 : 200).send({
        success: !failed,
        provider: video.provider,
        videoId: video.videoId,
        vendorVideoId: video.vendorVideoId,
        status: video.status,
        videoUrl: video.videoUrl,
        error: video.error,
      });
    },
  );

  app.get<{ Params: { provider: string; videoId: string } }>(
    "/api/videos/status/:provider/:videoId",
    async (req) => {
      const tenant = requireTenant(req);
      const video = await getAvatarVideoStatus(ctx, tenant.workspaceId, req.params);
      return {
        success: true,
        provider: video.provider,
        videoId: video.videoId,
        status: video.status,
        videoUrl: video.videoUrl,
        mediaId: video.mediaId,
        error: video.error,
      };
    },
  );

  app.get<{ Params: { token: string } }>("/a/:token", async (req, reply) => {
    let video: Awaited<ReturnType<typeof getDemoAvatarVideo>> | null = null;
    try {
      video = await getDemoAvatarVideo(ctx, req.params.token);
    } catch {
      video = null;
    }
    const register = `${ctx.env.APP_URL}/register`;
    let body: string;
    let refresh = "";
    if (!video) {
      reply.status(404);
      body = "<h1>Video not found</h1><p>This link is not valid.</p>";
    } else if (video.status === "completed" && video.storageKey) {
      body = `<h1>Your Pitchwise AI avatar video</h1>
<video controls playsinline preload="metadata" src="/a/${esc(video.publicToken!)}/video.mp4"></video>`;
    } else if (video.status === "error") {
      body = "<h1>Sorry, your video could not be made</h1><p>Everything else in your demo is on its way.</p>";
    } else {
      refresh = '<meta http-equiv="refresh" content="5">';
      body =
        "<h1>Your AI avatar video is being made</h1><p>This usually takes a minute or two. This page refreshes every 5 seconds.</p>";
    }
    return reply
      .type("text/html; charset=utf-8")
      .header("Cache-Control", "no-store")
      .header("X-Robots-Tag", "noindex")
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>Your Pitchwise AI avatar video</title>
<style>body{font-family:system-ui,Arial,sans-serif;background:#f6f7f9;color:#111827;margin:0;padding:32px 16px}main{max-width:720px;margin:0 auto;background:#fff;border-radius:12px;padding:24px}video{width:100%;border-radius:12px;background:#000}a.cta{display:inline-block;margin-top:16px;background:#2563eb;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none}</style>
</head><body><main>${body}<p><a class="cta" href="${esc(register)}">Start your free trial</a></p></main></body></html>`);
  });

  app.get<{ Params: { token: string } }>("/a/:token/video.mp4", async (req, reply) => {
    const video = await getDemoAvatarVideo(ctx, req.params.token);
    if (video.status !== "completed" || !video.storageKey) throw new AppError("NOT_FOUND", "Video not found");
    const stat = await ctx.providers.storage.stat(video.storageKey);
    if (!stat) throw new AppError("NOT_FOUND", "Video not found");
    const range = parseRange(req.headers.range, stat.size);
    reply.header("Accept-Ranges", "bytes").header("Cache-Control", "public, max-age=3600").type("video/mp4");
    if (range === "invalid")
      return reply
        .status(416)
        .type("application/json")
        .header("Content-Range", `bytes */${stat.size}`)
        .send({ success: false, error: "Requested range not satisfiable" });
    const stream = await ctx.providers.storage.get(video.storageKey, range ?? undefined);
    if (range)
      reply
        .status(206)
        .header("Content-Range", `bytes ${range.start}-${range.end}/${stat.size}`)
        .header("Content-Length", String(range.end - range.start + 1));
    else reply.header("Content-Length", String(stat.size));
    return reply.send(stream);
  });
}
