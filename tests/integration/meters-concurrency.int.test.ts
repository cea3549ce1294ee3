import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, usageMeters, workspaces } from "../../src/server/db/schema";
import { reserveUsage } from "../../src/server/features/billing/billing.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, laterThisMonth, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";

// Plan limits and monthly meters under real concurrency: requests sent at once (Promise.all over
// app.inject against the real app and Postgres) and the meters and outbox checked afterwards. The
// contact limit has its own file (crm-concurrency.int.test.ts); this one covers the other limits.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false", API_RATE_LIMIT_PER_MINUTE: "100000" });
});
afterAll(async () => t?.close());

const stamp = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;

const tally = (codes: number[]) => {
  const out: Record<number, number> = {};
  for (const c of codes) out[c] = (out[c] ?? 0) + 1;
  return out;
};

/** The meter's use over all its periods (a test's workspace lives in one period). */
async function meter(workspaceId: string, name: string) {
  const rows = await t.db
    .select()
    .from(usageMeters)
    .where(and(eq(usageMeters.workspaceId, workspaceId), eq(usageMeters.meter, name)));
  return rows.reduce((a, r) => a + r.used, 0);
}

/** `n` contacts with an email and a US mobile, created through the CRM service. */
async function contactsFor(workspaceId: string, n: number) {
  const s = stamp();
  return findOrCreateContacts(
    t.ctx,
    workspaceId,
    Array.from({ length: n }, (_, i) => ({
      name: `C ${i}`,
      email: `c${i}-${s}@example.com`,
      phone: `+1515555${String(1000 + i)}`,
    })),
  );
}

/** A time zone where it is now 10:00-19:59, so quiet hours (08:00-21:00) defer no SMS of the test. */
function daytimeZone(): string {
  const zones = [
    "America/New_York",
    "Europe/London",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Pacific/Auckland",
    "America/Los_Angeles",
    "Pacific/Honolulu",
  ];
  const hour = (z: string) =>
    Number(
      new Intl.DateTimeFormat("en-US", { timeZone: z, hour: "numeric", hourCycle: "h23" }).format(new Date()),
    );
  const z = zones.find((x) => hour(x) >= 10 && hour(x) < 20);
  if (!z) throw new Error("no daytime zone in the list");
  return z;
}

/** Contacts of `contactsFor` that may be texted now (their time zone is in daytime). */
async function daytimeContacts(workspaceId: string, n: number) {
  const ids = await contactsFor(workspaceId, n);
  await t.sql`update contacts set timezone = ${daytimeZone()} where workspace_id = ${workspaceId}`;
  return ids;
}

async function outboxCount(workspaceId: string, channel: string) {
  const [r] = await t.sql<{ n: number }[]>`
    select count(*)::int as n from outbox_messages where workspace_id = ${workspaceId} and channel = ${channel}`;
  return r!.n;
}

const search = { location: "Saginaw, MI", businessType: "dentist", radius: 5, searchRadius: 5 };

describe("lead searches (Free: 10 a month)", () => {
  it("20 searches at once with none used: exactly 10 run, 10 are refused with the plan's sentence", async () => {
    const { client } = await signUp(t.app);
    const res = await Promise.all(Array.from({ length: 20 }, () => client.post("/api/maps/search", search)));
    expect(tally(res.map((r) => r.statusCode))).toEqual({ 200: 10, 402: 10 });
    const refused = res.find((r) => r.statusCode === 402)!;
    expect(refused.json().error).toBe(
      "Your Free plan includes 10 lead searches a month; this needs 1 and 0 are left. Upgrade to Professional for up to 500 lead searches a month.",
    );
  });

  it("searches count in the usage endpoint's lead_searches", async () => {
    const { client } = await signUp(t.app);
    for (let i = 0; i < 2; i++) expect((await client.post("/api/maps/search", search)).statusCode).toBe(200);
    const u = (await client.get("/api/billing/usage")).json();
    expect(u.usage.lead_searches).toEqual({ used: 2, limit: 10 });
  });
});

