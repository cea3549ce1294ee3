import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  parseRetryAfter,
  RETRY_AFTER_MAX_S,
  retryNotBefore,
} from "../../src/server/features/webhooks/webhooks.deliver";
import { deliverWebhookJob } from "../../src/server/features/webhooks/webhooks.jobs";
import {
  emitWebhookEvent,
  queueWebhookDeliveries,
} from "../../src/server/features/webhooks/webhooks.service";
import { PgBossJobClient } from "../../src/server/jobs/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { handlerOf } from "../../src/server/jobs/registry";
import { startBoss, startWorkers } from "../../src/server/jobs/worker";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

/**
 * A receiver answering 429 or 503 with `Retry-After` (RFC 9110 section 10.2.3: delta-seconds or an
 * HTTP-date) must not be retried before that time: the delivery job runs on real pg-boss workers and
 * the test reads the retry's scheduled start (pg-boss `startAfter`). The normal backoff of the first
 * retry is 40-80 s (webhooks.jobs), so a 120 s or 300 s Retry-After is later than any backoff.
 */

type Answer = { status: number; retryAfter?: string };

let t: TestApp;
let boss: Awaited<ReturnType<typeof startBoss>>;
let server: http.Server;
let url: string;
/** what the receiver answers, per path (`/hooks/<name>`) */
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
      res.end("slow down");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const registry = [handlerOf(deliverWebhookJob)];
  boss = await startBoss(t.env.DATABASE_URL!, registry, { max: 4 });
  const deps: JobDeps = {
    db: t.db,
    sql: t.sql,
    env: t.env,
    providers: t.providers,
    jobs: new PgBossJobClient(boss),
    log: t.ctx.log,
  };
  await startWorkers(boss, registry, deps, 1);
});
afterAll(async () => {
  await boss?.stop({ graceful: false, timeout: 2000 });
  await new Promise<void>((r) => server?.close(() => r()));
  await t?.close();
});

/**
 * Creates an endpoint at `/hooks/<name>` answering `answer`, emits one event to it and queues its
 * delivery on pg-boss; waits until the first attempt is recorded and its job is back in the queue.
 * With `moved`, also until the retry starts later than the normal backoff could put it (85 s after
 * the attempt): the worker fails the job (pg-boss sets the backoff) and then moves its start to the
 * Retry-After time (jobs/worker failWithNotBefore), so a read between the two saw the backoff's time.
 * Returns the retry job, the delivery row and the time (ms) the receiver got the attempt.
 */
