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
}