describe("seats (Business: 5 team members)", () => {
  it("20 invites at once: 4 are sent (owner + 4 = 5 seats), 16 refused naming the plan", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const res = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.post("/api/workspaces/current/invites", { email: uniqueEmail("seat"), role: "member" }),
      ),
    );
    expect(tally(res.map((r) => r.statusCode))).toEqual({ 201: 4, 402: 16 });
    expect(res.find((r) => r.statusCode === 402)!.json().error).toContain(
      "Your Business plan includes 5 team members",
    );
  });
});

describe("single sends from the contact page", () => {
  it("Professional SMS with 495 used: 20 sends at once, 5 go, 15 are refused; the meter stops at 500", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    // a contact-page SMS keeps the contact's quiet hours too
    const [id] = await daytimeContacts(user.id, 1);
    await reserveUsage(t.ctx, user.id, "smsMessages", 495);
    const res = await Promise.all(
      Array.from({ length: 20 }, () => client.post(`/api/contacts/${id}/send-sms`, { message: "Hello" })),
    );
    expect(tally(res.map((r) => r.statusCode))).toEqual({ 200: 5, 402: 15 });
    expect(await meter(user.id, "smsMessages")).toBe(500);
    expect(await outboxCount(user.id, "sms")).toBe(5);
  });
});

describe("SMS campaigns", () => {
  it("20 launches of 30 at once on Professional (500): 16 are accepted, 480 SMS go, never more", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const ids = await daytimeContacts(user.id, 30);
    const res = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post("/api/campaigns", {
          name: `SMS ${i}`,
          channel: "sms",
          content: { message: "Hi {{name|there}}" },
          recipients: { contactIds: ids },
          includeNotOptedIn: true,
        }),
      ),
    );
    expect(tally(res.map((r) => r.statusCode))).toEqual({ 200: 16, 402: 4 });
    expect(await meter(user.id, "smsMessages")).toBe(480);
    expect(await outboxCount(user.id, "sms")).toBe(480);
  });
});

