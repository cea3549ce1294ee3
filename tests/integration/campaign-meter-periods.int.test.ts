import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, outboxMessages, usageMeters, workspaces } from "../../src/server/db/schema";
import { addMonths } from "../../src/server/features/billing/billing.service";
import { processRecipients } from "../../src/server/features/campaigns/campaigns.engine";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, laterThisMonth, setPlan, signUp, type TestApp } from "../helpers";

// A campaign's messages count in the billing period they are sent in:
// - a Professional workspace (a real subscription: its period runs from the renewal day, not the 1st)
//   downgraded to Free while its email campaign waits or runs sends up to Free's 100 emails of the
//   calendar month, then the campaign pauses with the plan's sentence;
// - a campaign scheduled into next month reserves next month's messages, not this month's.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const stamp = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;

/** The meter's use per period start (ISO), for one workspace. */
async function meterByPeriod(workspaceId: string, meter: string) {
  const rows = await t.db
    .select()
    .from(usageMeters)
    .where(and(eq(usageMeters.workspaceId, workspaceId), eq(usageMeters.meter, meter)));
  return Object.fromEntries(rows.filter((r) => r.used > 0).map((r) => [r.periodStart.toISOString(), r.used]));
}

async function emailsSent(workspaceId: string) {
  const rows = await t.db
    .select({ id: outboxMessages.id })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.workspaceId, workspaceId), eq(outboxMessages.channel, "email")));
  return rows.length;
}

async function emailContacts(workspaceId: string, n: number) {
  const s = stamp();
  return findOrCreateContacts(
    t.ctx,
    workspaceId,
    Array.from({ length: n }, (_, i) => ({ name: `C ${i}`, email: `c${i}-${s}@example.com` })),
  );
}

/** Makes a scheduled campaign's time come and runs the jobs waiting for it. */
async function fire(id: number) {
  await t.db
    .update(campaigns)
    .set({ scheduledAt: new Date(Date.now() - 1000) })
    .where(eq(campaigns.id, id));
  await t.jobs.runDeferred();
}

const monthStart = (d: Date, back = 0) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1));

