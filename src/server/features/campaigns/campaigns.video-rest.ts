import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import { sendMediaFile } from "../../http/media-file";
import { pathId } from "../../http/path-id";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { isBotUserAgent } from "./campaigns.events";
import { LANDING_JS, renderLandingPage, renderUnavailablePage } from "./campaigns.landing";
import { withLaunchToken } from "./campaigns.schemas";
import {
  landingByToken,
  landingCtaHref,
  launchVideoCampaign,
  thumbnailByPublicId,
  trackView,
  videoCampaignStats,
} from "./campaigns.video";

const PLYR_DIST = path.dirname(createRequire(import.meta.url).resolve("plyr/dist/plyr.css"));
const PLYR_ASSETS: Record<string, { file: string; type: string }> = {
  "plyr.js": { file: "plyr.min.js", type: "application/javascript; charset=utf-8" },
  "plyr.css": { file: "plyr.css", type: "text/css; charset=utf-8" },
  "plyr.svg": { file: "plyr.svg", type: "image/svg+xml" },
};
const tokenParams = z.object({ token: z.string().max(100) });

/**
 * REST adapters of video campaigns (spec section 7: POST /api/campaigns/video) and the public
 * recipient landing pages `/v/{token}` with their video, poster, thumbnail and player assets.
 */
export async function videoCampaignsRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  /** Video campaign (spec section 7): launched through the campaign engine. */
  app.post("/api/campaigns/video", async (req) => {
    const tenant = requireTenant(req);
    const result = await launchVideoCampaign(
      ctx,
      tenant.workspaceId,
      withLaunchToken(req.body, req.headers["idempotency-key"]),
      tenant.userId,
    );
    return { success: true, campaign: result.campaign, queued: result.queued, skipped: result.skipped };
  });
  /**
   * Video engagement of a video campaign: `{success, stats: {campaign_id, media_id, viewers, views,
   * watched: {25, 50, 75, 100}, cta_clicks}}` (cta_clicks: recipients who clicked the landing page's
   * button, each once; campaigns.video videoCampaignStats).
   */
  app.get("/api/campaigns/video/:id/stats", async (req) => {
    const tenant = requireTenant(req);
    const id = pathId(req, "Campaign");
    return { success: true, stats: await videoCampaignStats(ctx, tenant.workspaceId, id) };
  });

  // ---- public recipient landing pages (no sign-in; the token is the credential)
  app.get("/v/assets/:file", async (req, reply) => {
    const { file } = parseInput(z.object({ file: z.string().max(40) }), req.params);
    if (file === "landing.js")
      return reply
        .type("application/javascript; charset=utf-8")
        .header("Cache-Control", "public, max-age=300")
        .send(LANDING_JS);
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
    return reply.send(renderLandingPage(data, token, { ctaHref: await landingCtaHref(ctx, data) }));
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
  // the page's own view and watch-progress events; a bot's (isBotUserAgent: headless crawlers and
  // link previews run the page's script too) get the same answer and count nothing
  app.post("/v/:token/events", async (req) => {
    const { token } = parseInput(tokenParams, req.params);
    const tracked = await trackView(ctx, token, req.body, {
      record: !isBotUserAgent(req.headers["user-agent"]),
    });
    return { success: true, tracked };
  });
}