describe("a plan downgrade mid-month stops a running campaign at the plan, and says so", () => {
  /** A scheduled SMS campaign to `ids`; then its time is made to come with `fire`. */
  async function scheduledSms(client: Awaited<ReturnType<typeof signUp>>["client"], ids: number[]) {
    const res = await client.post("/api/campaigns", {
      name: "Later",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
      scheduledAt: laterThisMonth().toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().campaign.id as number;
  }
  async function fire(id: number) {
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, id));
    await t.jobs.runDeferred();
  }

  it("Professional -> Free: the SMS campaign sends nothing, is paused with the reason; resume is a 402 until the plan allows it", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const ids = await daytimeContacts(user.id, 5);
    const id = await scheduledSms(client, ids);
    await setPlan(t, user.id, "free");
    await fire(id);
    expect(await outboxCount(user.id, "sms")).toBe(0);
    const report = (await client.get(`/api/campaigns/${id}`)).json();
    expect(report.campaign.status).toBe("paused");
    expect(report.campaign.pausedReason).toBe(
      "SMS and voice campaigns are not included in your Free plan. Upgrade to Professional to use SMS and voice campaigns. The campaign was paused with its remaining messages unsent: resume it after upgrading, or cancel it.",
    );
    const refused = await client.post(`/api/campaigns/${id}/resume`);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toContain("not included in your Free plan");
    await setPlan(t, user.id, "professional");
    const resumed = await client.post(`/api/campaigns/${id}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(200);
    await t.jobs.runDeferred();
    expect(await outboxCount(user.id, "sms")).toBe(5);
    const after = (await client.get(`/api/campaigns/${id}`)).json().campaign;
    expect(after.pausedReason).toBeNull();
  });

  it("Business -> Professional past the new SMS limit: the campaign stops at the meter with the numbers", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const ids = await daytimeContacts(user.id, 5);
    await reserveUsage(t.ctx, user.id, "smsMessages", 600);
    const id = await scheduledSms(client, ids);
    await setPlan(t, user.id, "professional");
    await fire(id);
    expect(await outboxCount(user.id, "sms")).toBe(0);
    const c = (await client.get(`/api/campaigns/${id}`)).json().campaign;
    expect(c.status).toBe("paused");
    expect(c.pausedReason).toBe(
      "Your Professional plan includes 500 SMS messages a month and 605 are already used or reserved this billing period. Upgrade to Business for up to 2,500 SMS messages a month. The campaign was paused with its remaining messages unsent: resume it after upgrading, or cancel it.",
    );
  });
});

describe("send-time outcomes and the meter", () => {
  it("recipients skipped when sending (opted out after launch) and a cancelled campaign's unsent ones give their units back", async () => {
    const { client, user } = await signUp(t.app);
    const ids = await contactsFor(user.id, 5);
    const launch = (name: string) =>
      client.post("/api/campaigns", {
        name,
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        recipients: { contactIds: ids },
        scheduledAt: laterThisMonth().toISOString(),
      });
    const a = await launch("A");
    const b = await launch("B");
    expect(await meter(user.id, "emails")).toBe(10);
    for (const id of ids.slice(0, 2))
      expect((await client.put(`/api/contacts/${id}`, { email_opt_in: false })).statusCode).toBe(200);
    const aId = a.json().campaign.id as number;
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, aId));
    await t.jobs.runDeferred();
    expect(await outboxCount(user.id, "email")).toBe(3);
    expect(await meter(user.id, "emails")).toBe(8);
    expect((await client.post(`/api/campaigns/${b.json().campaign.id}/cancel`)).statusCode).toBe(200);
    expect(await meter(user.id, "emails")).toBe(3);
  });

  it("resend to failed reserves the messages again: at the limit it is a 402 with the plan's sentence and nothing is requeued", async () => {
    const { client, user } = await signUp(t.app);
    const ids = await contactsFor(user.id, 2);
    const res = await client.post("/api/campaigns", {
      name: "Once",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaign.id as number;
    expect(await outboxCount(user.id, "email")).toBe(2);
    // one of them failed at the vendor (as the engine records it after its retries)
    await t.sql`update campaign_recipients set status = 'failed', reason = 'vendor said no'
      where id = (select min(id) from campaign_recipients where campaign_id = ${id})`;
    await t.sql`update campaigns set status = 'completed' where id = ${id}`;
    await reserveUsage(t.ctx, user.id, "emails", 100 - (await meter(user.id, "emails")));
    const outboxBefore = await outboxCount(user.id, "email"); // + the owner's 80 % warning
    const refused = await client.post(`/api/campaigns/${id}/resend-failed`);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toBe(
      "Your Free plan includes 100 emails a month; this needs 1 and 0 are left. Upgrade to Professional for unlimited emails.",
    );
    const [r] = await t.sql<{ n: number }[]>`
      select count(*)::int as n from campaign_recipients where campaign_id = ${id} and status = 'failed'`;
    expect(r!.n).toBe(1);
    expect(await outboxCount(user.id, "email")).toBe(outboxBefore);
    expect(await meter(user.id, "emails")).toBe(100);
  });
});

describe("a subscription that ended (cancelled at period end) before its workspace row was updated", () => {
  it("seats and API access follow the plan the workspace has now (Free), not the stored one", async () => {
    const { client, user } = await signUp(t.app);
    await t.db
      .update(workspaces)
      .set({
        plan: "business",
        subscriptionStatus: "active",
        cancelAtPeriodEnd: true,
        currentPeriodEnd: new Date(Date.now() - 60_000),
      })
      .where(eq(workspaces.id, user.id));
    const invite = await client.post("/api/workspaces/current/invites", {
      email: uniqueEmail("ended"),
      role: "member",
    });
    expect(invite.statusCode).toBe(402);
    expect(invite.json().error).toBe(
      "Your Free plan includes 1 team member, counting the owner, and it is taken. Upgrade to Business for up to 5 team members.",
    );
    const key = await client.post("/api/api-keys", { name: "ended", scopes: ["contacts:read"] });
    expect(key.statusCode).toBe(402);
    expect(key.json().error).toBe(
      "API access is not included in your Free plan. Upgrade to Business to use API access.",
    );
  });
});
