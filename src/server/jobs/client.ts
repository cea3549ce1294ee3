import { randomUUID } from "node:crypto";
import type { PgBoss } from "pg-boss";
import type { z } from "zod";
import { describeZodError } from "../lib/validate";
import { type AnyJobDefinition, type JobDefinition, type JobDeps, PermanentJobError } from "./define";

export interface SendOptions {
  /** run no earlier than this time */
  startAfter?: Date;
  /** pg-boss singletonKey: one queued/active job per key */
  singletonKey?: string;
  /** explicit job id (uuid): a second send with the same id is ignored */
  id?: string;
  priority?: number;
}

/** Enqueues jobs. The web role only enqueues; the worker role works (ARCHITECTURE.md). */
export interface JobClient {
  readonly kind: "pg-boss" | "inline";
  send<S extends z.ZodType>(
    job: JobDefinition<S>,
    data: z.input<S>,
    options?: SendOptions,
  ): Promise<string | null>;
  /** Bulk insert (one round trip for pg-boss). */
  sendMany<S extends z.ZodType>(
    job: JobDefinition<S>,
    items: { data: z.input<S>; options?: SendOptions }[],
  ): Promise<void>;
}

/** pg-boss backed client. */
export class PgBossJobClient implements JobClient {
  readonly kind = "pg-boss" as const;
  constructor(readonly boss: PgBoss) {}

  async send<S extends z.ZodType>(job: JobDefinition<S>, data: z.input<S>, options: SendOptions = {}) {
    return this.boss.send(job.name, data as object, options);
  }

  async sendMany<S extends z.ZodType>(
    job: JobDefinition<S>,
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

/**
 * Runs handlers in the calling process (tests, and `npm start` never uses it). `send` awaits the
 * handler, retrying up to `retryLimit` times at once; jobs with a future `startAfter` are kept in
 * `deferred` instead of running, so a test can look at them or run them with `runDeferred()`.
 */
export class InlineJobClient implements JobClient {
  readonly kind = "inline" as const;
  readonly deferred: { job: AnyJobDefinition; data: unknown; options: SendOptions }[] = [];
  readonly failures: { job: string; error: Error }[] = [];
  private readonly seenIds = new Set<string>();
  private readonly active = new Set<string>();
  constructor(private readonly getDeps: () => JobDeps) {}

  async send<S extends z.ZodType>(job: JobDefinition<S>, data: z.input<S>, options: SendOptions = {}) {
    if (options.id) {
      if (this.seenIds.has(options.id)) return null;
      this.seenIds.add(options.id);
    }
    if (options.singletonKey) {
      const key = `${job.name}:${options.singletonKey}`;
      if (this.active.has(key)) return null;
    }
    if (options.startAfter && options.startAfter.getTime() > Date.now() + 50) {
      this.deferred.push({ job, data, options });
      return options.id ?? randomUUID();
    }
    const id = options.id ?? randomUUID();
    await runJob(job, data, this.getDeps(), id, this.active, options.singletonKey, this.failures);
    return id;
  }

  async sendMany<S extends z.ZodType>(
    job: JobDefinition<S>,
    items: { data: z.input<S>; options?: SendOptions }[],
  ) {
    for (const it of items) await this.send(job, it.data, it.options);
  }

  /** Runs every deferred job now (ignoring startAfter); returns how many ran. */
  async runDeferred(): Promise<number> {
    const batch = this.deferred.splice(0);
    for (const d of batch) {
      await runJob(
        d.job,
        d.data,
        this.getDeps(),
        randomUUID(),
        this.active,
        d.options.singletonKey,
        this.failures,
      );
    }
    return batch.length;
  }
}

async function runJob(
  job: AnyJobDefinition,
  raw: unknown,
  deps: JobDeps,
  id: string,
  active: Set<string>,
  singletonKey: string | undefined,
  failures: { job: string; error: Error }[],
) {
  const parsed = job.schema.safeParse(raw);
  if (!parsed.success) {
    failures.push({ job: job.name, error: new Error(describeZodError(parsed.error)) });
    return;
  }
  const key = singletonKey ? `${job.name}:${singletonKey}` : undefined;
  if (key) active.add(key);
  try {
    const limit = job.options?.retryLimit ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        await job.handler(parsed.data, deps, { id, retryCount: attempt });
        return;
      } catch (error) {
        if (error instanceof PermanentJobError || attempt >= limit) {
          deps.log.warn({ err: error, job: job.name }, "inline job failed");
          failures.push({ job: job.name, error: error as Error });
          return;
        }
      }
    }
  } finally {
    if (key) active.delete(key);
  }
}
