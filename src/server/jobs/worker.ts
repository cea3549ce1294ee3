import { type JobResult, PgBoss } from "pg-boss";
import { describeZodError } from "../lib/validate";
import {
  type AnyJobDefinition,
  type JobDeps,
  type JobOptions,
  PermanentJobError,
  RetryAfterError,
} from "./define";

/** Seconds: the longest wait between two attempts of a backoff queue whose contract sets no `retryDelayMax`. */
export const DEFAULT_RETRY_DELAY_MAX_S = 300;

/**
 * The retry and expiry options startBoss gives a job's queue, the contract's `options` with the
 * defaults filled in: retryLimit 2, retryDelay 1 s, retryBackoff true, retryDelayMax
 * DEFAULT_RETRY_DELAY_MAX_S (backoff queues only; pg-boss refuses it without backoff),
 * expireInSeconds 900. Under backoff pg-boss waits, after the attempt whose retry count is n (0 on the
 * first attempt), `min(retryDelayMax, retryDelay * 2^n * (1 + random))` seconds (pg-boss failJobs), so
 * a contract whose schedule should grow past 300 s must set `retryDelayMax` itself.
 */
export function queueRetryOptions(o: JobOptions) {
  const retryBackoff = o.retryBackoff ?? true;
  return {
    retryLimit: o.retryLimit ?? 2,
    retryDelay: o.retryDelay ?? 1,
    retryBackoff,
    ...(retryBackoff ? { retryDelayMax: o.retryDelayMax ?? DEFAULT_RETRY_DELAY_MAX_S } : {}),
    expireInSeconds: o.expireInSeconds ?? 900,
  };
}

/**
 * Creates pg-boss on `url` and creates every registered queue (with its retry options,
 * queueRetryOptions), then syncs
 * the periodic ones' schedules with their contract `cron` (syncSchedules: one read, writes only
 * for schedules that are new, changed or removed).
 * Starting is idempotent across processes: pg-boss installs its own schema under a lock.
 */
export async function startBoss(
  url: string,
  registry: AnyJobDefinition[],
  opts: {
    max?: number /** how often pg-boss fails jobs whose heartbeat lapsed (default 60 s) */;
    superviseIntervalSeconds?: number;
  } = {},
) {
  const boss = new PgBoss({
    connectionString: url,
    max: opts.max ?? 10,
    ...(opts.superviseIntervalSeconds ? { superviseIntervalSeconds: opts.superviseIntervalSeconds } : {}),
  });
  boss.on("error", () => {});
  await boss.start();
  for (const job of registry) {
    const o = job.options ?? {};
    const options = queueRetryOptions(o);
    await boss.createQueue(job.name, {
      ...options,
      ...(o.heartbeatSeconds ? { heartbeatSeconds: o.heartbeatSeconds } : {}),
      ...(o.policy ? { policy: o.policy } : {}),
    });
    // createQueue leaves an existing queue as it was: bring its options in line with the code
    await boss.updateQueue(job.name, { ...options, heartbeatSeconds: o.heartbeatSeconds ?? null });
  }
  await syncSchedules(boss, registry);
  return boss;
}

/** The time zone every contract `cron` is read in (pg-boss `schedule` option `tz`). */
const SCHEDULE_TZ = "UTC";

/**
 * Brings pg-boss's schedules in line with the registry's `cron` fields, reading the schedule table
 * once (pg-boss `getSchedules`) instead of writing a row per job at every boot:
 * - a job with a `cron` is scheduled (UTC, empty data, default key) when it has no schedule or its
 *   stored expression or time zone differs; an unchanged schedule is left as it is;
 * - a job without a `cron` that still has a schedule (its `cron` was removed) is unscheduled.
 * Only the default key ('') of registered job names is touched: schedules of names outside the
 * registry, or under another key, are left alone. Errors from pg-boss (e.g. an invalid cron
 * expression) propagate, so a bad contract fails the boot.
 * @returns the names scheduled and unscheduled by this call, in registry order.
 */
export async function syncSchedules(
  boss: PgBoss,
  registry: AnyJobDefinition[],
): Promise<{ scheduled: string[]; unscheduled: string[] }> {
  const current = new Map(
    (await boss.getSchedules()).filter((s) => (s.key ?? "") === "").map((s) => [s.name, s] as const),
  );
  const scheduled: string[] = [];
  const unscheduled: string[] = [];
  for (const job of registry) {
    const existing = current.get(job.name);
    if (job.cron) {
      if (existing?.cron === job.cron && existing.timezone === SCHEDULE_TZ) continue;
      await boss.schedule(job.name, job.cron, {}, { tz: SCHEDULE_TZ });
      scheduled.push(job.name);
    } else if (existing) {
      await boss.unschedule(job.name);
      unscheduled.push(job.name);
    }
  }
  return { scheduled, unscheduled };
}

