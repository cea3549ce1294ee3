import { inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import {
  type AuthedClient,
  createTestApp,
  daytimeZone,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

// A launch's answer (REST email / SMS / generic launch, tRPC campaigns.create, POST /api/v1/campaigns)
// carries the campaign's real per-status counts and progress, as GET of the same campaign reports them:
// right after a launch the recipients are queued (or skipped), nothing is sent, so progress is the
// skipped share (0 when none is skipped), never 1 with empty counts.
//
// In production the send jobs run on workers after the launch has answered. The inline job client of
// the tests runs them inside the launch, so `holdQueue` keeps every job in the queue (as pg-boss does
// until a worker takes it) and `releaseQueue` runs them afterwards.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

let realSend: TestApp["jobs"]["send"] | null = null;
/** Keeps every job sent from now on in `t.jobs.deferred` instead of running it. */
function holdQueue() {
  realSend = t.jobs.send.bind(t.jobs);
  t.jobs.send = (async (job, data, options = {}) => {
    t.jobs.deferred.push({ job, data, options });
    return options.id ?? `held-${t.jobs.deferred.length}`;
  }) as TestApp["jobs"]["send"];
}
/** Runs the held jobs (a worker picks them up). */
async function releaseQueue() {
  if (realSend) t.jobs.send = realSend;
  realSend = null;
  await t.jobs.runDeferred();
}
afterEach(async () => {
  await releaseQueue();
});

const LATER = () => new Date(Date.now() + 3_600_000).toISOString();
const emails = (n: number) => Array.from({ length: n }, () => uniqueEmail("count"));
/** The campaign as GET /api/campaigns/:id reports it. */
async function reported(client: AuthedClient, id: number) {
  const res = await client.get(`/api/campaigns/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaign;
}

describe("a launch answers the campaign's real counts and progress", () => {
  it("REST email launch sending now: queued = audience, nothing sent, progress 0; GET agrees; once sent, GET moves on", async () => {
    const { client } = await signUp(t.app);
    holdQueue();
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Counts now",
      subject: "Hi",
      body: "Hello",
      contacts: emails(3).map((email) => ({ name: "R", email })),
    });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json().campaign;
    expect(c).toMatchObject({ status: "sending", recipientCount: 3, counts: { queued: 3 }, progress: 0 });
    const got = await reported(client, c.id);
    expect({ status: got.status, counts: got.counts, progress: got.progress }).toEqual({
      status: c.status,
      counts: c.counts,
      progress: c.progress,
    });
    await releaseQueue();
    expect(await reported(client, c.id)).toMatchObject({
      status: "completed",
      counts: { sent: 3 },
      progress: 1,
    });
  });

  it("REST email launch scheduled: status scheduled, counts queued, progress 0", async () => {
    const { client } = await signUp(t.app);
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Counts later",
      subject: "Hi",
      body: "Hello",
      contacts: emails(2).map((email) => ({ name: "R", email })),
      scheduledAt: LATER(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json().campaign;
    expect(c).toMatchObject({ status: "scheduled", counts: { queued: 2 }, progress: 0 });
    expect(await reported(client, c.id)).toMatchObject({ counts: c.counts, progress: c.progress });
  });

  it("REST SMS launch with a skipped recipient: counts queued and skipped, progress is the skipped share", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const stamp = String(Math.floor(Math.random() * 10_000)).padStart(4, "0");
    const ids = await findOrCreateContacts(t.ctx, user.id, [
      { name: "P1", phone: `+1202555${stamp}` },
      { name: "P2", phone: `+1303555${stamp}` },
      { name: "No phone", email: uniqueEmail("nophone") },
    ]);
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    holdQueue();
    const res = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Texts",
      message: "Hi",
      contacts: ids.map((id) => ({ id })),
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json().campaign;
    expect(res.json().recipients).toBe(2);
    expect(c).toMatchObject({ status: "sending", recipientCount: 3, counts: { queued: 2, skipped: 1 } });
    expect(c.progress).toBeCloseTo(1 / 3);
    expect(await reported(client, c.id)).toMatchObject({ counts: c.counts, progress: c.progress });
  });

  it("REST generic launch (/api/campaigns) and tRPC campaigns.create answer the same way", async () => {
    const { client } = await signUp(t.app);
    holdQueue();
    const rest = await client.post("/api/campaigns", {
      name: "Generic",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { csv: emails(2).map((email) => ({ email })) },
    });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json().campaign).toMatchObject({ status: "sending", counts: { queued: 2 }, progress: 0 });

    const rpc = await trpcCall(client, "campaigns.create", {
      name: "Over tRPC",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { csv: emails(4).map((email) => ({ email })) },
    });
    expect(rpc.status, JSON.stringify(rpc.error)).toBe(200);
    expect(rpc.data.campaign).toMatchObject({ status: "sending", counts: { queued: 4 }, progress: 0 });
    const report = await trpcCall(client, "campaigns.report", { id: rpc.data.campaign.id }, "query");
    expect(report.data.campaign).toMatchObject({ counts: { queued: 4 }, progress: 0 });
  });

  it("POST /api/v1/campaigns answers the counts GET /api/v1/campaigns/{id} reports", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const keyRes = await client.post("/api/api-keys", {
      name: "launch counts",
      scopes: ["campaigns:read", "campaigns:write", "contacts:write"],
    });
    expect(keyRes.statusCode, keyRes.body).toBe(200);
    const key = keyRes.json().key as string;
    const v1 = (method: "GET" | "POST", url: string, payload?: object) =>
      t.app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${key}` }, payload });
    holdQueue();
    const now = await v1("POST", "/campaigns", {
      name: "API now",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contacts: emails(3).map((email) => ({ email })) },
    });
    expect(now.statusCode, now.body).toBe(201);
    const c = now.json().campaign;
    expect(c).toMatchObject({ status: "sending", recipient_count: 3, counts: { queued: 3 }, progress: 0 });
    const got = (await v1("GET", `/campaigns/${c.id}`)).json();
    expect({ counts: got.counts, progress: got.progress }).toEqual({
      counts: c.counts,
      progress: c.progress,
    });

    const later = await v1("POST", "/campaigns", {
      name: "API later",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contacts: emails(2).map((email) => ({ email })) },
      scheduled_at: LATER(),
    });
    expect(later.statusCode, later.body).toBe(201);
    expect(later.json().campaign).toMatchObject({ status: "scheduled", counts: { queued: 2 }, progress: 0 });
  });
});
