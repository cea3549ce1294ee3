/**
 * Outbound webhooks benchmark (`npm run bench:webhooks`), issue 15: how fast a backlog of queued
 * deliveries drains through the real worker, beside what the same receiver takes from plain HTTP.
 *
 * Each scenario stores BENCH_DELIVERIES `contact.created` events for one endpoint through the product
 * path (emitWebhookEvents: events and deliveries, then queueWebhookDeliveries: `webhooks.deliver` jobs, queued by a pg-boss that
 * works nothing, as a backlog), then starts pg-boss and its workers as the worker role does
 * (startBoss + startWorkers with the whole job registry, boot.ts) and times the drain: from
 * startWorkers to the last delivery's recorded attempt, deliveries/s. The receiver is a separate
 * Node process on 127.0.0.1 (allowed through OUTBOUND_ALLOWED_HOSTS) answering 200 after a delay.
 *
 * Baseline (the ratio's denominator), measured in the same run against the same receiver just before
 * and just after each drain (their mean): BENCH_CONCURRENCY (default 16) concurrent senders POSTing a
 * webhook-sized body with plain node:http and a keep-alive agent: no database, no pg-boss, no SSRF
 * guard. It does not depend on the code under test, so ratios compare across versions; it is what
 * the machine and receiver allow at that concurrency. Beside it, for diagnosis, the product's own
 * client (guardedPost) at the same concurrency without the database or pg-boss.
 *
 * Scenarios:
 *  1. receiver answering at once, BENCH_DELIVERIES (default 2,000) deliveries;
 *  2. receiver answering after BENCH_RECEIVER_DELAY_MS (default 50 ms, a remote endpoint's latency),
 *     BENCH_SLOW_DELIVERIES (default 1,000): throughput is bounded by deliveries in flight;
 *  3. receiver answering 503 to BENCH_FAIL_PERCENT (default 2) % of requests, at once,
 *     BENCH_SLOW_DELIVERIES deliveries: the time until every delivery had its first attempt (the
 *     failed ones retry 40 s later, not waited for).
 * Also CPU per delivery: this process (worker, pg-boss, HTTP client) and the embedded Postgres.
 *
 * Database: BENCH_DATABASE_URL, else an embedded Postgres in ./.data/bench-webhooks-pg (port 54349,
 * kept between runs; the delivery queue is emptied at the start of a run).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { eq } from "drizzle-orm";
import pino from "pino";
import { loadEnv } from "../src/env";
import { createDb, runMigrations } from "../src/server/db/client";
import { startEmbeddedPostgres } from "../src/server/db/embedded";
import { users, webhookEndpoints, workspaces } from "../src/server/db/schema";
import { deliverWebhookJob } from "../src/server/features/webhooks/webhooks.jobs";
import { emitWebhookEvents, queueWebhookDeliveries } from "../src/server/features/webhooks/webhooks.service";
import { createWorkspace } from "../src/server/features/workspaces/workspaces.service";
import { PgBossJobClient } from "../src/server/jobs/client";
import type { JobDeps } from "../src/server/jobs/define";
import { jobRegistry } from "../src/server/jobs/registry";
import { startBoss, startWorkers } from "../src/server/jobs/worker";
import { guardedPost, parseAllowedHosts } from "../src/server/lib/outbound";
import { createProviders } from "../src/server/providers";
import { pgCpuMs } from "./bench-server";

const N = Number(process.env.BENCH_DELIVERIES ?? 2000);
const N_SLOW = Number(process.env.BENCH_SLOW_DELIVERIES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 50);
const FAIL_PERCENT = Number(process.env.BENCH_FAIL_PERCENT ?? 2);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 900);
const log = pino({ level: "silent" });

/** The receiver, run in its own process: 200 (or 503 for `failPercent` % of POSTs) after `delay` ms. */
const RECEIVER_SOURCE = `
const http = require("node:http");
const [delay, failPercent] = process.argv.slice(1).map(Number);
let posts = 0;
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const server = http.createServer((req, res) => {
  if (req.method === "GET") return res.end(JSON.stringify({ posts }));
  req.resume();
  req.on("end", () => {
    posts++;
    const status = rand() * 100 < failPercent ? 503 : 200;
    const answer = () => { res.statusCode = status; res.end("ok"); };
    delay > 0 ? setTimeout(answer, delay) : answer();
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

/** Starts a receiver process; resolves with its port, a POST counter and `stop`. */
async function startReceiver(delay: number, failPercent: number) {
  const child = spawn(process.execPath, ["-e", RECEIVER_SOURCE, String(delay), String(failPercent)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (b: Buffer) => resolve(Number(String(b).trim())));
    child.once("exit", (code) => reject(new Error(`receiver exited with ${code}`)));
  });
  const posts = async () => {
    const r = await fetch(`http://127.0.0.1:${port}/`);
    return ((await r.json()) as { posts: number }).posts;
  };
  return { port, url: `http://127.0.0.1:${port}/hooks`, posts, stop: () => child.kill() };
}

