import fs from "node:fs";
import path from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  activities,
  campaignRecipients,
  outboundWebhookEvents,
  videoLandingPages,
  workspaces,
} from "../../src/server/db/schema";
import { BROWSER_UA, PERSON } from "../browser-ua";
import {
  createTestApp,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";
import { multipart } from "./studio-helpers";
import { webhookReceiver } from "./webhook-receiver";

// A personal video landing page (/v/{token}) posts its own view and watch-progress events. Headless
// crawlers and link-preview services run that script too (Googlebot, bingbot, facebookexternalhit,
// LinkedInBot, a HeadlessChrome scanner) and scripts post without a User-Agent. Like a tracked link
// fetched by a bot (campaign-bot-clicks.int), their events are answered in the usual shape but
// record nothing: no view count or watch milestone, no video_viewed / video_progress activity, no
// clicked recipient (the report's engagement), no video.viewed or message.clicked webhook event.
// Rendering the page itself records no engagement for anyone. A person's browser is counted once.

const BOTS: (string | undefined)[] = [
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36",
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/124.0.6367.201 Safari/537.36",
  "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
  "lightMyRequest", // app.inject's default
  "",
  undefined, // no User-Agent header at all
];

let t: TestApp;
beforeAll(async () => {
  // no simulated engagement: the local providers' simulated opens and clicks would mark recipients
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe.skipIf(!SHARED_DATA)(`video landing page events from bots (${SHARED_DATA_MISSING})`, () => {
  it("answer a bot's view and progress like a person's but count nothing; a person's view is counted once", async () => {
    const rx = await webhookReceiver();
    try {
      const u = await signUp(t.app);
      // webhooks and video campaigns: the Business plan
      await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
      const { key } = (
        await u.client.post("/api/api-keys", { name: "hooks", scopes: ["campaigns:read", "webhooks:write"] })
      ).json();
      const ep = await t.app.inject({
        method: "POST",
        url: "/api/v1/webhook_endpoints",
        headers: { authorization: `Bearer ${key}` },
        payload: { url: rx.url, events: ["video.viewed", "message.clicked"] },
      });
      expect(ep.statusCode, ep.body).toBe(201);

      const up = await u.client.inject({
        method: "POST",
        url: "/api/videos/upload",
        ...multipart(
          { name: "Bot check" },
          {
            field: "video",
            filename: "flower.mp4",
            content: fs.readFileSync(path.join(SHARED_DATA as string, "media", "mdn-flower.mp4")),
          },
        ),
      });
      expect(up.statusCode, up.body).toBe(200);
      const video = up.json().media as { id: number; url: string };
      const to = uniqueEmail("bot-viewer");
      const launch = await u.client.post("/api/campaigns/video", {
        campaignName: "Bot views",
        videoId: video.id,
        videoUrl: video.url,
        deliveryMethod: "email",
        contacts: [{ name: "Vera Viewer", company: "Acme", email: to }],
      });
      expect(launch.statusCode, launch.body).toBe(200);
      const campaignId = launch.json().campaign.id as number;
      const mail = (
        await t.app.inject({
          method: "GET",
          url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
        })
      ).json().messages[0] as { html: string };
      const token = /\/v\/([a-z0-9]{16,64})/.exec(mail.html)?.[1] as string;
      expect(token).toBeTruthy();

      const post = (ua: string | undefined, payload: object) =>
        t.app.inject({ method: "POST", url: `/v/${token}/events`, headers: { "user-agent": ua }, payload });
      const counted = async () => {
        const [page] = await t.db.select().from(videoLandingPages).where(eq(videoLandingPages.token, token));
        const acts = await t.db
          .select()
          .from(activities)
          .where(
            and(
              eq(activities.workspaceId, u.user.id),
              inArray(activities.activityType, ["video_viewed", "video_progress"]),
            ),
          );
        const [recipient] = await t.db
          .select()
          .from(campaignRecipients)
          .where(and(eq(campaignRecipients.campaignId, campaignId), eq(campaignRecipients.address, to)));
        const hooks = await t.db
          .select()
          .from(outboundWebhookEvents)
          .where(eq(outboundWebhookEvents.workspaceId, u.user.id));
        const report = (await u.client.get(`/api/campaigns/${campaignId}`)).json();
        const stats = (await u.client.get(`/api/campaigns/video/${campaignId}/stats`)).json().stats;
        return {
          viewCount: page?.viewCount,
          maxPercent: page?.maxPercent,
          firstViewed: !!page?.firstViewedAt,
          activities: acts.map((a) => a.activityType).sort(),
          clickedAt: !!recipient?.clickedAt,
          clickedFigure: report.figures.clicked,
          views: stats.views,
          viewers: stats.viewers,
          webhookEvents: hooks.map((h) => h.type).sort(),
        };
      };
      const nothing = {
        viewCount: 0,
        maxPercent: 0,
        firstViewed: false,
        activities: [],
        clickedAt: false,
        clickedFigure: 0,
        views: 0,
        viewers: 0,
        webhookEvents: [],
      };

      // each bot renders the page and posts what its script would: a view and every milestone
      const answers: { ua: string | undefined; status: number; body: unknown }[] = [];
      for (const ua of BOTS) {
        const page = await t.app.inject({ method: "GET", url: `/v/${token}`, headers: { "user-agent": ua } });
        expect(page.statusCode, String(ua)).toBe(200);
        expect(page.body, String(ua)).toContain("A video for Vera Viewer");
        for (const payload of [
          { event: "view" },
          { event: "progress", percent: 25 },
          { event: "progress", percent: 50 },
          { event: "progress", percent: 75 },
          { event: "progress", percent: 100 },
        ]) {
          const res = await post(ua, payload);
          answers.push({ ua, status: res.statusCode, body: res.json() });
        }
      }
      expect(await counted()).toEqual(nothing);
      for (const a of answers) {
        expect(a.status, String(a.ua)).toBe(200);
        expect(a.body, String(a.ua)).toEqual({ success: true, tracked: false });
      }
      // a bot's malformed event is refused like anyone's
      expect((await post(BOTS[0], { event: "progress", percent: 33 })).statusCode).toBe(400);
      expect(rx.got).toHaveLength(0);

      // a person's browser: the view and its first milestone are counted, the view once
      expect((await post(PERSON["user-agent"], { event: "view" })).json()).toEqual({
        success: true,
        tracked: true,
      });
      expect((await post(BROWSER_UA.safari, { event: "progress", percent: 25 })).json()).toEqual({
        success: true,
        tracked: true,
      });
      const afterPerson = {
        viewCount: 1,
        maxPercent: 25,
        firstViewed: true,
        activities: ["video_progress", "video_viewed"],
        clickedAt: true,
        clickedFigure: 1,
        views: 1,
        viewers: 1,
        webhookEvents: ["message.clicked", "video.viewed", "video.viewed"],
      };
      expect(await counted()).toEqual(afterPerson);

      // bots after the person add nothing either (a further milestone or view of theirs is not counted)
      for (const ua of BOTS) {
        expect((await post(ua, { event: "view" })).json(), String(ua)).toEqual({
          success: true,
          tracked: false,
        });
        expect((await post(ua, { event: "progress", percent: 75 })).json(), String(ua)).toEqual({
          success: true,
          tracked: false,
        });
      }
      expect(await counted()).toEqual(afterPerson);
    } finally {
      await rx.close();
    }
  });
});
