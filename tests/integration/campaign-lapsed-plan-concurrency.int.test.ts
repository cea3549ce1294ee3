import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb } from "../../src/server/db/client";
import { resendFailed } from "../../src/server/features/campaigns/campaigns.service";
import {
  type AuthedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";

// Right after a workspace's paid subscription lapsed, the first billing reads write its fallback to
// Free (billing loadBillingWorkspace, an UPDATE of the workspaces row). Two concurrent reschedules or
// "resend to failed" requests both held the row FOR SHARE (assertWorkspaceNotBeingDeleted) and both
// tried that UPDATE in their transaction: Postgres aborted one as a deadlock, a 500. Two concurrent
// launches with CSV rows: one held the row's UPDATE lock and waited for the contact-creation lock the
// other held while it waited for the row. And a resend counted its unsent messages on a second
// pooled connection inside its transaction, so resends could take the whole pool and wait forever.

let t: TestApp;
let one: ReturnType<typeof createDb>;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  // a pool of one connection: a request needing a second one while it holds the first never ends
  one = createDb(inject("databaseUrl"), { max: 1 });
});
afterAll(async () => {
  await one?.sql.end({ timeout: 5 });
  await t?.close();
});

const DAY = 24 * 3600_000;
const ROUNDS = 4;

/** The subscription was cancelled and its period ended: the next billing read falls back to Free. */
async function lapse(workspaceId: string) {
  await setPlan(t, workspaceId, "professional");
  await t.db.execute(
    sql`update workspaces set subscription_status = 'canceled', current_period_end = now() - interval '1 day' where id = ${workspaceId}`,
  );
}

/** Every answer is a 2xx, or a 4xx with a sentence; none is a 500. */
function expectAnswered(answers: { status: number; message?: string }[]) {
  for (const a of answers) {
    expect(a.status, JSON.stringify(a)).toBeLessThan(500);
    if (a.status >= 400) expect(a.message ?? "", JSON.stringify(a)).toMatch(/\w+ \w+/);
  }
}

/** The email meter's units (all periods) and the recipients that hold units: queued, sending or sent. */
async function meterAndHolders(workspaceId: string) {
  const [m] = await t.db.execute<{ used: number }>(
    sql`select coalesce(sum(used), 0)::int as used from usage_meters where workspace_id = ${workspaceId} and meter = 'emails'`,
  );
  const [r] = await t.db.execute<{ n: number }>(
    sql`select count(*)::int as n from campaign_recipients r join campaigns c on c.id = r.campaign_id
        where c.workspace_id = ${workspaceId} and r.status not in ('failed', 'skipped', 'cancelled')`,
  );
  return { used: m!.used, holders: r!.n };
}

async function launch(client: AuthedClient, n: number, scheduledAt?: Date) {
  return client.post("/api/campaigns/email/launch", {
    campaignName: `Lapsed ${Math.random()}`,
    subject: "Hello",
    body: "Hi there",
    contacts: Array.from({ length: n }, () => ({ name: "R", email: uniqueEmail("lapsedc") })),
    ...(scheduledAt ? { scheduledAt: scheduledAt.toISOString() } : {}),
  });
}

/** Marks a campaign's recipients failed and gives their units back, as a failed send does. */
async function failAll(workspaceId: string, campaignId: number) {
  const rows = await t.db.execute<{ id: number }>(
    sql`update campaign_recipients set status = 'failed', reason = 'soft bounce (test)'
        where campaign_id = ${campaignId} and status <> 'failed' returning id`,
  );
  await t.db.execute(
    sql`update usage_meters set used = used - ${rows.length}
        where workspace_id = ${workspaceId} and meter = 'emails'
          and period_start = (select meter_period_start from campaigns where id = ${campaignId})`,
  );
}