describe("a downgrade to Free stops a running email campaign at Free's 100 emails", () => {
  it("Professional (period from its renewal day) -> Free: 100 of 150 go, then paused with the plan's sentence", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    // a real subscription's period: renews 20 days from now (never on the 1st, so it differs from Free's)
    let end = new Date(Date.now() + 20 * 86_400_000);
    if (end.getUTCDate() === 1) end = new Date(end.getTime() + 86_400_000);
    await t.db.update(workspaces).set({ currentPeriodEnd: end }).where(eq(workspaces.id, user.id));
    const ids = await emailContacts(user.id, 150);
    const res = await client.post("/api/campaigns", {
      name: "Big",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
      scheduledAt: laterThisMonth().toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaign.id as number;
    expect(await meterByPeriod(user.id, "emails")).toEqual({ [addMonths(end, -1).toISOString()]: 150 });

    // the subscription ends: Free, whose period is the calendar month
    await t.db
      .update(workspaces)
      .set({ plan: "free", subscriptionStatus: "canceled", subscriptionTier: null })
      .where(eq(workspaces.id, user.id));
    await fire(id);

    expect(await emailsSent(user.id)).toBe(100);
    const c = (await client.get(`/api/campaigns/${id}`)).json().campaign;
    expect(c.status).toBe("paused");
    expect(c.pauseCause).toBe("plan");
    expect(c.pausedReason).toBe(
      "Your Free plan includes 100 emails a month and 100 are already used or reserved this billing period. Upgrade to Professional for unlimited emails. The campaign was paused with its remaining messages unsent: resume it after upgrading, or cancel it.",
    );
    // the 100 sent count in Free's month; the 50 unsent stay reserved where the launch put them
    const usage = (await client.get("/api/billing/usage")).json();
    expect(usage.usage.emails).toEqual({ used: 100, limit: 100 });
    expect(await meterByPeriod(user.id, "emails")).toEqual({
      [monthStart(new Date()).toISOString()]: 100,
      [addMonths(end, -1).toISOString()]: 50,
    });
    // resuming on Free is refused with the reason; cancelling gives the 50 back
    const refused = await client.post(`/api/campaigns/${id}/resume`);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toContain("Your Free plan includes 100 emails a month");
    expect((await client.post(`/api/campaigns/${id}/cancel`)).statusCode).toBe(200);
    expect(await meterByPeriod(user.id, "emails")).toEqual({ [monthStart(new Date()).toISOString()]: 100 });
  });

  it("Professional -> Free in the same meter period: the campaign's own unsent reservation does not stop it before the limit", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const ids = await emailContacts(user.id, 130);
    const res = await client.post("/api/campaigns", {
      name: "Same period",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
      scheduledAt: laterThisMonth().toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaign.id as number;
    await setPlan(t, user.id, "free");
    await fire(id);
    expect(await emailsSent(user.id)).toBe(100);
    const c = (await client.get(`/api/campaigns/${id}`)).json().campaign;
    expect(c.status).toBe("paused");
    expect(c.pausedReason).toContain(
      "Your Free plan includes 100 emails a month and 130 are already used or reserved",
    );
  });
});

describe("concurrent parts of one campaign after a downgrade", () => {
  it("two workers sending halves at once never pass Free's 100 together; a resume sends up to it", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const ids = await emailContacts(user.id, 130);
    const res = await client.post("/api/campaigns", {
      name: "Two workers",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
      scheduledAt: laterThisMonth().toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaign.id as number;
    await setPlan(t, user.id, "free");
    // its time came: sending, and two workers take half of its recipients each, at the same time
    await t.db
      .update(campaigns)
      .set({ status: "sending", scheduledAt: null, startedAt: new Date() })
      .where(eq(campaigns.id, id));
    const rows = await t.sql<{ id: string }[]>`
      select id from campaign_recipients where campaign_id = ${id} order by id`;
    const rowIds = rows.map((r) => Number(r.id));
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
    await Promise.all([
      processRecipients(deps, rowIds.slice(0, 65)),
      processRecipients(deps, rowIds.slice(65)),
    ]);
    // (which half claimed first decides how many each may send; together never past 100)
    const first = await emailsSent(user.id);
    expect(first).toBeLessThanOrEqual(100);
    expect((await client.get(`/api/campaigns/${id}`)).json().campaign.status).toBe("paused");
    if (first < 100) {
      // what the limit still allows goes on a resume, then it pauses at the limit
      const resumed = await client.post(`/api/campaigns/${id}/resume`);
      expect(resumed.statusCode, resumed.body).toBe(200);
      await t.jobs.runDeferred();
      expect(await emailsSent(user.id)).toBe(100);
      expect((await client.get(`/api/campaigns/${id}`)).json().campaign.status).toBe("paused");
    }
    expect((await client.post(`/api/campaigns/${id}/resume`)).statusCode).toBe(402);
  });
});

describe("a scheduled campaign counts in the period it sends in", () => {
  it("Free: a campaign scheduled into next month reserves next month's emails, so this month's full meter does not refuse it", async () => {
    const { client, user } = await signUp(t.app);
    const now = new Date();
    const thisMonth = monthStart(now);
    const nextMonth = monthStart(now, -1);
    // this month's 100 emails are used
    await t.db
      .insert(usageMeters)
      .values({ workspaceId: user.id, meter: "emails", periodStart: thisMonth, used: 100 });
    const ids = await emailContacts(user.id, 3);
    const res = await client.post("/api/campaigns", {
      name: "Next month",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
      scheduledAt: new Date(nextMonth.getTime() + 2 * 86_400_000 + 9 * 3_600_000).toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await meterByPeriod(user.id, "emails")).toEqual({
      [thisMonth.toISOString()]: 100,
      [nextMonth.toISOString()]: 3,
    });
    // this month's usage screen shows this month's use only
    expect((await client.get("/api/billing/usage")).json().usage.emails).toEqual({ used: 100, limit: 100 });

    // still over this month's limit when 10 more are scheduled for later this month
    const same = await client.post("/api/campaigns", {
      name: "This month",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
      scheduledAt: laterThisMonth().toISOString(),
    });
    expect(same.statusCode).toBe(402);
  });

  it("a campaign scheduled into next month that is sent this month after all (its time moved) counts this month", async () => {
    const { client, user } = await signUp(t.app);
    const now = new Date();
    const ids = await emailContacts(user.id, 4);
    const res = await client.post("/api/campaigns", {
      name: "Moved",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
      scheduledAt: new Date(monthStart(now, -1).getTime() + 86_400_000).toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    await fire(res.json().campaign.id);
    expect(await emailsSent(user.id)).toBe(4);
    expect(await meterByPeriod(user.id, "emails")).toEqual({ [monthStart(now).toISOString()]: 4 });
  });

  it("resend to failed in a later period than the launch's: the resent messages count once, in the period they go in", async () => {
    const { client, user } = await signUp(t.app);
    const now = new Date();
    const ids = await emailContacts(user.id, 3);
    const res = await client.post("/api/campaigns", {
      name: "Last month",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaign.id as number;
    // as if launched and sent last month: its 3 units are last month's, and two of them failed since
    const lastMonth = monthStart(now, 1);
    await t.db.update(campaigns).set({ meterPeriodStart: lastMonth }).where(eq(campaigns.id, id));
    await t.db.delete(usageMeters).where(eq(usageMeters.workspaceId, user.id));
    await t.db
      .insert(usageMeters)
      .values({ workspaceId: user.id, meter: "emails", periodStart: lastMonth, used: 3 });
    await t.sql`update campaign_recipients set status = 'failed', failed_at = now(), reason = 'undeliverable'
      where id in (select id from campaign_recipients where campaign_id = ${id} order by id limit 2)`;
    const resend = await client.post(`/api/campaigns/${id}/resend-failed`, {});
    expect(resend.statusCode, resend.body).toBe(200);
    expect(await emailsSent(user.id)).toBe(5);
    expect(await meterByPeriod(user.id, "emails")).toEqual({
      [lastMonth.toISOString()]: 3,
      [monthStart(now).toISOString()]: 2,
    });
  });
});
