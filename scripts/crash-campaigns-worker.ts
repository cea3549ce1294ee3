/**
 * A campaigns worker process for the crash test: pg-boss workers for every job, local providers,
 * short lease and watchdog. Re-arms the watchdog of sending campaigns at boot (what a restarted
 * worker does), prints "ready", then works until killed.
 */
import { createDb } from "../src/server/db/client";
import { recoverCampaigns } from "../src/server/features/campaigns/campaigns.engine";
import { PgBossJobClient } from "../src/server/jobs/client";
import type { JobDeps } from "../src/server/jobs/define";
import { jobRegistry } from "../src/server/jobs/registry";
import { startBoss, startWorkers } from "../src/server/jobs/worker";
import { createProviders } from "../src/server/providers";
import { benchEnv, log } from "./campaigns-bench-lib";

const url = process.env.CRASH_DATABASE_URL!;
const env = benchEnv(url, { CAMPAIGN_SEND_LEASE_SECONDS: "3", CAMPAIGN_WATCHDOG_SECONDS: "1" });
const { db, sql } = createDb(url, { max: 10 });
const boss = await startBoss(url, jobRegistry, { max: 10 });
const jobs = new PgBossJobClient(boss);
const deps: JobDeps = { db, sql, env, providers: createProviders(env, { db }), jobs, log };
await startWorkers(boss, jobRegistry, deps, env.WORKER_CONCURRENCY, env.WORKER_POLL_SECONDS);
await recoverCampaigns(deps);
process.stdout.write("ready\n");
