/**
 * Campaigns benchmark (`npm run bench:campaigns`), issue 4:
 *  1. Baseline: raw pg-boss throughput of empty jobs (insert 10,000 + work them, 500 per fetch,
 *     4 fetch loops: pg-boss at its fastest, fixed whatever the engine's own worker options), jobs/s.
 *  2. A 10,000-recipient email campaign and a 10,000-recipient SMS campaign through the real engine
 *     (createAndLaunchCampaign -> 500-recipient pg-boss send jobs -> claim, render, local
 *     provider outbox write, state-machine update + activity in one transaction), messages/s from
 *     launch to the last `sent_at`, and the ratio to the baseline.
 *  3. The plan check a launch adds (issue 12), beside one database round trip measured in the same run;
 *     BENCH_ONLY_PLAN_CHECK=1 runs only this part.
 *  4. The crash test (scripts/crash-campaigns.ts) unless BENCH_SKIP_CRASH=1.
 * Database: BENCH_DATABASE_URL, else an embedded Postgres in ./.data/bench-campaigns-pg.
 * BENCH_RATE sets SEND_RATE_*_PER_SEC (default 1,000,000: measure the engine, not the throttle).
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { createDb, type DbOrTx } from "../src/server/db/client";
import { campaigns, type Workspace } from "../src/server/db/schema";
import {
  assertWorkspaceFeature,
  loadBillingWorkspace,
  planRuleOfChannel,
  releaseUsage,
  reserveUsage,
} from "../src/server/features/billing/billing.service";
import { createAndLaunchCampaign } from "../src/server/features/campaigns/campaigns.service";
import { PgBossJobClient } from "../src/server/jobs/client";
import type { JobDeps } from "../src/server/jobs/define";
import { jobRegistry } from "../src/server/jobs/registry";
import { startBoss, startWorkers } from "../src/server/jobs/worker";
import { createProviders } from "../src/server/providers";
import { benchDatabase, benchEnv, log, seedUserWithContacts, waitForCampaign } from "./campaigns-bench-lib";
import { runCrashTest } from "./crash-campaigns";

const N = Number(process.env.BENCH_RECIPIENTS ?? 10_000);
const RAW_BATCH_SIZE = 500;
const RAW_LOCAL_CONCURRENCY = 4;

async function rawPgBoss(url: string): Promise<number> {
  const { PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: url, max: 10 });
  boss.on("error", () => {});
  await boss.start();
  const q = `bench.noop-${Date.now()}`;
  await boss.createQueue(q);
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => {
    finished = r;
  });
  // pg-boss at its fastest for empty jobs (500 per fetch, 4 loops), independent of the engine's
  // own worker options, so the ratio is comparable across engine tunings
  await boss.work(
    q,
    { batchSize: RAW_BATCH_SIZE, localConcurrency: RAW_LOCAL_CONCURRENCY, pollingIntervalSeconds: 0.5 },
    async (jobs) => {
      done += jobs.length;
      if (done >= N) finished();
    },
  );
  const t0 = performance.now();
  for (let i = 0; i < N; i += 1000)
    await boss.insert(
      q,
      Array.from({ length: Math.min(1000, N - i) }, (_, k) => ({ data: { recipientId: i + k + 1 } })),
    );
  await all;
  const secs = (performance.now() - t0) / 1000;
  await boss.deleteQueue(q).catch(() => {});
  await boss.stop({ graceful: false });
  return N / secs;
}

/** p50 / p95 / max of a sorted list of milliseconds, as text. */
function pct(times: number[]): { p50: number; p95: number; text: string } {
  const t = [...times].sort((a, b) => a - b);
  const at = (p: number) => t[Math.min(t.length - 1, Math.floor(p * t.length))];
  return {
    p50: at(0.5),
    p95: at(0.95),
    text: `p50 ${at(0.5).toFixed(3)} ms, p95 ${at(0.95).toFixed(3)} ms, max ${t[t.length - 1].toFixed(3)} ms`,
  };
}

/** Thrown inside a benchmark transaction to roll it back (the measured writes never persist). */
class Rollback extends Error {}

