import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { DELIVERY_RETRY_LIMIT, deliverWebhookJob } from "../../src/server/features/webhooks/webhooks.jobs";
import {
  emitWebhookEvent,
  queueWebhookDeliveries,
} from "../../src/server/features/webhooks/webhooks.service";
import { PgBossJobClient } from "../../src/server/jobs/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { handlerOf } from "../../src/server/jobs/registry";
import { startBoss, startWorkers } from "../../src/server/jobs/worker";
import { createServer } from "../../src/server/main";
import { authedClient, createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

/**
 * The delivery log tells when a failing delivery is tried next and how many attempts it has left
 * (Stripe's "Next retry in 2 h", Svix's "Attempt 3 of 8"): `next_attempt_at` is the retry's start
 * as pg-boss scheduled it (its job's `start_after`, backoff or Retry-After), `attempt` of
 * `max_attempts` where the job stands. The deliveries run on real pg-boss workers against a local
 * receiver; the log is read through the app's tRPC procedure (Settings > Webhooks), the cookie REST
 * path and /api/v1, on an app whose job client is pg-boss.
 */

type Answer = { status: number; retryAfter?: string };
type LogEntry = {
  id: string;
  status: string;
  attempts: number;
  attempt: number;
  max_attempts: number;
  next_attempt_at: string | null;
};

let t: TestApp;
let boss: Awaited<ReturnType<typeof startBoss>>;
/** the app over pg-boss (createTestApp's own runs jobs inline, with no schedule to show) */
let app: FastifyInstance;
let server: http.Server;
let url: string;
const answers = new Map<string, Answer>();
const received: { path: string; at: number }[] = [];

beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push({ path: req.url ?? "", at: Date.now() });
      const a = answers.get(req.url ?? "") ?? { status: 200 };
      res.statusCode = a.status;
      if (a.retryAfter !== undefined) res.setHeader("Retry-After", a.retryAfter);
      res.end("down");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const registry = [handlerOf(deliverWebhookJob)];
  boss = await startBoss(t.env.DATABASE_URL!, registry, { max: 4 });
  const jobs = new PgBossJobClient(boss);
  const deps: JobDeps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs, log: t.ctx.log };
  await startWorkers(boss, registry, deps, 1);
  ({ app } = await createServer({ ...deps, serveClient: false }));
  await app.ready();
});
afterAll(async () => {
  await boss?.stop({ graceful: false, timeout: 2000 });
  await app?.close();
  await new Promise<void>((r) => server?.close(() => r()));
  await t?.close();
});

