import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { PgBossJobClient } from "../../src/server/jobs/client";
import { defineHandler, defineJob, type JobDeps, PermanentJobError } from "../../src/server/jobs/define";
import { InlineJobClient } from "../../src/server/jobs/inline";
import { startBoss, startWorkers } from "../../src/server/jobs/worker";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function waitFor(check: () => boolean, ms = 20_000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

function makeJobs(prefix: string) {
  const seen: number[] = [];
  const attempts = new Map<number, number>();
  const contract = defineJob({
    name: `${prefix}.record-number`,
    schema: z.object({ n: z.number().int() }),
    options: { retryLimit: 2, retryDelay: 1, retryBackoff: false },
  });
  const job = defineHandler(contract, {
    handler: async ({ n }) => {
      attempts.set(n, (attempts.get(n) ?? 0) + 1);
      if (n < 0) throw new PermanentJobError("negative numbers are refused");
      if (n === 13 && (attempts.get(n) ?? 0) < 2) throw new Error("transient failure");
      seen.push(n);
    },
  });
  return { contract, job, seen, attempts };
}

describe("pg-boss job client and workers", () => {
  it("creates the queue, works sent and bulk-inserted jobs, retries transient errors, never retries permanent ones or bad payloads", async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const { contract, job, seen, attempts } = makeJobs(prefix);
    const boss = await startBoss(t.env.DATABASE_URL!, [job], { max: 4 });
    try {
      const client = new PgBossJobClient(boss);
      const deps = {
        db: t.db,
        sql: t.sql,
        env: t.env,
        providers: t.providers,
        jobs: client,
        log: t.ctx.log,
      } as JobDeps;
      await startWorkers(boss, [job], deps, 2);
      await client.send(contract, { n: 1 });
      await client.sendMany(contract, [
        { data: { n: 2 } },
        { data: { n: 3 } },
        { data: { n: 13 } },
        { data: { n: -1 } },
      ]);
      await boss.send(job.name, { n: "not a number" });
      await waitFor(() => seen.length >= 4);
      expect([...seen].sort((a, b) => a - b)).toEqual([1, 2, 3, 13]);
      expect(attempts.get(13)).toBe(2); // failed once, retried once
      await new Promise((r) => setTimeout(r, 2500)); // give a wrongly retried job time to show up
      expect(attempts.get(-1)).toBe(1);
      expect(seen).toHaveLength(4);
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });
});

describe("a batch of per-job handlers", () => {
  it("runs the jobs of one fetch concurrently and settles each on its own: one failing job is retried alone", async () => {
    const name = `t${randomUUID().slice(0, 8)}.batch`;
    const attempts = new Map<number, number>();
    let inFlight = 0;
    let maxInFlight = 0;
    const job = defineHandler(
      defineJob({
        name,
        schema: z.object({ n: z.number().int() }),
        options: { retryLimit: 2, retryDelay: 1, retryBackoff: false, batchSize: 4, localConcurrency: 1 },
      }),
      {
        handler: async ({ n }) => {
          attempts.set(n, (attempts.get(n) ?? 0) + 1);
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          // wait (up to 3 s) until the whole fetch is in flight
          const until = Date.now() + 3000;
          while (maxInFlight < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
          inFlight--;
          if (n === 2 && attempts.get(n) === 1) throw new Error("transient failure");
        },
      },
    );
    const boss = await startBoss(t.env.DATABASE_URL!, [job], { max: 2 });
    try {
      const client = new PgBossJobClient(boss);
      await client.sendMany(
        job,
        [1, 2, 3, 4].map((n) => ({ data: { n } })),
      );
      const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: client, log: t.ctx.log };
      await startWorkers(boss, [job], deps as JobDeps);
      await waitFor(() => attempts.get(2) === 2);
      await new Promise((r) => setTimeout(r, 2500)); // time for a wrongly retried job to show up
      expect(maxInFlight).toBe(4);
      expect(Object.fromEntries(attempts)).toEqual({ 1: 1, 2: 2, 3: 1, 4: 1 });
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });
});

describe("pg-boss queue options", () => {
  it("applies the code's options to a new queue and brings an existing queue in line (heartbeat, retries)", async () => {
    const name = `t${randomUUID().slice(0, 8)}.heartbeat`;
    const schema = z.object({});
    const handler = async () => {};
    let boss = await startBoss(
      t.env.DATABASE_URL!,
      [
        defineHandler(defineJob({ name, schema, options: { retryLimit: 2, heartbeatSeconds: 30 } }), {
          handler,
        }),
      ],
      { max: 2 },
    );
    try {
      expect(await boss.getQueue(name)).toMatchObject({ retryLimit: 2, heartbeatSeconds: 30 });
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
    boss = await startBoss(
      t.env.DATABASE_URL!,
      [defineHandler(defineJob({ name, schema, options: { retryLimit: 5 } }), { handler })],
      { max: 2 },
    );
    try {
      expect(await boss.getQueue(name)).toMatchObject({ retryLimit: 5, heartbeatSeconds: null });
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });
});

describe("a worker that dies mid-job", () => {
  it("stops its heartbeat, and another worker gets the job again (retryCount 1)", async () => {
    const name = `t${randomUUID().slice(0, 8)}.heartbeat-retry`;
    const attempts: number[] = [];
    let release = () => {};
    const hang = new Promise<void>((r) => {
      release = r;
    });
    const job = defineHandler(
      defineJob({
        name,
        schema: z.object({}),
        options: { retryLimit: 1, retryDelay: 1, retryBackoff: false, heartbeatSeconds: 10 },
      }),
      {
        handler: async (_data, _deps, meta) => {
          attempts.push(meta.retryCount);
          if (meta.retryCount === 0) await hang; // the first worker never finishes
        },
      },
    );
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, log: t.ctx.log } as JobDeps;
    const first = await startBoss(t.env.DATABASE_URL!, [job], { max: 2 });
    await startWorkers(first, [job], { ...deps, jobs: new PgBossJobClient(first) }, 1);
    await first.send(name, {});
    await waitFor(() => attempts.length === 1);
    await first.stop({ graceful: false, timeout: 1000 }); // "killed": no more heartbeats
    const second = await startBoss(t.env.DATABASE_URL!, [job], { max: 2, superviseIntervalSeconds: 1 });
    try {
      await startWorkers(second, [job], { ...deps, jobs: new PgBossJobClient(second) }, 1);
      await waitFor(() => attempts.length === 2, 40_000);
      expect(attempts).toEqual([0, 1]);
    } finally {
      release();
      await second.stop({ graceful: false, timeout: 2000 });
    }
  }, 60_000);
});

describe("inline job client", () => {
  it("runs handlers in process, retries, keeps delayed jobs aside and honours ids", async () => {
    const { contract, job, seen, attempts } = makeJobs("inline");
    const inline: InlineJobClient = new InlineJobClient(
      (): JobDeps => ({ ...t.ctx, jobs: inline }) as unknown as JobDeps,
      [job],
    );
    await inline.send(contract, { n: 13 });
    expect(seen).toEqual([13]);
    expect(attempts.get(13)).toBe(2);
    await inline.send(contract, { n: -5 });
    expect(inline.failures.map((f) => f.error.message)).toContain("negative numbers are refused");
    await inline.send(contract, { n: 7 }, { startAfter: new Date(Date.now() + 60_000) });
    expect(seen).toEqual([13]);
    expect(inline.deferred).toHaveLength(1);
    expect(await inline.runDeferred()).toBe(1);
    expect(seen).toEqual([13, 7]);
    const id = randomUUID();
    await inline.send(contract, { n: 8 }, { id });
    await inline.send(contract, { n: 8 }, { id });
    expect(seen.filter((n) => n === 8)).toHaveLength(1);
    await inline.send(contract, { n: "x" } as unknown as { n: number });
    expect(inline.failures.at(-1)?.error.message).toBe("N must be a number");
    // a contract without a registered handler is refused, not silently dropped
    const unknown = defineJob({ name: "inline.unregistered", schema: z.object({}) });
    await expect(inline.send(unknown, {})).rejects.toThrow(
      /No handler is registered for the job inline.unregistered/,
    );
  });
});
