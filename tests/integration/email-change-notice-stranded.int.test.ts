import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authTokens, users } from "../../src/server/db/schema";
import {
  sendEmailChangedNoticeJob,
  sendStrandedEmailChangeNoticesJob,
} from "../../src/server/features/auth/auth.jobs";
import { followEmailChange, recordEmailChange } from "../../src/server/features/auth/auth.service";
import { type JobClient, PgBossJobClient } from "../../src/server/jobs/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { handlerOf } from "../../src/server/jobs/registry";
import { startBoss } from "../../src/server/jobs/worker";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// Issue 11: an email change must always warn the old address (the owner who did not make it learns
// of it there, with a recovery link). The recovery row commits in the change's own transaction, the
// notice is queued after the commit, and a process that stops in between leaves the notice to the
// sweep (auth.send-stranded-email-change-notices, every 5 minutes), which queues it once.

let t: TestApp;
/** While set, queueing an email-changed notice fails as a process stopping after the commit would. */
let queueDown = false;
beforeAll(async () => {
  t = await createTestApp();
  const send = t.jobs.send.bind(t.jobs);
  t.jobs.send = (async (job, data, options) => {
    if (queueDown && job.name === sendEmailChangedNoticeJob.name) throw new Error("connection terminated");
    return send(job, data, options);
  }) as typeof t.jobs.send;
});
afterAll(async () => t?.close());

/** The email-changed notices sent to `to` (local outbox), newest first. */
async function notices(to: string): Promise<{ body: string }[]> {
  const res = await t.app.inject({
    method: "GET",
    url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
  });
  return (res.json().messages as { subject: string; body: string }[]).filter(
    (m) => m.subject === "Your Pitchwise email was changed",
  );
}

const recoveryRows = (userId: string) =>
  t.db
    .select()
    .from(authTokens)
    .where(and(eq(authTokens.userId, userId), eq(authTokens.purpose, "email_recovery")));

const sweep = (jobs: JobClient = t.jobs) =>
  handlerOf(sendStrandedEmailChangeNoticesJob).handler(
    {},
    { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs, log: t.ctx.log } as JobDeps,
    { id: "sweep", retryCount: 0 },
  );

/** Makes the user's pending recovery rows look `minutes` old. */
const age = (userId: string, minutes: number) =>
  t.db.execute(
    sql`update auth_tokens set created_at = now() - make_interval(mins => ${minutes})
        where user_id = ${userId} and purpose = 'email_recovery' and id like 'pending-%'`,
  );

