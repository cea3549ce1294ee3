/**
 * Crash test (`npx tsx scripts/crash-campaigns.ts`, also run by `npm run bench:campaigns`): a
 * 10,000-recipient SMS campaign is launched; a separate worker process is killed with SIGKILL at a
 * random point 10 times (each time 0.3-2.5 s after it reports ready) and restarted; then it runs to
 * completion. Reports duplicates (outbox messages sharing an idempotency key: a recipient who got
 * the message twice) and lost recipients (not sent, or sent without an outbox message). Both must be 0.
 * The worker sends at CRASH_RATE messages/s (default 400) so that all the kills land mid-campaign (the engine
 * sends far faster unthrottled; at 1500/s the campaign finished after 3-4 of the 10 kills).
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import type { PgBoss } from "pg-boss";
import { createDb } from "../src/server/db/client";
import { createAndLaunchCampaign } from "../src/server/features/campaigns/campaigns.service";
import { PgBossJobClient } from "../src/server/jobs/client";
import type { JobDeps } from "../src/server/jobs/define";
import { jobRegistry } from "../src/server/jobs/registry";
import { startBoss } from "../src/server/jobs/worker";
import { createProviders } from "../src/server/providers";
import { benchDatabase, benchEnv, log, seedUserWithContacts, waitForCampaign } from "./campaigns-bench-lib";

const N = Number(process.env.CRASH_RECIPIENTS ?? 10_000);
const KILLS = Number(process.env.CRASH_KILLS ?? 10);

function startWorker(url: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.resolve(import.meta.dirname, "crash-campaigns-worker.ts")],
      {
        env: { ...process.env, CRASH_DATABASE_URL: url, BENCH_RATE: process.env.CRASH_RATE ?? "400" },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve(child);
    });
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL" && code !== 0) reject(new Error(`worker exited with ${code}`));
    });
  });
}

/** Runs the crash test against `url`; prints and returns {duplicates, lost}. */
export async function runCrashTest(url: string) {
  const env = benchEnv(url);
  const { db, sql } = createDb(url, { max: 4 });
  const boss: PgBoss = await startBoss(url, jobRegistry, { max: 4 }); // enqueue only: this process never works jobs
  const deps: JobDeps = {
    db,
    sql,
    env,
    providers: createProviders(env, { db }),
    jobs: new PgBossJobClient(boss),
    log,
  };
  const { workspaceId, contactIds } = await seedUserWithContacts(url, N);
  const launched = await createAndLaunchCampaign(deps, workspaceId, {
    name: "Crash test",
    channel: "sms",
    content: { message: "Hi {{name|there}}" },
    recipients: { contactIds },
  });
  const id = launched.campaign.id;
  const progress = async () =>
    (
      await sql<
        { n: number }[]
      >`select count(*)::int as n from campaign_recipients where campaign_id = ${id} and status = 'sent'`
    )[0].n;
  for (let k = 1; k <= KILLS; k++) {
    const child = await startWorker(url);
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 2200));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    console.log(`kill ${k}/${KILLS}: ${await progress()} of ${N} sent so far`);
  }
  const last = await startWorker(url);
  const t0 = Date.now();
  const counts = await waitForCampaign(sql, id, 600_000, true);
  last.kill("SIGKILL");
  const [{ duplicates }] = await sql<{ duplicates: number }[]>`
    select coalesce(sum(n - 1), 0)::int as duplicates from (
      select o.metadata->>'idempotencyKey' as k, count(*) as n from outbox_messages o
      where o.workspace_id = ${workspaceId} group by 1 having count(*) > 1) d`;
  const [{ lost }] = await sql<{ lost: number }[]>`
    select count(*)::int as lost from campaign_recipients r
    where r.campaign_id = ${id} and (r.status <> 'sent' or not exists (
      select 1 from outbox_messages o where o.workspace_id = ${workspaceId} and o.metadata->>'idempotencyKey' = 'cr-' || r.id))`;
  const [{ outbox }] = await sql<
    { outbox: number }[]
  >`select count(*)::int as outbox from outbox_messages where workspace_id = ${workspaceId}`;
  console.log(
    `crash test: ${N} recipients, ${KILLS} kill -9, finished ${((Date.now() - t0) / 1000).toFixed(1)} s after the last restart; statuses ${JSON.stringify(counts)}; outbox messages ${outbox}; duplicates ${duplicates}; lost ${lost}`,
  );
  await boss.stop({ graceful: false }).catch(() => {});
  await sql.end({ timeout: 5 });
  return { duplicates, lost };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url, embedded } = await benchDatabase();
  const r = await runCrashTest(url);
  await embedded?.stop();
  process.exit(r.duplicates === 0 && r.lost === 0 ? 0 : 1);
}
