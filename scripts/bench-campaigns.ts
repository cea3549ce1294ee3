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
import { createDb } from "../src/server/db/client";
import type { Workspace } from "../src/server/db/schema";
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

/**
 * The plan check a launch adds (issue 12: <= 1 ms p95 on a 10,000-recipient launch). What
 * createAndLaunchCampaign runs for a 10,000-recipient SMS launch on Enterprise (SMS is a limited meter
 * there): the channel's feature gate plus the atomic reservation of 10,000 messages in the period's
 * meter, given the workspace row the request's tenant already loaded (what the REST, tRPC and v1
 * launch calls pass). Each reservation is given back untimed so the next fits. Its cost does not grow
 * with the recipient count (one meter row per workspace, meter and period).
 * Measured in the same run, on the same pool: the floor of one round trip (`select 1`) and the check
 * by workspace id (one more read of the workspace, what a caller without the row pays). Then the same
 * under concurrency: PLAN_CHECK_CONCURRENCY workspaces checking at once, each check timed alone.
 * Returns the report lines; the ratio is the check's p95 over the round trip's p95.
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
  const check = async (ws: string | Workspace) => {
    const t0 = performance.now();
    if (rule.feature) await assertWorkspaceFeature(deps, ws, rule.feature);
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
  // interleaved so load changes hit all three alike
  const floor: number[] = [];
  const withRow: number[] = [];
  const byId: number[] = [];
  for (let i = 0; i < rounds + warm; i++) {
    const a = await roundTrip();
    const b = await check(rows[0]);
    const c = await check(rows[0].id);
    if (i >= warm) {
      floor.push(a);
      withRow.push(b);
      byId.push(c);
    }
  }
  const concFloor: number[] = [];
  const concRow: number[] = [];
  for (let i = 0; i < Math.ceil(rounds / conc) + 5; i++) {
    const a = await Promise.all(rows.map(() => roundTrip()));
    const b = await Promise.all(rows.map((ws) => check(ws)));
    if (i >= 5) {
      concFloor.push(...a);
      concRow.push(...b);
    }
  }
  const f = pct(floor);
  const r = pct(withRow);
  const d = pct(byId);
  const cf = pct(concFloor);
  const cr = pct(concRow);
  return [
    `plan check of a ${N}-recipient SMS launch (feature gate + atomic meter reservation), ${rounds} rounds, one at a time:`,
    `  one round trip (select 1, the floor):            ${f.text}`,
    `  plan check with the tenant's workspace row:      ${r.text}  -> p95 ${(r.p95 / f.p95).toFixed(2)}x the round trip`,
    `  plan check by workspace id (reads the row too):  ${d.text}  -> p95 ${(d.p95 / f.p95).toFixed(2)}x`,
    `  ${conc} workspaces at once, each timed: round trip ${cf.text}; plan check ${cr.text} -> p95 ${(cr.p95 / cf.p95).toFixed(2)}x`,
    `  target (issue 12): the check adds <= 1 ms p95 -> ${r.p95 <= 1 ? "met" : "NOT met"} one at a time (${r.p95.toFixed(3)} ms), ${cr.p95 <= 1 ? "met" : "not met"} with ${conc} at once (${cr.p95.toFixed(3)} ms)`,
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
  await startWorkers(boss, jobRegistry, deps, env.WORKER_CONCURRENCY);

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
