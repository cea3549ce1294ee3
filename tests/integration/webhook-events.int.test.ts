import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { PERSON } from "../browser-ua";
import {
  createTestApp,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";
import { multipart } from "./studio-helpers";
import { webhookReceiver as receiver } from "./webhook-receiver";

// Issue 15's campaign events: message.sent (a campaign message handed to the provider) and
// video.viewed (a recipient's landing page viewed, with watch percentage), delivered to a subscribed
// endpoint and verified with the standardwebhooks package.

let t: TestApp;
beforeAll(async () => {
  // no simulated engagement: the local providers' simulated opens and clicks (about 15% of tokens)
  // would emit message.clicked before the landing page is opened
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** A Business workspace with an API key and an endpoint subscribed to `events`. */
async function subscribed(events: string[], url: string) {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const { key } = (
    await u.client.post("/api/api-keys", {
      name: "hooks",
      scopes: ["campaigns:read", "campaigns:write", "webhooks:write"],
    })
  ).json();
  const call = (method: string, p: string, payload?: object) =>
    t.app.inject({
      method: method as "POST",
      url: `/api/v1${p}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });
  const ep = await call("POST", "/webhook_endpoints", { url, events });
  expect(ep.statusCode, ep.body).toBe(201);
  return { ...u, call, secret: ep.json().secret as string };
}

/** Every delivered event, verified with the endpoint's secret (throws on a bad signature). */
function verified(got: { headers: http.IncomingHttpHeaders; body: string }[], secret: string) {
  return got.map(
    (g) =>
      new Webhook(secret).verify(g.body, {
        "webhook-id": String(g.headers["webhook-id"]),
        "webhook-timestamp": String(g.headers["webhook-timestamp"]),
        "webhook-signature": String(g.headers["webhook-signature"]),
      }) as { type: string; data: Record<string, unknown> },
  );
}

describe("campaign webhook events", () => {
  it("message.sent: one event per message handed to the provider, with its recipient and provider id", async () => {
    const rx = await receiver();
    try {
      const k = await subscribed(["message.sent"], rx.url);
      const a = uniqueEmail("sent-a");
      const b = uniqueEmail("sent-b");
      const launch = await k.call("POST", "/campaigns", {
        name: "Sent hooks",
        channel: "email",
        content: { subject: "Hi", body: "Hello {{first_name|there}}" },
        audience: {
          contacts: [
            { first_name: "A", email: a },
            { first_name: "B", email: b },
          ],
        },
      });
      expect(launch.statusCode, launch.body).toBe(201);
      const campaignId = launch.json().campaign.id;
      const events = verified(rx.got, k.secret);
      expect(events.map((e) => e.type)).toEqual(["message.sent", "message.sent"]);
      expect(events.map((e) => e.data.address).sort()).toEqual([a, b].sort());
      for (const e of events) {
        expect(e.data).toMatchObject({ campaign_id: campaignId, channel: "email", status: "sent" });
        expect(e.data.provider_message_id).toEqual(expect.any(String));
        expect(e.data.provider_message_id).not.toBe("");
        expect(e.data.recipient_id).toEqual(expect.any(Number));
      }
      // a forged signature does not verify
      expect(() => verified(rx.got, `whsec_${Buffer.from("y".repeat(24)).toString("base64")}`)).toThrow();
    } finally {
      await rx.close();
    }
  });

  it.skipIf(!SHARED_DATA)(
    `video.viewed: a landing page view and each watch milestone, with the watch percentage; the first view is the recipient's message.clicked${SHARED_DATA ? "" : ` (${SHARED_DATA_MISSING})`}`,
    async () => {
      const rx = await receiver();
      try {
        const k = await subscribed(["video.viewed", "message.clicked"], rx.url);
        const body = multipart(
          { name: "Hook video" },
          {
            field: "video",
            filename: "flower.mp4",
            content: fs.readFileSync(path.join(SHARED_DATA as string, "media", "mdn-flower.mp4")),
          },
        );
        const up = await k.client.inject({ method: "POST", url: "/api/videos/upload", ...body });
        expect(up.statusCode, up.body).toBe(200);
        const video = up.json().media as { id: number; url: string };
        const to = uniqueEmail("viewer");
        const launch = await k.client.post("/api/campaigns/video", {
          campaignName: "Video hooks",
          videoId: video.id,
          videoUrl: video.url,
          deliveryMethod: "email",
          contacts: [{ name: "Vera Viewer", company: "", email: to }],
        });
        expect(launch.statusCode, launch.body).toBe(200);
        const campaignId = launch.json().campaign.id;
        const mail = (
          await t.app.inject({
            method: "GET",
            url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
          })
        ).json().messages[0] as { html: string };
        const token = /\/v\/([a-z0-9]{16,64})/.exec(mail.html)?.[1];
        expect(token).toBeTruthy();
        const ev = (payload: object) =>
          t.app.inject({ method: "POST", url: `/v/${token}/events`, headers: PERSON, payload });
        expect(rx.got).toHaveLength(0); // nothing before the page is opened
        expect((await ev({ event: "view" })).json().tracked).toBe(true);
        expect((await ev({ event: "progress", percent: 25 })).json().tracked).toBe(true);
        expect((await ev({ event: "progress", percent: 50 })).json().tracked).toBe(true);
        expect((await ev({ event: "progress", percent: 25 })).json().tracked).toBe(false); // repeat: no event
        const all = verified(rx.got, k.secret);
        // the landing page's first view is the message's click (once: later events are not)
        const clicks = all.filter((e) => e.type === "message.clicked");
        expect(clicks).toHaveLength(1);
        expect(clicks[0]!.data).toMatchObject({
          campaign_id: campaignId,
          channel: "video_email",
          status: "clicked",
        });
        const events = all.filter((e) => e.type !== "message.clicked");
        expect(events.map((e) => e.type)).toEqual(["video.viewed", "video.viewed", "video.viewed"]);
        expect(events.map((e) => [e.data.event, e.data.watch_percent])).toEqual([
          ["view", 0],
          ["progress", 25],
          ["progress", 50],
        ]);
        for (const e of events)
          expect(e.data).toMatchObject({ campaign_id: campaignId, media_id: video.id, view_count: 1 });
      } finally {
        await rx.close();
      }
    },
  );
});