/**
 * Fails the active attempt `attempt` of queue `name` (pg-boss fail, fenced on the attempt's retry
 * count, so an attempt whose claim lapsed is left alone) and, when the job goes to retry, moves the
 * retry's start to `error.notBefore` if that is later than the start pg-boss's backoff chose
 * (pg-boss update `startAfter`): the retry runs at the later of the two, never sooner than the
 * backoff. Returns the retry's start, or null when the job did not go to retry (its last attempt,
 * or not this attempt's to fail). A throw after the fail leaves the backoff's start.
 */
export async function failWithNotBefore(
  boss: PgBoss,
  name: string,
  attempt: { id: string; retryCount: number },
  error: RetryAfterError,
): Promise<Date | null> {
  await boss.fail(name, [attempt], error);
  const job = await boss.getJobById(name, attempt.id);
  if (job?.state !== "retry" || job.retryCount !== attempt.retryCount) return null;
  if (job.startAfter.getTime() >= error.notBefore.getTime()) return job.startAfter;
  const r = await boss.update(name, undefined, { id: attempt.id, startAfter: error.notBefore });
  return r.updated ? error.notBefore : job.startAfter;
}

/**
 * Registers a pg-boss worker per job definition: `localConcurrency` fetch loops (default
 * `concurrency`), each fetching up to `batchSize` jobs every `pollingIntervalSeconds` (default
 * `pollSeconds`) while its queue is empty, and at once again after a fetch that found work (pg-boss
 * fetches again as soon as a batch is done). Every idle loop costs one query per interval: with
 * every loop at 8 per queue and 0.5 s, an idle worker ran about 250 queries a second; the defaults
 * (env WORKER_CONCURRENCY 2, WORKER_POLL_SECONDS 2) make it about 35 (measured 34), and the queues a user waits on
 * (campaign sends and fan-out, webhook deliveries, CSV imports, geocoding) set 0.5 s in their contracts. Payloads are parsed with zod; a parse failure or a
 * PermanentJobError is logged and not retried (the job completes); a RetryAfterError fails the job
 * with its retry no sooner than its `notBefore` (failWithNotBefore).
 * - A `batchHandler` gets the whole fetch in one call; throwing fails (and retries) the whole fetch.
 * - Otherwise the jobs of one fetch run concurrently, each through `handler`, and each is settled on
 *   its own (pg-boss `perJobResults`): a job whose handler throws is failed and retried per its
 *   queue's options while the others of the fetch complete.
 */
export async function startWorkers(
  boss: PgBoss,
  registry: AnyJobDefinition[],
  deps: JobDeps,
  concurrency = 2,
  pollSeconds = 2,
) {
  for (const job of registry) {
    const o = job.options ?? {};
    const batchHandler = job.batchHandler;
    const parse = (j: { id: string; data: unknown }) => {
      const parsed = job.schema.safeParse(j.data);
      if (!parsed.success)
        deps.log.error(
          { job: job.name, id: j.id, reason: describeZodError(parsed.error) },
          "invalid job payload",
        );
      return parsed;
    };
    const retryCount = (j: object) => (j as { retryCount?: number }).retryCount ?? 0;
    /** One job through `handler`: its pg-boss result (never rejects). */
    const runOne = async (j: { id: string; data: unknown }): Promise<JobResult> => {
      const parsed = parse(j);
      // not retried: the same payload would fail the same way
      if (!parsed.success) return { id: j.id, status: "completed" };
      try {
        await job.handler(parsed.data, deps, { id: j.id, retryCount: retryCount(j) });
        return { id: j.id, status: "completed" };
      } catch (error) {
        if (error instanceof PermanentJobError) {
          deps.log.warn({ job: job.name, id: j.id, reason: error.message }, "job failed permanently");
          return { id: j.id, status: "completed" };
        }
        if (error instanceof RetryAfterError) {
          // failed here, with its retry moved to notBefore; pg-boss's own settle of the result
          // below is fenced on the attempt (active, same retry count) and leaves it as it is
          await failWithNotBefore(boss, job.name, { id: j.id, retryCount: retryCount(j) }, error).catch(
            (err) => deps.log.warn({ err, job: job.name, id: j.id }, "retry not deferred to Retry-After"),
          );
        }
        return { id: j.id, status: "failed", output: error };
      }
    };
    await boss.work(
      job.name,
      {
        batchSize: o.batchSize ?? 1,
        localConcurrency: o.localConcurrency ?? concurrency,
        pollingIntervalSeconds: o.pollingIntervalSeconds ?? pollSeconds,
        burstWhenBatchFull: (o.batchSize ?? 1) > 1,
        includeMetadata: true,
        perJobResults: !batchHandler,
      },
      async (jobs) => {
        if (!batchHandler) {
          const settled = await Promise.allSettled(jobs.map(runOne));
          return settled.map(
            (r, i): JobResult =>
              r.status === "fulfilled" ? r.value : { id: jobs[i]!.id, status: "failed", output: r.reason },
          );
        }
        const items: { data: unknown; meta: { id: string; retryCount: number } }[] = [];
        for (const j of jobs) {
          const parsed = parse(j);
          if (parsed.success)
            items.push({ data: parsed.data, meta: { id: j.id, retryCount: retryCount(j) } });
        }
        if (items.length) await batchHandler(items, deps);
      },
    );
  }
}
