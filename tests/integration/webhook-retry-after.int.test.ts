import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
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
import { setPlan, signUp } from "../helpers";
import { type ReceiverAnswer, webhookReceiverHarness } from "../webhook-receiver";

/**
 * A receiver answering 429 or 503 with `Retry-After` (RFC 9110 section 10.2.3: delta-seconds or an
 * HTTP-date) must not be retried before that time: the delivery job runs on real pg-boss workers and
 * the test reads the retry's scheduled start (pg-boss `startAfter`). The normal backoff of the first
 * retry is 40-80 s (webhooks.jobs), so a 120 s or 300 s Retry-After is later than any backoff.
 */

/** the app, pg-boss with a webhooks.deliver worker, and the receiver (its answers per `/hooks/<name>`) */
const h = webhookReceiverHarness();

/**
 * Creates an endpoint at `/hooks/<name>` answering `answer`, emits one event to it and queues its
 * delivery on pg-boss; waits until the first attempt is recorded and its job is back in the queue.
 * With `moved`, also until the retry starts later than the normal backoff could put it (85 s after
 * the attempt): the worker fails the job (pg-boss sets the backoff) and then moves its start to the
 * Retry-After time (jobs/worker failWithNotBefore), so a read between the two saw the backoff's time.
 * Returns the retry job, the delivery row and the time (ms) the receiver got the attempt.
 */
async function firstAttempt(name: string, answer: ReceiverAnswer, moved = false) {
  h.answers.set(`/hooks/${name}`, answer);
  const u = await signUp(h.t.app);
  await setPlan(h.t, u.user.id, "business");
  const ep = await u.client.post("/api/webhook-endpoints", {
    url: `${h.url}/${name}`,
    events: ["contact.created"],
  });
  expect(ep.statusCode, ep.body).toBe(200);
  const emit = await emitWebhookEvent({ db: h.t.db }, u.user.id, "contact.created", { name });
  expect(emit.deliveryIds).toHaveLength(1);
  const deliveryId = emit.deliveryIds[0]!;
  await queueWebhookDeliveries({ jobs: h.deps.jobs }, emit);
  const until = Date.now() + 30_000;
  for (;;) {
    const job = await h.boss.getJobById(deliverWebhookJob.name, deliveryId);
    const [d] = await h.t.db.execute<{ attempts: number; status: string; response_code: number | null }>(
      sql`select attempts, status, response_code from webhook_deliveries where id = ${deliveryId}`,
    );
    const got = h.received.find((r) => r.path === `/hooks/${name}`);
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