/** A webhook-sized JSON body (a contact's public JSON as `contact.created` carries it). */
function contactData(i: number) {
  return {
    id: 100_000 + i,
    first_name: `First${i}`,
    last_name: "Bench",
    email: `c${i}@bench.example.com`,
    phone: `+1212${String(5_000_000 + i).padStart(7, "0")}`,
    company: `Company ${i % 97}`,
    lifecycle_stage: "lead",
    tags: [],
    custom_fields: {},
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  };
}
const SAMPLE_BODY = JSON.stringify({
  type: "contact.created",
  timestamp: new Date().toISOString(),
  data: contactData(1),
});

/** `n` POSTs by `concurrency` senders calling `post`; requests per second. @throws on a non-2xx. */
async function concurrentPosts(n: number, concurrency: number, post: () => Promise<number>) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const status = await post();
        if (status < 200 || status > 299) throw new Error(`baseline POST answered ${status}`);
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/** The baseline: plain node:http with a keep-alive agent, `concurrency` senders. Requests/s. */
async function plainPosts(url: string, n: number, concurrency: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const headers = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(SAMPLE_BODY)),
    "webhook-id": "msg_bench",
    "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
    "webhook-signature": "v1,bench",
  };
  const post = () =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: "POST", agent, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end(SAMPLE_BODY);
    });
  try {
    return await concurrentPosts(n, concurrency, post);
  } finally {
    agent.destroy();
  }
}

/** The product's client (guardedPost) alone, `concurrency` senders. Requests/s. */
function guardedPosts(url: string, n: number, concurrency: number, allowedHosts: string[]) {
  return concurrentPosts(n, concurrency, async () => {
    const r = await guardedPost(
      url,
      SAMPLE_BODY,
      { "webhook-id": "msg_bench", "webhook-timestamp": "0", "webhook-signature": "v1,bench" },
      { allowedHosts, timeoutMs: 10_000 },
    );
    return r.status;
  });
}

async function openDatabase() {
  const given = process.env.BENCH_DATABASE_URL;
  if (given) return { url: given, pgDataDir: null, stop: async () => {} };
  const dir = path.resolve(".data/bench-webhooks-pg");
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o777);
  const pgDataDir = path.join(dir, "pg");
  const embedded = await startEmbeddedPostgres({
    dataDir: pgDataDir,
    port: Number(process.env.BENCH_PG_PORT ?? 54349),
    database: "bench",
    persistent: true,
  });
  return { url: embedded.url, pgDataDir, stop: () => embedded.stop() };
}

/** A fresh Business workspace with one enabled endpoint at `url` subscribed to contact.created. */
async function seedEndpoint(db: ReturnType<typeof createDb>["db"], url: string) {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const [user] = await db
    .insert(users)
    .values({
      name: "Bench",
      email: `bench-wh-${stamp}@example.com`,
      passwordHash: "x",
      businessName: "Bench",
    })
    .returning();
  await createWorkspace({ db }, user!, { sameIdAsUser: true });
  // webhooks are part of API access (Business and up): a Free workspace's deliveries are not sent
  await db
    .update(workspaces)
    .set({ plan: "business", subscriptionStatus: "active" })
    .where(eq(workspaces.id, user!.id));
  const [ep] = await db
    .insert(webhookEndpoints)
    .values({
      workspaceId: user!.id,
      url,
      events: ["contact.created"],
      secret: `whsec_${Buffer.from("bench-secret-0123456789ab").toString("base64")}`,
    })
    .returning();
  return { workspaceId: user!.id, endpointId: ep!.id };
}

