import type { Logger } from "pino";
import type { z } from "zod";
import type { Env } from "../../env";
import type { Db, Sql } from "../db/client";
import type { Providers } from "../providers";
import type { JobClient } from "./client";
import type { JobContract } from "./contract";

export { defineJob, type JobContract, type JobOptions } from "./contract";

/** What every job handler receives besides its payload. */
export interface JobDeps {
  db: Db;
  sql: Sql;
  env: Env;
  providers: Providers;
  jobs: JobClient;
  log: Logger;
}

export interface JobMeta {
  /** pg-boss job id (or a generated id when inline) */
  id: string;
  /** 0 on the first attempt */
  retryCount: number;
}

/** The work of a job (`<feature>.handlers.ts`). */
export interface JobHandlers<S extends z.ZodType = z.ZodType> {
  /**
   * The work of one job. On pg-boss the jobs of one fetch (up to `batchSize`) run concurrently and
   * each is settled on its own: a throw fails (and retries) only that job (jobs/worker.ts startWorkers).
   */
  handler: (data: z.output<S>, deps: JobDeps, meta: JobMeta) => Promise<void>;
  /**
   * Optional: handles every job of one pg-boss fetch (up to `batchSize`) in one call, for hot paths
   * (campaign sends claim, send and record a whole batch with a few statements). When set, the
   * pg-boss worker calls it instead of `handler`; the inline client still calls `handler`. Throwing
   * fails (and retries) the whole batch, so it should record per-item failures itself.
   */
  batchHandler?: (items: { data: z.output<S>; meta: JobMeta }[], deps: JobDeps) => Promise<void>;
}

/** A job contract bound to its work: what the worker registry (jobs/registry.ts) runs. */
export interface JobDefinition<S extends z.ZodType = z.ZodType> extends JobContract<S>, JobHandlers<S> {}

export type AnyJobDefinition = JobDefinition<any>;

/**
 * Binds the work to a job contract (in `<feature>.handlers.ts`, imported only by the worker
 * registry). The handler receives the payload parsed by the contract's schema.
 */
export function defineHandler<S extends z.ZodType>(
  contract: JobContract<S>,
  handlers: JobHandlers<S>,
): JobDefinition<S> {
  return { ...contract, ...handlers };
}

/** Thrown by a handler for an error that retrying cannot fix (the job fails at once). */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PermanentJobError";
  }
}

/**
 * Thrown by a handler to fail this attempt like any other error (the queue's retry options apply)
 * and have the retry wait at least until `notBefore`: on pg-boss the retry starts at the later of
 * the queue's own backoff and `notBefore` (jobs/worker.ts failWithNotBefore), never sooner than the
 * backoff. The inline client retries it as any error. Used for a receiver's `Retry-After`.
 */
export class RetryAfterError extends Error {
  constructor(
    message: string,
    readonly notBefore: Date,
  ) {
    super(message);
    this.name = "RetryAfterError";
  }
}
