import type { PgBoss } from "pg-boss";
import type { z } from "zod";
import type { JobContract } from "./contract";

export interface SendOptions {
  /** run no earlier than this time */
  startAfter?: Date;
  /** pg-boss singletonKey: one queued/active job per key */
  singletonKey?: string;
  /** explicit job id (uuid): a second send with the same id is ignored */
  id?: string;
  priority?: number;
}

/** A job's place in its queue's retry schedule (pg-boss's job row). */
export interface JobSchedule {
  /** pg-boss job state: created (not yet started), retry (waiting for a retry), active, completed, cancelled, failed */
  state: "created" | "retry" | "active" | "completed" | "cancelled" | "failed";
  /** retries started so far: 0 until the first retry starts (pg-boss `retry_count`, JobMeta.retryCount) */
  retryCount: number;
  /** retries the job may have after its first attempt (pg-boss `retry_limit`, the queue's `retryLimit`) */
  retryLimit: number;
  /**
   * When its next attempt may start (pg-boss `start_after`): for a job in `retry`, the time pg-boss's
   * backoff chose when the attempt failed, or a RetryAfterError's later `notBefore` (failWithNotBefore).
   */
  startAfter: Date;
}

/**
 * Enqueues jobs by their contract (`<feature>.jobs.ts`). The web role only enqueues; the worker role
 * works (ARCHITECTURE.md). Callers never ask which client they hold.
 */
export interface JobClient {
  send<S extends z.ZodType>(
    job: JobContract<S>,
    data: z.input<S>,
    options?: SendOptions,
  ): Promise<string | null>;
  /** Bulk insert (one round trip for pg-boss). */
  sendMany<S extends z.ZodType>(
    job: JobContract<S>,
    items: { data: z.input<S>; options?: SendOptions }[],
  ): Promise<void>;
  /**
   * Where the jobs `ids` of `job`'s queue stand in their retry schedule, by id; an id the queue does
   * not hold (never sent, or deleted after pg-boss's retention) is absent. Optional: a client that
   * keeps no schedule (a test's stub) leaves it out, and callers then show none.
   */
  schedules?<S extends z.ZodType>(
    job: JobContract<S>,
    ids: readonly string[],
  ): Promise<Map<string, JobSchedule>>;
}

/** pg-boss backed client. */
export class PgBossJobClient implements JobClient {
  constructor(readonly boss: PgBoss) {}

  async send<S extends z.ZodType>(job: JobContract<S>, data: z.input<S>, options: SendOptions = {}) {
    return this.boss.send(job.name, data as object, options);
  }

  async sendMany<S extends z.ZodType>(
    job: JobContract<S>,
    items: { data: z.input<S>; options?: SendOptions }[],
  ) {
    for (let i = 0; i < items.length; i += 1000) {
      await this.boss.insert(
        job.name,
        items.slice(i, i + 1000).map((it) => ({ data: it.data as object, ...it.options })),
      );
    }
  }

  /**
   * The jobs' rows as pg-boss stores them (pg-boss `findJobs` by id: one primary-key read each, run
   * concurrently on pg-boss's pool), so what is shown is the schedule the workers will follow.
   */
  async schedules<S extends z.ZodType>(job: JobContract<S>, ids: readonly string[]) {
    const found = await Promise.all(
      [...new Set(ids)].map((id) => this.boss.findJobs(job.name, { id }).then((rows) => rows[0])),
    );
    const out = new Map<string, JobSchedule>();
    for (const j of found)
      if (j)
        out.set(j.id, {
          state: j.state,
          retryCount: j.retryCount,
          retryLimit: j.retryLimit,
          startAfter: j.startAfter,
        });
    return out;
  }
}