async function firstAttempt(name: string, answer: Answer, moved = false) {
  answers.set(`/hooks/${name}`, answer);
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const ep = await u.client.post("/api/webhook-endpoints", {
    url: `${url}/${name}`,
    events: ["contact.created"],
  });
  expect(ep.statusCode, ep.body).toBe(200);
  const emit = await emitWebhookEvent({ db: t.db }, u.user.id, "contact.created", { name });
  expect(emit.deliveryIds).toHaveLength(1);
  const deliveryId = emit.deliveryIds[0]!;
  await queueWebhookDeliveries({ jobs: new PgBossJobClient(boss) }, emit);
  const until = Date.now() + 30_000;
  for (;;) {
    const job = await boss.getJobById(deliverWebhookJob.name, deliveryId);
    const [d] = await t.db.execute<{ attempts: number; status: string; response_code: number | null }>(
      sql`select attempts, status, response_code from webhook_deliveries where id = ${deliveryId}`,
    );
    const got = received.find((r) => r.path === `/hooks/${name}`);
    if (job && job.state !== "active" && job.state !== "created" && d!.attempts > 0) {
      expect(got).toBeDefined();
      if (!moved || job.startAfter.getTime() - got!.at > 85_000)
        return { job, delivery: d!, attemptAt: got!.at };
    }
    if (Date.now() > until)
      throw new Error(
        `delivery ${deliveryId} not attempted, or its retry not moved: ${job?.state} ${job?.startAfter}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Seconds from the attempt to the retry's scheduled start. */
const waitS = (r: Awaited<ReturnType<typeof firstAttempt>>) =>
  (r.job.startAfter.getTime() - r.attemptAt) / 1000;

describe("webhook retries honour the receiver's Retry-After", () => {
  it("429 with Retry-After: 120 (delta-seconds) schedules the retry no sooner than 120 s later", async () => {
    const r = await firstAttempt("delta", { status: 429, retryAfter: "120" }, true);
    expect(r.job.state).toBe("retry");
    expect(r.delivery).toMatchObject({ status: "pending", attempts: 1, response_code: 429 });
    expect(waitS(r)).toBeGreaterThanOrEqual(120 - 1);
    expect(waitS(r)).toBeLessThanOrEqual(120 + 5);
  });

  it("503 with an HTTP-date schedules the retry no sooner than that date", async () => {
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 300_000);
    const r = await firstAttempt("date", { status: 503, retryAfter: at.toUTCString() }, true);
    expect(r.job.state).toBe("retry");
    expect(r.delivery).toMatchObject({ status: "pending", attempts: 1, response_code: 503 });
    expect(r.job.startAfter.getTime()).toBeGreaterThanOrEqual(at.getTime());
    expect(r.job.startAfter.getTime()).toBeLessThanOrEqual(at.getTime() + 5_000);
  });

  it("a Retry-After past the cap is honoured up to 1 hour", async () => {
    const r = await firstAttempt("far", { status: 429, retryAfter: "86400" }, true);
    expect(r.job.state).toBe("retry");
    expect(waitS(r)).toBeGreaterThanOrEqual(3600 - 1);
    expect(waitS(r)).toBeLessThanOrEqual(3600 + 5);
  });

  it("a malformed Retry-After, or a shorter one than the backoff, keeps the normal backoff (40-80 s)", async () => {
    for (const [name, retryAfter] of [
      ["malformed", "soon"],
      ["negative", "-30"],
      ["short", "2"],
    ] as const) {
      const r = await firstAttempt(name, { status: 429, retryAfter });
      expect(r.job.state, name).toBe("retry");
      expect(waitS(r), name).toBeGreaterThanOrEqual(40 - 1);
      expect(waitS(r), name).toBeLessThanOrEqual(80 + 5);
    }
  });
});

describe("parseRetryAfter and retryNotBefore (RFC 9110 section 10.2.3)", () => {
  const now = new Date("2026-03-01T12:00:00Z");
  it("reads delta-seconds and the three HTTP-date forms", () => {
    expect(parseRetryAfter(" 120 ", now)?.toISOString()).toBe("2026-03-01T12:02:00.000Z");
    const at = "2026-03-01T12:05:00.000Z";
    expect(parseRetryAfter("Sun, 01 Mar 2026 12:05:00 GMT", now)?.toISOString()).toBe(at);
    expect(parseRetryAfter("Sunday, 01-Mar-26 12:05:00 GMT", now)?.toISOString()).toBe(at);
    expect(parseRetryAfter("Sun Mar  1 12:05:00 2026", now)?.toISOString()).toBe(at);
  });
  it("refuses malformed values", () => {
    for (const v of [
      "",
      "soon",
      "-5",
      "1.5",
      "Sun, 31 Feb 2026 12:05:00 GMT",
      "Mon, 01 Mar 2026 12:05:00 GMT",
      "Sun, 01 Mar 2026 25:05:00 GMT",
      "2026-03-01T12:05:00Z",
      "Sun, 01 Mar 2026 12:05:00 +0000",
      null,
    ])
      expect(parseRetryAfter(v, now), String(v)).toBeNull();
  });
  it("applies to 429 and 503 only, in the future only, capped at 1 hour", () => {
    expect(RETRY_AFTER_MAX_S).toBe(3600);
    expect(retryNotBefore(429, "30", now)?.toISOString()).toBe("2026-03-01T12:00:30.000Z");
    expect(retryNotBefore(503, "30", now)?.toISOString()).toBe("2026-03-01T12:00:30.000Z");
    expect(retryNotBefore(500, "30", now)).toBeNull();
    expect(retryNotBefore(429, "0", now)).toBeNull();
    expect(retryNotBefore(429, "Sun, 01 Mar 2026 11:00:00 GMT", now)).toBeNull();
    expect(retryNotBefore(429, "999999", now)?.toISOString()).toBe("2026-03-01T13:00:00.000Z");
  });
});
