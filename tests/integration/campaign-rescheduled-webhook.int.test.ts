import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboundWebhookEvents, workspaces } from "../../src/server/db/schema";
import { WEBHOOK_EVENT_DATA } from "../../src/server/features/api/api.v1.schemas";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// Rescheduling a campaign (the report's Reschedule, tRPC campaigns.reschedule) told no integration:
// a receiver that keeps a calendar of campaign.launched's scheduled_at kept the old time. The move now
// stores campaign.rescheduled in its transaction (the campaign as campaign.launched gives it, with the
// new and the old send time in UTC), from tRPC and from v1 POST /campaigns/{id}/reschedule alike; a
// refused move (a past time, a campaign no longer scheduled, another workspace's, a key without
// campaigns:write) stores none.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const HOUR = 3600_000;

/** A Business workspace with a key of `scopes`, and an endpoint at `url` subscribed to campaign.rescheduled. */
async function subscribed(url: string, scopes = ["webhooks:write", "campaigns:read", "campaigns:write"]) {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", { name: "hooks", scopes });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const call = (method: string, path: string, payload?: object) =>
    t.app.inject({
      method: method as "POST",
      url: `/api/v1${path}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });
  const ep = await call("POST", "/webhook_endpoints", { url, events: ["campaign.rescheduled"] });
  expect(ep.statusCode, ep.body).toBe(201);
  return { ...u, call, secret: ep.json().secret as string };
}

/** Schedules a one-recipient email campaign for `at` through the app's launch; returns its id. */
async function scheduled(client: Awaited<ReturnType<typeof signUp>>["client"], at: Date) {
  const res = await client.post("/api/campaigns/email/launch", {
    campaignName: "Spring offer",
    subject: "Spring offer",
    body: "Hi there",
    contacts: [{ name: "R", email: uniqueEmail("resched-hook") }],
    scheduledAt: at.toISOString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaignId as number;
}

/** The campaign.rescheduled events stored for the workspace. */
async function storedEvents(workspaceId: string) {
  return t.db
    .select({ data: outboundWebhookEvents.data })
    .from(outboundWebhookEvents)
    .where(
      and(
        eq(outboundWebhookEvents.workspaceId, workspaceId),
        eq(outboundWebhookEvents.type, "campaign.rescheduled"),
      ),
    );
}

describe("campaign.rescheduled", () => {
  it("is delivered from tRPC and v1 with the documented data: the campaign, its new and its old send time (UTC)", async () => {
    const rx = await webhookReceiver();
    try {
      const u = await subscribed(rx.url);
      const first = new Date(Date.now() + HOUR);
      first.setUTCMilliseconds(0);
      const id = await scheduled(u.client, first);
      const second = new Date(Date.now() + 3 * HOUR);
      second.setUTCSeconds(0, 0);
      const viaApp = await trpcCall(u.client, "campaigns.reschedule", {
        id,
        scheduledAt: second.toISOString(),
      });
      expect(viaApp.status, JSON.stringify(viaApp.error)).toBe(200);
      const third = new Date(Date.now() + 26 * HOUR);
      third.setUTCSeconds(0, 0);
      // given with an offset, told in UTC
      const local = `${new Date(third.getTime() - 5 * HOUR).toISOString().slice(0, 19)}-05:00`;
      const viaApi = await u.call("POST", `/campaigns/${id}/reschedule`, { scheduled_at: local });
      expect(viaApi.statusCode, viaApi.body).toBe(200);

      const events = rx.got.map(
        (g) =>
          new Webhook(u.secret).verify(g.body, {
            "webhook-id": String(g.headers["webhook-id"]),
            "webhook-timestamp": String(g.headers["webhook-timestamp"]),
            "webhook-signature": String(g.headers["webhook-signature"]),
          }) as { type: string; data: Record<string, unknown> },
      );
      const campaign = {
        id,
        name: "Spring offer",
        channel: "email",
        status: "scheduled",
        recipient_count: 1,
      };
      expect(events.map((e) => e.type)).toEqual(["campaign.rescheduled", "campaign.rescheduled"]);
      expect(events.map((e) => e.data)).toEqual([
        { ...campaign, scheduled_at: second.toISOString(), previous_scheduled_at: first.toISOString() },
        { ...campaign, scheduled_at: third.toISOString(), previous_scheduled_at: second.toISOString() },
      ]);
      // exactly the documented fields (the OpenAPI document's webhooks are made of this schema)
      for (const e of events) WEBHOOK_EVENT_DATA["campaign.rescheduled"].strict().parse(e.data);
    } finally {
      await rx.close();
    }
  });

  it("a refused move stores and sends none: a past time, a paused campaign, another workspace's, a key without campaigns:write", async () => {
    const rx = await webhookReceiver();
    try {
      const u = await subscribed(rx.url);
      const other = await subscribed(rx.url);
      const readOnly = await subscribed(rx.url, ["webhooks:write", "campaigns:read"]);
      const at = new Date(Date.now() + HOUR);
      const id = await scheduled(u.client, at);
      const later = new Date(Date.now() + 5 * HOUR).toISOString();

      const past = await trpcCall(u.client, "campaigns.reschedule", {
        id,
        scheduledAt: new Date(Date.now() - HOUR).toISOString(),
      });
      expect(past.status).toBe(400);
      const theirs = await other.call("POST", `/campaigns/${id}/reschedule`, { scheduled_at: later });
      expect(theirs.statusCode, theirs.body).toBe(404);
      const unscoped = await readOnly.call("POST", `/campaigns/${id}/reschedule`, { scheduled_at: later });
      expect(unscoped.statusCode, unscoped.body).toBe(403);
      expect(unscoped.json().error.message).toContain("campaigns:write");
      expect((await u.client.post(`/api/campaigns/${id}/pause`)).statusCode).toBe(200);
      const paused = await u.call("POST", `/campaigns/${id}/reschedule`, { scheduled_at: later });
      expect(paused.statusCode, paused.body).toBe(409);
      expect(paused.json().error.message).toBe("A paused campaign cannot be rescheduled");

      for (const w of [u, other, readOnly]) expect(await storedEvents(w.user.id)).toEqual([]);
      expect(rx.got).toEqual([]);
      // still at its time
      expect((await u.call("GET", `/campaigns/${id}`)).json().scheduled_at).toBe(at.toISOString());
    } finally {
      await rx.close();
    }
  });

  it("a move to the time it already has stores no event and queues no second send job (a dialog saved unchanged)", async () => {
    const rx = await webhookReceiver();
    const u = await subscribed(rx.url);
    await rx.close();
    const at = new Date(Date.now() + 2 * HOUR);
    at.setUTCSeconds(0, 0);
    const id = await scheduled(u.client, at);
    // the inline job client keeps jobs sent for later (startAfter) in `deferred`
    const fanOuts = async () =>
      t.jobs.deferred.filter(
        (d) => d.job.name === "campaigns.fan-out" && (d.data as { campaignId: number }).campaignId === id,
      ).length;
    const jobsBefore = await fanOuts();
    const same = await trpcCall(u.client, "campaigns.reschedule", { id, scheduledAt: at.toISOString() });
    expect(same.status, JSON.stringify(same.error)).toBe(200);
    const sameViaApi = await u.call("POST", `/campaigns/${id}/reschedule`, {
      scheduled_at: at.toISOString(),
    });
    expect(sameViaApi.statusCode, sameViaApi.body).toBe(200);
    expect(sameViaApi.json().scheduled_at).toBe(at.toISOString());
    expect(await storedEvents(u.user.id)).toEqual([]);
    expect(await fanOuts()).toBe(jobsBefore);
    // a real move still tells
    const later = new Date(at.getTime() + HOUR);
    expect(
      (await u.call("POST", `/campaigns/${id}/reschedule`, { scheduled_at: later.toISOString() })).statusCode,
    ).toBe(200);
    expect((await storedEvents(u.user.id)).length).toBe(1);
  });
});
