import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  billingPeriod,
  loadBillingWorkspace,
  reserveUsage,
} from "../../src/server/features/billing/billing.service";
import { beginScheduledCampaign } from "../../src/server/features/campaigns/campaigns.queries";
import {
  type AuthedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";

// A scheduled campaign could not be rescheduled (scheduling was launch-only): tRPC
// campaigns.reschedule moves a still-scheduled campaign's time, its plan units to the new time's
// billing period (under that period's limit), and a fan-out that read the old time cannot start it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const DAY = 24 * 3600_000;

async function launchScheduled(client: AuthedClient, at: Date, n = 2) {
  const res = await client.post("/api/campaigns/email/launch", {
    campaignName: `Later ${Math.random()}`,
    subject: "Hello",
    body: "Hi there",
    contacts: Array.from({ length: n }, () => ({ name: "R", email: uniqueEmail("resched") })),
    scheduledAt: at.toISOString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaignId as number;
}

async function campaignRow(id: number) {
  const [row] = await t.db.execute<{ status: string; scheduled_at: Date; meter_period_start: Date | null }>(
    sql`select status, scheduled_at, meter_period_start from campaigns where id = ${id}`,
  );
  return {
    status: row!.status,
    scheduledAt: new Date(row!.scheduled_at).toISOString(),
    period: row!.meter_period_start ? new Date(row!.meter_period_start).toISOString() : null,
  };
}

async function emailsUsed(workspaceId: string) {
  const rows = await t.db.execute<{ period_start: Date; used: number }>(
    sql`select period_start, used from usage_meters where workspace_id = ${workspaceId} and meter = 'emails'`,
  );
  return Object.fromEntries(rows.map((r) => [new Date(r.period_start).toISOString(), r.used]));
}

describe("campaigns.reschedule", () => {
  it("moves a scheduled campaign's time; a fan-out that read the old time no longer starts it", async () => {
    const { client } = await signUp(t.app);
    const id = await launchScheduled(client, new Date(Date.now() + 2 * DAY));
    const later = new Date(Date.now() + 3 * DAY);
    later.setMilliseconds(0);
    const res = await trpc(client, "campaigns.reschedule", { id, scheduledAt: later.toISOString() });
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data.status).toBe("scheduled");
    expect(await campaignRow(id)).toMatchObject({ status: "scheduled", scheduledAt: later.toISOString() });
    // the launch's fan-out job read the old time and got to its compare-and-set after the move:
    // it does not start the campaign (the new time's job does)
    expect(await beginScheduledCampaign(t.db, id)).toBe(false);
    expect((await campaignRow(id)).status).toBe("scheduled");
  });

  it("refuses a time not ahead, over a year ahead, another workspace's campaign and one that started", async () => {
    const { client } = await signUp(t.app);
    const id = await launchScheduled(client, new Date(Date.now() + DAY));
    const before = await campaignRow(id);
    const past = await trpc(client, "campaigns.reschedule", {
      id,
      scheduledAt: new Date(Date.now() - 3600_000).toISOString(),
    });
    expect(past.status).toBe(400);
    expect(past.error?.message).toBe(
      "Please pick a time in the future, at least a minute from now, to reschedule the campaign to.",
    );
    const far = await trpc(client, "campaigns.reschedule", {
      id,
      scheduledAt: new Date(Date.now() + 400 * DAY).toISOString(),
    });
    expect(far.status).toBe(400);
    expect(far.error?.message).toMatch(/at most 365 days from now/);
    const other = await signUp(t.app);
    const foreign = await trpc(other.client, "campaigns.reschedule", {
      id,
      scheduledAt: new Date(Date.now() + 2 * DAY).toISOString(),
    });
    expect(foreign.status).toBe(404);
    expect(await campaignRow(id)).toEqual(before);

    const now = await client.post("/api/campaigns/email/launch", {
      campaignName: "Now",
      subject: "Hello",
      body: "Hi there",
      contacts: [{ name: "N", email: uniqueEmail("now") }],
    });
    const started = await trpc(client, "campaigns.reschedule", {
      id: now.json().campaignId,
      scheduledAt: new Date(Date.now() + DAY).toISOString(),
    });
    expect(started.status).toBe(409);
    expect(started.error?.message).toMatch(/^A (sending|completed) campaign cannot be rescheduled$/);
    const cancelled = await trpc(client, "campaigns.cancel", { id });
    expect(cancelled.status).toBe(200);
    const again = await trpc(client, "campaigns.reschedule", {
      id,
      scheduledAt: new Date(Date.now() + 2 * DAY).toISOString(),
    });
    expect(again.status).toBe(409);
    expect(again.error?.message).toBe("A cancelled campaign cannot be rescheduled");
  });

  it("moves the plan's units to the new time's billing period, refused by the plan (nothing moved) when they do not fit", async () => {
    const { client, user } = await signUp(t.app);
    const ws = await loadBillingWorkspace(t.ctx, user.id);
    const current = billingPeriod(ws);
    // a time in the current period at least 10 minutes ahead, else this month has no room to test in
    const inCurrent = new Date(Math.min(Date.now() + 3600_000, current.end.getTime() - 5 * 60_000));
    if (inCurrent.getTime() < Date.now() + 10 * 60_000) return;
    const next = billingPeriod(ws, new Date(current.end.getTime() + DAY));
    const cur = current.start.toISOString();
    const nxt = next.start.toISOString();
    // Free: 100 emails a month; 95 used this period
    await reserveUsage(t.ctx, user.id, "emails", 95);
    const id = await launchScheduled(client, new Date(next.start.getTime() + DAY), 10);
    expect(await emailsUsed(user.id)).toEqual({ [cur]: 95, [nxt]: 10 });
    expect((await campaignRow(id)).period).toBe(nxt);
    const before = await campaignRow(id);

    const over = await trpc(client, "campaigns.reschedule", { id, scheduledAt: inCurrent.toISOString() });
    // tRPC answers a plan refusal as FORBIDDEN with its planRefusal (trpc/init errorFormatter)
    expect(over.status).toBe(403);
    expect(over.error?.message).toMatch(/100 emails a month; this needs 10 and 5 are left/);
    expect(await campaignRow(id)).toEqual(before);
    expect(await emailsUsed(user.id)).toEqual({ [cur]: 95, [nxt]: 10 });

    // within the same period: nothing moves
    const sameMonth = new Date(next.start.getTime() + 2 * DAY);
    const moved = await trpc(client, "campaigns.reschedule", { id, scheduledAt: sameMonth.toISOString() });
    expect(moved.status, JSON.stringify(moved.error)).toBe(200);
    expect(await emailsUsed(user.id)).toEqual({ [cur]: 95, [nxt]: 10 });

    // on a plan with room, into this period: the 10 units move here
    await setPlan(t, user.id, "professional");
    const here = await trpc(client, "campaigns.reschedule", { id, scheduledAt: inCurrent.toISOString() });
    expect(here.status, JSON.stringify(here.error)).toBe(200);
    expect(await emailsUsed(user.id)).toEqual({ [cur]: 105, [nxt]: 0 });
    expect((await campaignRow(id)).period).toBe(cur);
  });
});

describe("campaigns.reschedule while the plan's subscription lapsed", () => {
  it("answers (the workspace falls back to Free in the reschedule's own transaction) instead of waiting forever on its own lock", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const id = await launchScheduled(client, new Date(Date.now() + 2 * DAY));
    // the subscription was cancelled and its period has ended: the next billing read writes the
    // fallback to Free (billing loadBillingWorkspace), an UPDATE of the workspaces row
    await t.db.execute(
      sql`update workspaces set subscription_status = 'canceled', current_period_end = now() - interval '1 day' where id = ${user.id}`,
    );
    const later = new Date(Date.now() + 3 * DAY);
    const res = await Promise.race([
      trpc(client, "campaigns.reschedule", { id, scheduledAt: later.toISOString() }),
      new Promise<"hung">((r) => setTimeout(() => r("hung"), 8000)),
    ]);
    expect(res).not.toBe("hung");
    const [ws] = await t.db.execute<{ plan: string }>(sql`select plan from workspaces where id = ${user.id}`);
    expect(ws!.plan).toBe("free");
  }, 20_000);
});