/**
 * The plan check a launch adds (issue 12: <= 1 ms p95 on a 10,000-recipient launch), measured as the
 * launch runs it: createAndLaunchCampaign reserves the launch's 10,000 SMS messages (a limited meter
 * on Enterprise) in its own transaction, pipelined with the campaign row's insert. Each round opens
 * that transaction twice, interleaved so load changes hit both alike, and rolls it back:
 *   without the check: begin; insert the campaign row; rollback
 *   with the check:    begin; (reserve 10,000 in the meter + insert the campaign row, one pipeline); rollback
 * The check's cost is the difference of the two (p50 and p95). One round trip (`select 1`) is the
 * floor beside it. Then the same with PLAN_CHECK_CONCURRENCY workspaces launching at once (each
 * transaction timed alone), and, for reference, the check on its own as single sends from a contact
 * page run it (its own committed statement). Its cost does not grow with the recipient count (one meter
 * row per workspace, meter and period). Returns the report lines.
 */
async function benchPlanCheck(url: string, deps: JobDeps): Promise<string[]> {
  const rounds = Number(process.env.PLAN_CHECK_ROUNDS ?? 1000);
  const conc = Number(process.env.PLAN_CHECK_CONCURRENCY ?? 10);
  const warm = 50;
  const rule = planRuleOfChannel("sms");
  const seeded: { workspaceId: string }[] = [];
  // one after another: the seed names its user by the clock
  for (let i = 0; i < conc; i++) {
    seeded.push(await seedUserWithContacts(url, 1));
    await new Promise((r) => setTimeout(r, 2));
  }
  const rows = await Promise.all(seeded.map((w) => loadBillingWorkspace(deps, w.workspaceId)));
  const campaignRow = (ws: Workspace) => ({
    workspaceId: ws.id,
    name: "Bench plan check",
    channel: "sms" as const,
    status: "sending" as const,
    content: { message: "Hi {{first_name|there}}" },
    source: "contacts" as const,
    startedAt: new Date(),
    recipientCount: N,
    segmentsPerMessage: 1,
  });
  /** The campaign row's insert the launch makes first (campaigns.queries' insertCampaign, the same statement). */
  const insertCampaign = (tx: DbOrTx, ws: Workspace) =>
    tx.insert(campaigns).values(campaignRow(ws)).returning();
  /** One launch transaction's start, with or without the check, rolled back; its milliseconds. */
  const launchStart = async (ws: Workspace, withCheck: boolean) => {
    const t0 = performance.now();
    let ms = 0;
    await deps.db
      .transaction(async (tx) => {
        if (withCheck) {
          if (rule.feature) await assertWorkspaceFeature(deps, ws, rule.feature);
          const [r, c] = await Promise.allSettled([
            reserveUsage(deps, ws, rule.meter, N, { tx }),
            insertCampaign(tx, ws),
          ]);
          if (r.status === "rejected") throw r.reason;
          if (c.status === "rejected") throw c.reason;
        } else await insertCampaign(tx, ws);
        ms = performance.now() - t0;
        throw new Rollback();
      })
      .catch((e) => {
        if (!(e instanceof Rollback)) throw e;
      });
    return ms;
  };
  const standalone = async (ws: Workspace) => {
    const t0 = performance.now();
    const r = await reserveUsage(deps, ws, rule.meter, N);
    const ms = performance.now() - t0;
    await releaseUsage(deps, r);
    return ms;
  };
  const roundTrip = async () => {
    const t0 = performance.now();
    await deps.sql`select 1`;
    return performance.now() - t0;
  };
  const floor: number[] = [];
  const without: number[] = [];
  const withCheck: number[] = [];
  const alone: number[] = [];
  for (let i = 0; i < rounds + warm; i++) {
    const a = await roundTrip();
    const b = await launchStart(rows[0], false);
    const c = await launchStart(rows[0], true);
    const d = await standalone(rows[0]);
    if (i >= warm) {
      floor.push(a);
      without.push(b);
      withCheck.push(c);
      alone.push(d);
    }
  }
  const concWithout: number[] = [];
  const concWith: number[] = [];
  for (let i = 0; i < Math.ceil(rounds / conc) + 5; i++) {
    const a = await Promise.all(rows.map((ws) => launchStart(ws, false)));
    const b = await Promise.all(rows.map((ws) => launchStart(ws, true)));
    if (i >= 5) {
      concWithout.push(...a);
      concWith.push(...b);
    }
  }
  const f = pct(floor);
  const wo = pct(without);
  const w = pct(withCheck);
  const al = pct(alone);
  const cwo = pct(concWithout);
  const cw = pct(concWith);
  const added = w.p95 - wo.p95;
  const addedConc = cw.p95 - cwo.p95;
  return [
    `plan check of a ${N}-recipient SMS launch (feature gate + atomic meter reservation in the launch's transaction), ${rounds} rounds:`,
    `  one round trip (select 1, the floor):                  ${f.text}`,
    `  launch transaction start without the check:           ${wo.text}`,
    `  launch transaction start with the check (pipelined):  ${w.text}`,
    `  -> the check adds p50 ${(w.p50 - wo.p50).toFixed(3)} ms, p95 ${added.toFixed(3)} ms (${(w.p95 / wo.p95).toFixed(2)}x the start without it)`,
    `  ${conc} workspaces launching at once, each timed: without ${cwo.text}; with ${cw.text} -> adds p95 ${addedConc.toFixed(3)} ms`,
    `  for reference, the check on its own as a single send runs it (own commit): ${al.text} (${(al.p95 / f.p95).toFixed(2)}x the round trip)`,
    `  target (issue 12): the check adds <= 1 ms p95 to a launch -> ${added <= 1 ? "met" : "NOT met"} one at a time (${added.toFixed(3)} ms), ${addedConc <= 1 ? "met" : "not met"} with ${conc} at once (${addedConc.toFixed(3)} ms)`,
  ];
}