interface Scenario {
  title: string;
  n: number;
  delay: number;
  failPercent: number;
  /** done when every delivery was attempted once (failures included) instead of succeeded */
  firstAttempts: boolean;
}

async function runScenario(
  s: Scenario,
  ctx: { url: string; pgDataDir: string | null; queue: PgBossJobClient },
): Promise<string[]> {
  const rx = await startReceiver(s.delay, s.failPercent);
  const env = loadEnv({
    NODE_ENV: "production",
    APP_SECRET: "bench-secret-0123456789abcdef0123456789abcdef",
    DATABASE_URL: ctx.url,
    DATA_DIR: fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "pw-bench-webhooks-")),
    LOG_LEVEL: "silent",
    APP_URL: "http://localhost:3000",
    OUTBOUND_ALLOWED_HOSTS: `127.0.0.1:${rx.port}`,
  } as Record<string, string>);
  const allowedHosts = parseAllowedHosts(env.OUTBOUND_ALLOWED_HOSTS);
  const { db, sql } = createDb(ctx.url, { max: 20 });
  try {
    const seeded = await seedEndpoint(db, rx.url);
    const emitted = await emitWebhookEvents(
      { db, log },
      seeded.workspaceId,
      "contact.created",
      Array.from({ length: s.n }, (_, i) => contactData(i)),
    );
    await queueWebhookDeliveries({ jobs: ctx.queue, log }, emitted);
    const ids = emitted.eventIds;
    if (ids.length !== s.n) throw new Error(`emitted ${ids.length} of ${s.n} events`);

    // warm both clients (connections, JIT) before any timing (not against a failing receiver)
    if (!s.failPercent) {
      await plainPosts(rx.url, 200, CONCURRENCY);
      await guardedPosts(rx.url, 200, CONCURRENCY, allowedHosts);
    }
    const baseN = Math.max(500, Math.min(s.n, 4000));
    const before = s.failPercent ? null : await plainPosts(rx.url, baseN, CONCURRENCY);
    const guarded = s.failPercent ? null : await guardedPosts(rx.url, baseN, CONCURRENCY, allowedHosts);
    const posts0 = await rx.posts();

    // the worker role as boot.ts starts it
    const boss = await startBoss(ctx.url, jobRegistry, {});
    const deps: JobDeps = {
      db,
      sql,
      env,
      providers: createProviders(env, { db }),
      jobs: new PgBossJobClient(boss),
      log,
    };
    const cpu0 = process.cpuUsage();
    const pg0 = pgCpuMs(ctx.pgDataDir);
    const t0 = Date.now();
    await startWorkers(boss, jobRegistry, deps, env.WORKER_CONCURRENCY, env.WORKER_POLL_SECONDS);
    let row: { done: number; failed: number; last: Date | null } | undefined;
    let lastPrint = Date.now();
    for (;;) {
      [row] = await sql<{ done: number; failed: number; last: Date | null }[]>`
        select count(*) filter (where ${s.firstAttempts ? sql`attempts >= 1` : sql`status = 'succeeded'`})::int as done,
               count(*) filter (where status = 'failed')::int as failed,
               max(last_attempt_at) as last
          from webhook_deliveries where endpoint_id = ${seeded.endpointId}`;
      if (row!.done >= s.n) break;
      if (row!.failed > 0 && !s.firstAttempts) throw new Error(`${row!.failed} deliveries failed`);
      if (Date.now() - t0 > TIMEOUT_S * 1000)
        throw new Error(`timed out after ${TIMEOUT_S} s with ${row!.done} of ${s.n} delivered`);
      if (Date.now() - lastPrint > 10_000) {
        console.log(`  ... ${row!.done} of ${s.n} after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        lastPrint = Date.now();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const cpu = process.cpuUsage(cpu0);
    const pg1 = pgCpuMs(ctx.pgDataDir);
    const secs = (new Date(row!.last!).getTime() - t0) / 1000;
    await boss.stop({ graceful: true, timeout: 5000 }).catch(() => {});
    const posts = (await rx.posts()) - posts0;
    const rate = s.n / secs;
    const cpuMs = (cpu.user + cpu.system) / 1000 / s.n;
    const pgMs = pg0 !== null && pg1 !== null ? (pg1 - pg0) / s.n : null;
    const cost = `CPU per delivery: this process ${cpuMs.toFixed(2)} ms${pgMs === null ? "" : `, Postgres ${pgMs.toFixed(2)} ms`}`;
    if (s.firstAttempts) {
      return [
        `${s.title}: every delivery attempted once in ${secs.toFixed(2)} s = ${rate.toFixed(1)} first attempts/s (${row!.done} attempted, ${posts} POSTs received); ${cost}`,
      ];
    }
    const after = await plainPosts(rx.url, baseN, CONCURRENCY);
    const baseline = (before! + after) / 2;
    return [
      `${s.title}:`,
      `  baseline, plain node:http keep-alive, ${CONCURRENCY} senders: ${before!.toFixed(0)} / ${after.toFixed(0)} POSTs/s before / after the drain (mean ${baseline.toFixed(0)})`,
      `  guardedPost alone (the product's client, no database, no pg-boss), ${CONCURRENCY} senders: ${guarded!.toFixed(0)} POSTs/s (${(guarded! / baseline).toFixed(2)}x the baseline)`,
      `  worker drain (pg-boss + deliverWebhook): ${s.n} delivered in ${secs.toFixed(2)} s (${posts} POSTs received) = ${rate.toFixed(1)} deliveries/s; ratio to the baseline ${(rate / baseline).toFixed(3)}`,
      `  ${cost}`,
    ];
  } finally {
    rx.stop();
    await sql.end({ timeout: 5 });
  }
}

async function main() {
  const { url, pgDataDir, stop } = await openDatabase();
  await runMigrations(url);
  // the queueing side: a pg-boss that works nothing, so the deliveries wait as a backlog
  const queueBoss = await startBoss(url, jobRegistry, { max: 4 });
  await queueBoss.deleteAllJobs(deliverWebhookJob.name); // leftovers of an earlier run (retries)
  const queue = new PgBossJobClient(queueBoss);
  const o = deliverWebhookJob.options ?? {};
  console.log(
    `database: ${url.replace(/:[^:@/]*@/, ":***@")}; queue ${deliverWebhookJob.name}: batchSize ${o.batchSize ?? 1}, localConcurrency ${o.localConcurrency ?? "default"}, pollingIntervalSeconds ${o.pollingIntervalSeconds ?? 0.5}`,
  );
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const scenarios: Scenario[] = [
    {
      title: `receiver answering at once, ${N} deliveries`,
      n: N,
      delay: 0,
      failPercent: 0,
      firstAttempts: false,
    },
    {
      title: `receiver answering after ${DELAY_MS} ms, ${N_SLOW} deliveries`,
      n: N_SLOW,
      delay: DELAY_MS,
      failPercent: 0,
      firstAttempts: false,
    },
    {
      title: `receiver answering 503 to ${FAIL_PERCENT}% of POSTs, ${N_SLOW} deliveries`,
      n: N_SLOW,
      delay: 0,
      failPercent: FAIL_PERCENT,
      firstAttempts: true,
    },
  ];
  const only = process.env.BENCH_SCENARIOS?.split(",").map(Number);
  try {
    for (const [i, s] of scenarios.entries()) {
      if (only && !only.includes(i + 1)) continue;
      for (const line of await runScenario(s, { url, pgDataDir, queue })) console.log(line);
    }
  } finally {
    await queueBoss.deleteAllJobs(deliverWebhookJob.name).catch(() => {});
    await queueBoss.stop({ graceful: false }).catch(() => {});
    await stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
