import type { Logger } from "pino";
import type { z } from "zod";
import type { Env } from "../../env";
import type { Db, Sql } from "../db/client";
import type { Providers } from "../providers";
import type { JobClient } from "./client";

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

/** Queue-level options (pg-boss `createQueue`) and worker options (pg-boss `work`). */
export interface JobOptions {
  retryLimit?: number;
  retryDelay?: number;
  retryBackoff?: boolean;
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
}

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  /** `<feature>.<verb-noun>` */
  name: string;
  schema: S;
  handler: (data: z.output<S>, deps: JobDeps, meta: JobMeta) => Promise<void>;
  /**
   * Optional: handles every job of one pg-boss fetch (up to `batchSize`) in one call, for hot paths
   * (campaign sends claim, send and record a whole batch with a few statements). When set, the
   * pg-boss worker calls it instead of `handler`; the inline client still calls `handler`. Throwing
   * fails (and retries) the whole batch, so it should record per-item failures itself.
   */
  batchHandler?: (items: { data: z.output<S>; meta: JobMeta }[], deps: JobDeps) => Promise<void>;
  options?: JobOptions;
}

export type AnyJobDefinition = JobDefinition<any>;

/**
 * The one way to define a job (ARCHITECTURE.md "One way to define a job"). The payload is parsed
 * with `schema` before the handler runs; a parse failure is final (not retried).
 */
export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

/** Thrown by a handler for an error that retrying cannot fix (the job fails at once). */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PermanentJobError";
  }
}