/** A Business workspace with an endpoint at `/hooks/<name>` answering `answer`, and an API key. */
async function endpoint(name: string, answer: Answer) {
  answers.set(`/hooks/${name}`, answer);
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const ep = await u.client.post("/api/webhook-endpoints", {
    url: `${url}/${name}`,
    events: ["contact.created"],
  });
  expect(ep.statusCode, ep.body).toBe(200);
  const key = (await u.client.post("/api/api-keys", { name: "log", scopes: ["webhooks:write"] })).json()
    .key as string;
  const client = authedClient(app, u.cookie);
  const endpointId = ep.json().endpoint.id as string;
  return {
    workspaceId: u.user.id,
    endpointId,
    client,
    /** the delivery log entry of `deliveryId`, read the three ways; asserts they agree */
    async entry(deliveryId: string): Promise<LogEntry> {
      const viaTrpc = await trpcCall(client, "webhooks.deliveries", { id: endpointId }, "query");
      expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
      const rest = await client.get(`/api/webhook-endpoints/${endpointId}/deliveries`);
      const v1 = await app.inject({
        method: "GET",
        url: `/api/v1/webhook_endpoints/${endpointId}/deliveries`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(v1.statusCode, v1.body).toBe(200);
      const e = (viaTrpc.data as LogEntry[]).find((d) => d.id === deliveryId)!;
      expect(e).toBeDefined();
      expect(rest.json().deliveries.find((d: LogEntry) => d.id === deliveryId)).toEqual(e);
      expect(v1.json().data.find((d: LogEntry) => d.id === deliveryId)).toEqual(e);
      return e;
    },
  };
}

type Job = NonNullable<Awaited<ReturnType<typeof boss.getJobById>>>;

/**
 * Waits until the delivery's job is settled (not created/active) after `attempts` recorded attempts
 * and `ready(job)` holds (a Retry-After retry: the worker moves its start after failing it).
 */
async function settled(jobId: string, deliveryId: string, attempts: number, ready = (_j: Job) => true) {
  const until = Date.now() + 30_000;
  for (;;) {
    const job = await boss.getJobById(deliverWebhookJob.name, jobId);
    const [d] = await t.db.execute<{ attempts: number }>(
      sql`select attempts from webhook_deliveries where id = ${deliveryId}`,
    );
    if (job && job.state !== "active" && job.state !== "created" && d!.attempts >= attempts && ready(job))
      return job;
    if (Date.now() > until) throw new Error(`delivery ${deliveryId}: job ${job?.state}, ${d?.attempts}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Emits one contact.created to the endpoint and queues it on pg-boss; returns the delivery id. */
async function emitOne(workspaceId: string) {
  const emit = await emitWebhookEvent({ db: t.db }, workspaceId, "contact.created", { n: 1 });
  expect(emit.deliveryIds).toHaveLength(1);
  await queueWebhookDeliveries({ jobs: new PgBossJobClient(boss) }, emit);
  return emit.deliveryIds[0]!;
}

const MAX = DELIVERY_RETRY_LIMIT + 1;

describe("the delivery log shows the retry schedule", () => {
  it("after a failed attempt: the next attempt's scheduled time, attempt 1 of 12; after the last: none, failed", async () => {
    const ep = await endpoint("500", { status: 500 });
    const deliveryId = await emitOne(ep.workspaceId);
    const job = await settled(deliveryId, deliveryId, 1);
    expect(job.state).toBe("retry");

    const e = await ep.entry(deliveryId);
    expect(e).toMatchObject({ status: "pending", attempts: 1, attempt: 1, max_attempts: MAX });
    expect(e.next_attempt_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(Math.abs(Date.parse(e.next_attempt_at!) - job.startAfter.getTime())).toBeLessThanOrEqual(1000);
    // the first retry's backoff: 40-80 s after the attempt
    const at = received.filter((r) => r.path === "/hooks/500").at(-1)!.at;
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeGreaterThanOrEqual(40 - 1);
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeLessThanOrEqual(80 + 5);

    // the retries run out: the job is at its 11th retry, due now; the 12th attempt fails too
    await t.db.execute(
      sql`update pgboss.job set retry_count = ${DELIVERY_RETRY_LIMIT - 1}, start_after = now()
          where name = ${deliverWebhookJob.name} and id = ${deliveryId}`,
    );
    const last = await settled(deliveryId, deliveryId, 2);
    expect(last.retryCount).toBe(DELIVERY_RETRY_LIMIT);
    const gaveUp = await ep.entry(deliveryId);
    expect(gaveUp).toMatchObject({
      status: "failed",
      attempts: 2,
      attempt: MAX,
      max_attempts: MAX,
      next_attempt_at: null,
    });
  });

  it("a 429 with Retry-After: 120 shows the next attempt ~120 s after the failed one", async () => {
    const ep = await endpoint("429", { status: 429, retryAfter: "120" });
    const deliveryId = await emitOne(ep.workspaceId);
    // the first retry's backoff is 40-80 s: a start 100 s on is the Retry-After's
    const job = await settled(
      deliveryId,
      deliveryId,
      1,
      (j) => j.startAfter.getTime() > Date.now() + 100_000,
    );
    const e = await ep.entry(deliveryId);
    expect(e).toMatchObject({ status: "pending", attempt: 1, max_attempts: MAX });
    expect(Math.abs(Date.parse(e.next_attempt_at!) - job.startAfter.getTime())).toBeLessThanOrEqual(1000);
    const at = received.filter((r) => r.path === "/hooks/429").at(-1)!.at;
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeGreaterThanOrEqual(120 - 1);
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeLessThanOrEqual(120 + 5);
  });

  it("a resend starts a schedule of its own: the log follows the resend's job, not the finished one", async () => {
    const ep = await endpoint("resend", { status: 500 });
    const deliveryId = await emitOne(ep.workspaceId);
    await settled(deliveryId, deliveryId, 1);
    // the first job gives up
    await t.db.execute(
      sql`update pgboss.job set retry_count = ${DELIVERY_RETRY_LIMIT - 1}, start_after = now()
          where name = ${deliverWebhookJob.name} and id = ${deliveryId}`,
    );
    await settled(deliveryId, deliveryId, 2);
    expect((await ep.entry(deliveryId)).status).toBe("failed");

    const r = await ep.client.post(`/api/webhook-deliveries/${deliveryId}/resend`);
    expect(r.statusCode, r.body).toBe(200);
    // the resend's job: the newest of the delivery's jobs
    const [row] = await t.db.execute<{ id: string }>(
      sql`select id::text from pgboss.job where name = ${deliverWebhookJob.name}
          and data->>'deliveryId' = ${deliveryId} order by created_on desc limit 1`,
    );
    expect(row!.id).not.toBe(deliveryId);
    const job = await settled(row!.id, deliveryId, 3);
    expect(job.state).toBe("retry");
    const e = await ep.entry(deliveryId);
    expect(e).toMatchObject({ status: "pending", attempts: 3, attempt: 1, max_attempts: MAX });
    expect(Math.abs(Date.parse(e.next_attempt_at!) - job.startAfter.getTime())).toBeLessThanOrEqual(1000);
  });
});