describe("a lapsed subscription's fallback to Free under concurrent requests", () => {
  it("two concurrent reschedules each answer (no deadlock 500), rounds after a fresh lapse; the meter holds the unsent units", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await launch(client, 2, new Date(Date.now() + 2 * DAY));
      expect(res.statusCode, res.body).toBe(200);
      ids.push(res.json().campaignId as number);
    }
    for (let round = 0; round < ROUNDS; round++) {
      await lapse(user.id);
      const at = new Date(Date.now() + (3 + round) * DAY).toISOString();
      const answers = await Promise.all(
        [...ids, ...ids].map((id) => trpc(client, "campaigns.reschedule", { id, scheduledAt: at })),
      );
      expectAnswered(answers.map((a) => ({ status: a.status, message: a.error?.message })));
      const [ws] = await t.db.execute<{ plan: string }>(
        sql`select plan from workspaces where id = ${user.id}`,
      );
      expect(ws!.plan).toBe("free");
      const m = await meterAndHolders(user.id);
      expect(m.used).toBe(m.holders);
    }
  }, 60_000);

  it("two concurrent resends to failed each answer (one requeues, the other finds none), rounds after a fresh lapse; the meter is right", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    // two campaigns (one resend holds its campaign's row first: two of one campaign queue one behind
    // the other), each resent twice at once
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await launch(client, 3);
      expect(res.statusCode, res.body).toBe(200);
      ids.push(res.json().campaignId as number);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const id of ids) await failAll(user.id, id);
      await lapse(user.id);
      const answers = await Promise.all(
        [...ids, ...ids].map((id) => trpc(client, "campaigns.resendFailed", { id })),
      );
      expectAnswered(answers.map((a) => ({ status: a.status, message: a.error?.message })));
      // one requeue per campaign; the other request finds no failed recipient (409 with a sentence)
      expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
      const m = await meterAndHolders(user.id);
      expect(m.used).toBe(m.holders);
      expect(m.holders).toBe(6);
    }
  }, 60_000);

  it("concurrent launches with CSV rows each answer (no deadlock 500), rounds after a fresh lapse; the meter counts what they queued", async () => {
    const { client, user } = await signUp(t.app);
    // rows of contacts already there, one with only a phone: that launch takes the contact-creation
    // lock without a plan read (nothing is added), while a launch of new rows reads the plan (and on
    // the old code wrote the fallback to Free, holding the workspace row) before taking that lock
    const known = uniqueEmail("known");
    const phoneOnly = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
    const generic = (csv: Record<string, string>[]) =>
      client.post("/api/campaigns", {
        name: `Lapsed rows ${Math.random()}`,
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        recipients: { csv },
      });
    const first = await generic([{ email: known }, { phone: phoneOnly }]);
    expect(first.statusCode, first.body).toBe(200);
    for (let round = 0; round < ROUNDS; round++) {
      await lapse(user.id);
      const answers = await Promise.all([
        generic([{ email: known }, { phone: phoneOnly }]),
        launch(client, 2),
        generic([{ email: uniqueEmail("lapsedn") }, { email: known }]),
        generic([{ email: known }, { phone: phoneOnly }]),
      ]);
      expectAnswered(
        answers.map((a) => ({ status: a.statusCode, message: a.statusCode >= 400 ? a.body : undefined })),
      );
      const m = await meterAndHolders(user.id);
      expect(m.used).toBe(m.holders);
    }
  }, 60_000);
});

describe("resend to failed on a pool of one connection", () => {
  it("completes: the unsent messages are counted in its own transaction, not on a second connection", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const res = await launch(client, 2);
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaignId as number;
    await failAll(user.id, id);
    const answered = await Promise.race([
      resendFailed({ ...t.ctx, db: one.db, sql: one.sql }, user.id, id),
      new Promise<"hung">((r) => setTimeout(() => r("hung"), 8000)),
    ]);
    expect(answered).toEqual({ requeued: 2 });
    const m = await meterAndHolders(user.id);
    expect(m.used).toBe(m.holders);
  }, 20_000);
});
