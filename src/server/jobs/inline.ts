import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { describeZodError } from "../lib/validate";
import type { JobClient, JobSchedule, SendOptions } from "./client";
import type { JobContract } from "./contract";
import { type AnyJobDefinition, type JobDeps, PermanentJobError } from "./define";

/**
 * Runs handlers in the calling process (tests, and `npm start` never uses it). `send` awaits the
 * handler, retrying up to `retryLimit` times at once; jobs with a future `startAfter` are kept in
 * `deferred` instead of running, so a test can look at them or run them with `runDeferred()`.
 * `handlers` are the definitions it can run (the worker registry, or a test's own); sending a job
 * without one throws.
 */
export class InlineJobClient implements JobClient {
  readonly deferred: { job: JobContract; data: unknown; options: SendOptions }[] = [];
  readonly failures: { job: string; error: Error }[] = [];
  private readonly seenIds = new Set<string>();
  private readonly active = new Set<string>();
  private readonly handlers: Map<string, AnyJobDefinition>;
  constructor(
    private readonly getDeps: () => JobDeps,
    handlers: readonly AnyJobDefinition[],
  ) {
    this.handlers = new Map(handlers.map((h) => [h.name, h]));
  }

  /** The registered definition of `job`. @throws Error when no handler is registered for it. */
  private definition(job: JobContract): AnyJobDefinition {
    const def = this.handlers.get(job.name);
    if (!def) throw new Error(`No handler is registered for the job ${job.name}`);
    return def;
  }

  async send<S extends z.ZodType>(job: JobContract<S>, data: z.input<S>, options: SendOptions = {}) {
    if (options.id) {
      if (this.seenIds.has(options.id)) return null;
      this.seenIds.add(options.id);
    }
    if (options.singletonKey) {
      const key = `${job.name}:${options.singletonKey}`;
      if (this.active.has(key)) return null;
    }
    if (options.startAfter && options.startAfter.getTime() > Date.now() + 50) {
      // a `short` queue keeps one waiting job per singletonKey (pg-boss policy): later sends are no-ops
      if (
        options.singletonKey &&
        job.options?.policy === "short" &&
        this.deferred.some((d) => d.job.name === job.name && d.options.singletonKey === options.singletonKey)
      )
        return null;
      this.deferred.push({ job, data, options });
      return options.id ?? randomUUID();
    }
    const id = options.id ?? randomUUID();
    await runJob(
      this.definition(job),
      data,
      this.getDeps(),
      id,
      this.active,
      options.singletonKey,
      this.failures,
    );
    return id;
  }

  async sendMany<S extends z.ZodType>(
    job: JobContract<S>,
    items: { data: z.input<S>; options?: SendOptions }[],
  ) {
    for (const it of items) await this.send(job, it.data, it.options);
  }

  /**
   * The schedule of the deferred jobs among `ids` (sent with an id and a future `startAfter`, not
   * yet run): state `created` at their `startAfter`. Jobs sent without one ran at once, with their
   * retries, and keep no schedule, so they are absent.
   */
  async schedules<S extends z.ZodType>(job: JobContract<S>, ids: readonly string[]) {
    const wanted = new Set(ids);
    const out = new Map<string, JobSchedule>();
    for (const d of this.deferred)
      if (d.job.name === job.name && d.options.id && wanted.has(d.options.id))
        out.set(d.options.id, {
          state: "created",
          retryCount: 0,
          retryLimit: job.options?.retryLimit ?? 2,
          startAfter: d.options.startAfter!,
        });
    return out;
  }

  /** Runs every deferred job now (ignoring startAfter); returns how many ran. */
  async runDeferred(): Promise<number> {
    const batch = this.deferred.splice(0);
    for (const d of batch) {
      await runJob(
        this.definition(d.job),
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