async function main() {
  const { url, embedded } = await benchDatabase();
  console.log(`database: ${url.replace(/:[^:@/]*@/, ":***@")}; recipients per campaign: ${N}`);
  const baseline = await rawPgBoss(url);
  console.log(
    `raw pg-boss (insert + work empty jobs, batchSize ${RAW_BATCH_SIZE}, localConcurrency ${RAW_LOCAL_CONCURRENCY}): ${baseline.toFixed(0)} jobs/s`,
  );

  const env = benchEnv(url);
  const { db, sql } = createDb(url, { max: 20 });
  const boss = await startBoss(url, jobRegistry, { max: 20 });
  const jobs = new PgBossJobClient(boss);
  const providers = createProviders(env, { db });
  const deps: JobDeps = { db, sql, env, providers, jobs, log };
  await startWorkers(boss, jobRegistry, deps, env.WORKER_CONCURRENCY, env.WORKER_POLL_SECONDS);

  if (process.env.BENCH_ONLY_PLAN_CHECK === "1") {
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    for (const line of await benchPlanCheck(url, deps)) console.log(line);
    await boss.stop({ graceful: false }).catch(() => {});
    await sql.end({ timeout: 5 });
    await embedded?.stop();
    return;
  }
  const results: string[] = [];
  for (const channel of ["email", "sms"] as const) {
    const { workspaceId, contactIds } = await seedUserWithContacts(url, N);
    const t0 = Date.now();
    const launched = await createAndLaunchCampaign(deps, workspaceId, {
      name: `Bench ${channel}`,
      channel,
      content:
        channel === "email"
          ? {
              subject: "Hello {{name|there}}",
              body: "Hi {{name|there}} at {{company|your company}}.\n\nSee https://example.com/offer",
            }
          : { message: "Hi {{name|there}}, 20% off at {{company|your company}} https://example.com/o" },
      recipients: { contactIds },
    });
    const launchMs = Date.now() - t0;
    const counts = await waitForCampaign(sql, launched.campaign.id);
    const [{ last }] = await sql<
      { last: Date }[]
    >`select max(sent_at) as last from campaign_recipients where campaign_id = ${launched.campaign.id}`;
    const secs = (new Date(last).getTime() - t0) / 1000;
    const rate = (counts.sent ?? 0) / secs;
    const line = `${channel}: ${counts.sent ?? 0} sent (${JSON.stringify(counts)}) in ${secs.toFixed(2)} s from launch (launch call ${launchMs} ms) = ${rate.toFixed(0)} messages/s; ratio to raw pg-boss ${(rate / baseline).toFixed(2)}`;
    console.log(line);
    results.push(line);
  }
  for (const line of await benchPlanCheck(url, deps)) console.log(line);
  await boss.stop({ graceful: true, timeout: 5000 }).catch(() => {});
  await sql.end({ timeout: 5 });
  if (process.env.BENCH_SKIP_CRASH !== "1") await runCrashTest(url);
  await embedded?.stop();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