describe("the email-changed notice when queueing it fails after the change committed", () => {
  it("the change stands (200), and the sweep warns the old address 10 minutes later, once, with a working recovery link", async () => {
    const owner = await signUp(t.app, { name: "Noor Owner" });
    const newEmail = uniqueEmail("moved");
    queueDown = true;
    let res: Awaited<ReturnType<typeof owner.client.put>>;
    try {
      res = await owner.client.put("/api/user/profile", {
        name: "Noor Owner",
        email: newEmail,
        currentPassword: owner.password,
      });
    } finally {
      queueDown = false;
    }
    // the change is saved: the user sees it saved, not an error for a change that happened
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().user.email).toBe(newEmail);
    expect(await notices(owner.user.email)).toHaveLength(0);
    const [row] = await recoveryRows(owner.user.id);
    expect(row?.id).toMatch(/^pending-[0-9a-f]{40}$/);
    expect(row?.email).toBe(owner.user.email);

    // younger than 10 minutes: its job may still be on its way; nothing is queued
    await sweep();
    expect(await notices(owner.user.email)).toHaveLength(0);

    await age(owner.user.id, 11);
    await sweep();
    const sent = await notices(owner.user.email);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toContain("Your Pitchwise email was changed to m");
    const token = sent[0]!.body.match(/\/account\/recover-email\?token=([a-z2-7]+)/)?.[1];
    expect(token).toBeTruthy();
    const peek = await t.app.inject({ method: "GET", url: `/api/auth/recover-email?token=${token}` });
    expect(peek.json()).toEqual({ success: true, email: owner.user.email, available: true });

    // sent: the row holds the token's hash now, and later sweeps leave it alone
    await sweep();
    expect(await notices(owner.user.email)).toHaveLength(1);
    const rows = await recoveryRows(owner.user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the change and its recovery row are one transaction: when the row cannot be stored, the address does not change", async () => {
    const owner = await signUp(t.app, { name: "Ines Owner" });
    const other = await signUp(t.app, { name: "Ines Elsewhere" });
    // a row that cannot be stored for this address (a trigger refusing it, as a failed insert would)
    const blocked = owner.user.email.toLowerCase();
    const fn = `test_refuse_recovery_${owner.user.id.replaceAll("-", "")}`;
    await t.sql.unsafe(`create function ${fn}() returns trigger language plpgsql as $$
      begin
        if lower(new.email) = '${blocked}' and new.purpose = 'email_recovery' then
          raise exception 'recovery row refused';
        end if;
        return new;
      end $$`);
    await t.sql.unsafe(
      `create trigger ${fn} before insert on auth_tokens for each row execute function ${fn}()`,
    );
    try {
      const res = await owner.client.put("/api/user/profile", {
        name: "Ines Owner",
        email: uniqueEmail("never"),
        currentPassword: owner.password,
      });
      expect(res.statusCode).toBe(500);
    } finally {
      await t.sql.unsafe(`drop trigger ${fn} on auth_tokens`);
      await t.sql.unsafe(`drop function ${fn}()`);
    }
    // nothing of the change stayed: same address, still verified, the account's other sessions kept
    const [u] = await t.db.select().from(users).where(eq(users.id, owner.user.id));
    expect(u!.email).toBe(owner.user.email);
    expect(u!.emailVerifiedAt).not.toBeNull();
    expect((await owner.client.get("/api/auth/me")).statusCode).toBe(200);
    expect(await recoveryRows(owner.user.id)).toHaveLength(0);
    expect((await other.client.get("/api/auth/me")).statusCode).toBe(200);
  });

  it("a change moved back to that same address since has nothing to warn of: the sweep retires its row", async () => {
    const owner = await signUp(t.app, { name: "Ravi Owner" });
    queueDown = true;
    try {
      const res = await owner.client.put("/api/user/profile", {
        name: "Ravi Owner",
        email: uniqueEmail("brief"),
        currentPassword: owner.password,
      });
      expect(res.statusCode, res.body).toBe(200);
    } finally {
      queueDown = false;
    }
    // back on the first address (written directly: moving back by the profile would queue a notice
    // of its own to the brief address)
    await t.db.update(users).set({ email: owner.user.email }).where(eq(users.id, owner.user.id));
    await age(owner.user.id, 11);
    await sweep();
    expect(await notices(owner.user.email)).toHaveLength(0);
    const [row] = await recoveryRows(owner.user.id);
    expect(row?.usedAt).not.toBeNull();
  });

  it("with pg-boss, a notice whose job is waiting is not queued a second time by the sweep", async () => {
    const owner = await signUp(t.app, { name: "Kai Owner" });
    const boss = await startBoss(
      t.env.DATABASE_URL!,
      [handlerOf(sendEmailChangedNoticeJob), handlerOf(sendStrandedEmailChangeNoticesJob)],
      { max: 2 },
    );
    try {
      // no worker runs: the notice's job waits in the queue as in a backlog
      const jobs = new PgBossJobClient(boss);
      const [before] = await t.db.select().from(users).where(eq(users.id, owner.user.id));
      const [after] = await t.db
        .update(users)
        .set({ email: uniqueEmail("backlog") })
        .where(eq(users.id, owner.user.id))
        .returning();
      const linkId = await recordEmailChange(t.db, before!, after!);
      await followEmailChange({ ...t.ctx, jobs }, before!, after!, linkId);
      await age(owner.user.id, 11);
      await sweep(jobs);
      await sweep(jobs);
      const queued = await t.db.execute<{ n: number }>(
        sql`select count(*)::int as n from pgboss.job where name = ${sendEmailChangedNoticeJob.name} and data->>'linkId' = ${linkId}`,
      );
      expect(queued[0]!.n).toBe(1);
      // and the sweep is scheduled every 5 minutes
      const [sched] = await boss.getSchedules(sendStrandedEmailChangeNoticesJob.name);
      expect(sched).toMatchObject({ cron: "*/5 * * * *", timezone: "UTC" });
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });
});
