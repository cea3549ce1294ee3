import type { z } from "zod";

/** Queue-level options (pg-boss `createQueue`) and worker options (pg-boss `work`). */
export interface JobOptions {
  /** retries after the first attempt (default 2) */
  retryLimit?: number;
  /** seconds before the first retry (default 1) */
  retryDelay?: number;
  /** exponential backoff: the n-th retry waits retryDelay * 2^(n-1) * (1 + random) s (default true) */
  retryBackoff?: boolean;
  /**
   * seconds: the cap on any one backoff wait. Default 300 (worker.ts DEFAULT_RETRY_DELAY_MAX_S):
   * a schedule meant to grow longer than 5 minutes between attempts must set it.
   */
  retryDelayMax?: number;
  expireInSeconds?: number;
  /**
   * pg-boss heartbeat, seconds (>= 10): the worker refreshes it while the handler runs; when a
   * killed worker stops refreshing it, pg-boss retries the job (within retryLimit) without waiting
   * for expireInSeconds.
   */
  heartbeatSeconds?: number;
  /** jobs fetched per poll */
  batchSize?: number;
  /** parallel fetch loops per process */
  localConcurrency?: number;
  /** idle poll interval, seconds (>= 0.5) */
  pollingIntervalSeconds?: number;
  /**
   * pg-boss queue policy, set when the queue is created (pg-boss cannot change it later).
   * `short`: at most one queued (not yet active) job per singletonKey, so sending again while one
   * waits is a no-op: a debounce when sent with a `startAfter` delay. Default `standard`.
   */
  policy?: "standard" | "short";
}

/**
 * What callers enqueue: a job's name, payload schema and queue options, without its work. Lives in
 * `<feature>.jobs.ts`; the work is bound to it in `<feature>.handlers.ts` (`defineHandler`).
 */
export interface JobContract<S extends z.ZodType = z.ZodType> {
  /** `<feature>.<verb-noun>` (the pg-boss queue name) */
  name: string;
  schema: S;
  options?: JobOptions;
  /**
   * A periodic job: a 5-field cron expression (UTC) on which pg-boss sends one job with payload `{}`
   * (pg-boss `schedule`, set by startBoss; one send per occurrence however many processes run).
   */
  cron?: string;
}

/**
 * The one way to define a job (ARCHITECTURE.md "One way to define a job"): its contract. The
 * payload is parsed with `schema` before the handler runs; a parse failure is final (not retried).
 */
export function defineJob<S extends z.ZodType>(contract: JobContract<S>): JobContract<S> {
  return contract;
}
