import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  activities,
  campaignRecipients,
  contacts,
  outboundWebhookEvents,
  workspaces,
} from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { type DropCowboyOutcome, dropCowboyCallback, startDropCowboyFake } from "../fakes/dropcowboy";
import {
  type AuthedClient,
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  signUp,
  type TestApp,
} from "../helpers";
import { uniquePhone } from "../unique-phone";
import { webhookReceiver } from "./webhook-receiver";

// Ringless voicemail delivery status with the real Drop Cowboy provider class (fetch against a fake
// of its RVM API): every campaign drop names a callback_url with its own token, and Drop Cowboy's
// documented webhook JSON posted there delivers or fails the recipient, as the report counts.

type Drop = Record<string, unknown>;

describe("Drop Cowboy RVM status callbacks", () => {
  let t: TestApp;
  let dc: Awaited<ReturnType<typeof startDropCowboyFake>>;
  let rx: Awaited<ReturnType<typeof webhookReceiver>>;
  beforeAll(async () => {
    dc = await startDropCowboyFake("team-rvm", "rvm-secret");
    rx = await webhookReceiver();
    t = await createTestApp({
      OUTBOUND_ALLOWED_HOSTS: "127.0.0.1",
      VOICEMAIL_PROVIDER: "dropcowboy",
      DROPCOWBOY_TEAM_ID: "team-rvm",
      DROPCOWBOY_SECRET: "rvm-secret",
      DROPCOWBOY_API_URL: dc.apiUrl,
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    });
  });
  afterAll(async () => {
    await t?.close();
    await dc?.close();
    await rx?.close();
  });

  /** A Business workspace with a webhook endpoint for message.delivered (so events are stored). */
  async function workspace() {
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    const { key } = (
      await u.client.post("/api/api-keys", { name: "hooks", scopes: ["webhooks:write", "campaigns:read"] })
    ).json();
    const ep = await t.app.inject({
      method: "POST",
      url: "/api/v1/webhook_endpoints",
      headers: { authorization: `Bearer ${key}` },
      payload: { url: rx.url, events: ["message.delivered", "message.bounced"] },
    });
    expect(ep.statusCode, ep.body).toBe(201);
    return u;
  }

  /** Launches a voicemail campaign to `n` new contacts; returns its id, rows and their drops. */
  async function launch(client: AuthedClient, workspaceId: string, n: number) {
    const phones: string[] = [];
    for (let i = 0; i < n; i++) phones.push(await uniquePhone("646"));
    const ids = await findOrCreateContacts(
      t.ctx,
      workspaceId,
      phones.map((phone, i) => ({ name: `Vee${i}`, phone })),
    );
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    const res = await client.post("/api/campaigns", {
      name: "Drops",
      channel: "voicemail",
      content: { script: "Hi {{name}}, call us back." },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const campaignId = res.json().campaignId as number;
    const rows = await campaignRecipientRows(t, campaignId);
    expect(rows.map((r) => r.status)).toEqual(phones.map(() => "sent"));
    const drops = rows.map((r) => {
      const d = dc.drops.find((x) => x.foreign_id === `cr-${r.id}`);
      expect(d, `drop of recipient ${r.id}`).toBeDefined();
      return d as Drop;
    });
    return { campaignId, rows, drops };
  }

  const post = (path: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: "POST",
      url: path,
      payload: payload as string,
      headers: { "content-type": "application/json", ...headers },
    });
  const callback = (drop: Drop, outcome: DropCowboyOutcome) => {
    const c = dropCowboyCallback(drop, outcome);
    return post(c.path, JSON.stringify(c.body));
  };
  const row = async (id: number) =>
    (await t.db.select().from(campaignRecipients).where(eq(campaignRecipients.id, id)))[0]!;
  const report = async (client: AuthedClient, campaignId: number) =>
    (await client.get(`/api/campaigns/${campaignId}`)).json().figures as {
      sent: number;
      delivered: number;
      failed: number;
    };
  const deliveredEvents = async (workspaceId: string) =>
    (
      await t.db
        .select()
        .from(outboundWebhookEvents)
        .where(
          and(
            eq(outboundWebhookEvents.workspaceId, workspaceId),
            eq(outboundWebhookEvents.type, "message.delivered"),
          ),
        )
    ).map((e) => e.data);

  it("each drop carries its own callback_url; success delivers, a failure and a DNC number fail with the reason in words; replays and a late success change nothing", async () => {
    const { client, user } = await workspace();
    const { campaignId, rows, drops } = await launch(client, user.id, 3);
    // the real provider sent callback_url: APP_URL + the route + a per-drop token
    const urls = drops.map((d) => String(d.callback_url));
    for (const u of urls)
      expect(u).toMatch(/^http:\/\/localhost:80\/api\/webhooks\/dropcowboy\/rvm\/[A-Za-z0-9_-]{22}$/);
    expect(new Set(urls).size).toBe(3);
    expect(await report(client, campaignId)).toMatchObject({ sent: 3, delivered: 0, failed: 0 });

    const [ok, bad, dnc] = drops as [Drop, Drop, Drop];
    const res = await callback(ok, { status: "success" });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, result: "applied" });
    const failed = await callback(bad, { status: "failure", reason: "Invalid phone number" });
    expect(failed.json().result).toBe("applied");
    expect((await callback(dnc, { status: "failure", dnc: true })).json().result).toBe("applied");

    const [r0, r1, r2] = await Promise.all(rows.map((r) => row(r.id)));
    expect(r0).toMatchObject({ status: "delivered", failedAt: null, reason: null });
    expect(r0.deliveredAt).toBeInstanceOf(Date);
    expect(r1).toMatchObject({
      status: "failed",
      reason: "Not delivered: Invalid phone number (Drop Cowboy)",
      deliveredAt: null,
    });
    expect(r2).toMatchObject({
      status: "failed",
      reason: "Not delivered: the number is on a do-not-call list",
    });
    expect(await report(client, campaignId)).toMatchObject({ sent: 3, delivered: 1, failed: 2 });
    // the recipients list shows the reasons as the report's table does
    const listed = (await client.get(`/api/campaigns/${campaignId}/recipients`)).json().recipients as {
      id: number;
      reason: string | null;
    }[];
    expect(listed.find((x) => x.id === rows[2]!.id)?.reason).toMatch(/do-not-call/);

    // the same events as the Twilio status path: message.delivered for the delivery, a
    // voicemail_failed activity with the reason for each failure
    const events = await deliveredEvents(user.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      campaign_id: campaignId,
      recipient_id: rows[0]!.id,
      channel: "voicemail",
      status: "delivered",
    });
    const failedActivities = await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.workspaceId, user.id), eq(activities.activityType, "voicemail_failed")));
    expect(failedActivities.map((a) => a.metadata.reason).sort()).toEqual([
      "Not delivered: Invalid phone number (Drop Cowboy)",
      "Not delivered: the number is on a do-not-call list",
    ]);

    // a replay (the same drop's same status again) changes nothing
    const before = await row(rows[0]!.id);
    expect((await callback(ok, { status: "success" })).json().result).toBe("replay");
    expect((await callback(bad, { status: "failure", reason: "Invalid phone number" })).json().result).toBe(
      "replay",
    );
    expect(await row(rows[0]!.id)).toEqual(before);
    expect(await deliveredEvents(user.id)).toHaveLength(1);
    // a late success after a failure changes nothing (a failure wins in either order, as Twilio's)
    expect((await callback(bad, { status: "success" })).json().result).toBe("ignored");
    expect(await row(rows[1]!.id)).toMatchObject({ status: "failed", deliveredAt: null });
    expect(await report(client, campaignId)).toMatchObject({ delivered: 1, failed: 2 });
    expect(await deliveredEvents(user.id)).toHaveLength(1);
  });

  it("a forged callback changes nothing: a wrong token, another workspace's foreign_id, another drop's id", async () => {
    const a = await workspace();
    const b = await workspace();
    const ca = await launch(a.client, a.user.id, 1);
    const cb = await launch(b.client, b.user.id, 1);
    const mine = ca.drops[0]!;
    const theirs = cb.drops[0]!;
    const good = dropCowboyCallback(mine, { status: "success" });

    // an altered token
    const last = good.path.at(-1) === "A" ? "B" : "A";
    const altered = await post(`${good.path.slice(0, -1)}${last}`, JSON.stringify(good.body));
    expect(altered.statusCode).toBe(401);
    expect(altered.json().error).toBe("This callback URL is not valid for this voicemail drop");
    // no token at all, or a token of the wrong length
    expect((await post("/api/webhooks/dropcowboy/rvm", JSON.stringify(good.body))).statusCode).toBe(404);
    expect((await post(`${good.path}x`, JSON.stringify(good.body))).statusCode).toBe(401);
    // my drop's token with the other workspace's foreign_id and drop id (its phone number too)
    const stolen = dropCowboyCallback(theirs, { status: "failure", reason: "forged" }).body;
    expect((await post(good.path, JSON.stringify(stolen))).statusCode).toBe(401);
    // my drop's token and foreign_id, naming the other workspace's drop id: not that drop's callback
    const crossed = { ...good.body, drop_id: theirs.drop_id, status: "failure", reason: "forged" };
    const r = await post(good.path, JSON.stringify(crossed));
    expect(r.statusCode).toBe(200);
    expect(r.json().result).toBe("ignored");
    // the other workspace's drop and mine are as sent; the real callback then still applies
    expect(await row(cb.rows[0]!.id)).toMatchObject({ status: "sent", reason: null, failedAt: null });
    expect(await row(ca.rows[0]!.id)).toMatchObject({ status: "sent", deliveredAt: null });
    expect(await report(b.client, cb.campaignId)).toMatchObject({ delivered: 0, failed: 0 });
    expect(await deliveredEvents(b.user.id)).toHaveLength(0);
    expect((await post(good.path, JSON.stringify(good.body))).json().result).toBe("applied");
    expect(await row(ca.rows[0]!.id)).toMatchObject({ status: "delivered" });
  });

  it("a garbage body is a 4xx with a sentence and changes nothing", async () => {
    const { client, user } = await workspace();
    const { rows, drops, campaignId } = await launch(client, user.id, 1);
    const { path, body } = dropCowboyCallback(drops[0]!, { status: "success" });
    const cases: [string, unknown, Record<string, string>, number, RegExp][] = [
      ["not JSON", "{drop_id:", {}, 400, /not valid JSON/],
      ["an empty body", "", {}, 400, /JSON/],
      ["null", "null", {}, 400, /./],
      ["an array", JSON.stringify([body]), {}, 400, /./],
      ["no foreign_id", JSON.stringify({ ...body, foreign_id: undefined }), {}, 400, /foreign id/i],
      ["no drop_id", JSON.stringify({ ...body, drop_id: undefined }), {}, 400, /drop id/i],
      ["a numeric status", JSON.stringify({ ...body, status: 1 }), {}, 400, /status/i],
      ["dnc as text", JSON.stringify({ ...body, dnc: "yes" }), {}, 400, /dnc/i],
      ["a huge reason", JSON.stringify({ ...body, reason: "x".repeat(5000) }), {}, 400, /reason/i],
      ["a body over 16 KB", JSON.stringify({ ...body, pad: "x".repeat(20_000) }), {}, 413, /too large/],
      ["plain text", "status=success", { "content-type": "text/plain" }, 400, /JSON object/],
      ["XML", "<status>success</status>", { "content-type": "application/xml" }, 415, /content type/],
    ];
    for (const [what, payload, headers, status, error] of cases) {
      const res = await post(path, payload, headers);
      expect(res.statusCode, `${what}: ${res.body}`).toBe(status);
      expect(res.json().error, what).toMatch(error);
    }
    expect(await row(rows[0]!.id)).toMatchObject({ status: "sent", deliveredAt: null, failedAt: null });
    expect(await report(client, campaignId)).toMatchObject({ delivered: 0, failed: 0 });
    // the good body after them is no replay of anything
    expect((await post(path, JSON.stringify(body))).json().result).toBe("applied");
  });

  it("a callback that arrives before the send recorded the drop id is held, then applied once", async () => {
    const { client, user } = await workspace();
    const earlyId = `early-${Date.now()}`;
    let early: { statusCode: number; body: string } | null = null;
    // Drop Cowboy calls back while the app still waits for its answer to the drop
    dc.failNext({ status: 200, json: { status: "queued", drop_id: earlyId } });
    dc.beforeReply(
      (req) => req.path === "/v1/rvm",
      async (req) => {
        const sent = JSON.parse(req.body) as Drop;
        early = await callback({ ...sent, drop_id: earlyId }, { status: "success" });
      },
    );
    const phone = await uniquePhone("646");
    const ids = await findOrCreateContacts(t.ctx, user.id, [{ name: "Eve", phone }]);
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    const res = await client.post("/api/campaigns", {
      name: "Early",
      channel: "voicemail",
      content: { script: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(early).not.toBeNull();
    expect(JSON.parse(early!.body)).toEqual({ success: true, result: "unknown" });
    const [r] = await campaignRecipientRows(t, res.json().campaignId);
    expect(r).toMatchObject({ providerMessageId: earlyId, status: "delivered" });
    expect(await deliveredEvents(user.id)).toHaveLength(1);
  });
});
