import { eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { DELIVERY_RETRY_LIMIT, deliverWebhookJob } from "../../src/server/features/webhooks/webhooks.jobs";
import {
  emitWebhookEvent,
  queueWebhookDeliveries,
} from "../../src/server/features/webhooks/webhooks.service";
import { createServer } from "../../src/server/main";
import { authedClient, signUp, trpcCall } from "../helpers";
import { type ReceiverAnswer, webhookReceiverHarness } from "../webhook-receiver";

/**
 * The delivery log tells when a failing delivery is tried next and how many attempts it has left
 * (Stripe's "Next retry in 2 h", Svix's "Attempt 3 of 8"): `next_attempt_at` is the retry's start
 * as pg-boss scheduled it (its job's `start_after`, backoff or Retry-After), `attempt` of
 * `max_attempts` where the job stands. The deliveries run on real pg-boss workers against a local
 * receiver; the log is read through the app's tRPC procedure (Settings > Webhooks), the cookie REST
 * path and /api/v1, on an app whose job client is pg-boss.
 */

type LogEntry = {
  id: string;
  status: string;
  attempts: number;
  attempt: number;
  max_attempts: number;
  next_attempt_at: string | null;
};

/** the app, pg-boss with a webhooks.deliver worker, and the receiver (its answers per `/hooks/<name>`) */
const h = webhookReceiverHarness();
/** the app over pg-boss (createTestApp's own runs jobs inline, with no schedule to show) */
let app: FastifyInstance;
beforeAll(async () => {
  ({ app } = await createServer({ ...h.deps, serveClient: false }));
  await app.ready();
});
afterAll(async () => {
  await app?.close();
});

/** A Business workspace with an endpoint at `/hooks/<name>` answering `answer`, and an API key. */
async function endpoint(name: string, answer: ReceiverAnswer) {
  h.answers.set(`/hooks/${name}`, answer);
  const u = await signUp(h.t.app);
  await h.t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const ep = await u.client.post("/api/webhook-endpoints", {
    url: `${h.url}/${name}`,
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

type Job = NonNullable<Awaited<ReturnType<typeof h.boss.getJobById>>>;

/**
 * Waits until the delivery's job is settled (not created/active) after `attempts` recorded attempts
 * and `ready(job)` holds (a Retry-After retry: the worker moves its start after failing it).
 */
async function settled(jobId: string, deliveryId: string, attempts: number, ready = (_j: Job) => true) {
  const until = Date.now() + 30_000;
  for (;;) {
    const job = await h.boss.getJobById(deliverWebhookJob.name, jobId);
    const [d] = await h.t.db.execute<{ attempts: number }>(
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
  const emit = await emitWebhookEvent({ db: h.t.db }, workspaceId, "contact.created", { n: 1 });
  expect(emit.deliveryIds).toHaveLength(1);
  await queueWebhookDeliveries({ jobs: h.deps.jobs }, emit);
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
    const at = h.received.filter((r) => r.path === "/hooks/500").at(-1)!.at;
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeGreaterThanOrEqual(40 - 1);
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeLessThanOrEqual(80 + 5);

    // the retries run out: the job is at its 11th retry, due now; the 12th attempt fails too
    await h.t.db.execute(
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
    const at = h.received.filter((r) => r.path === "/hooks/429").at(-1)!.at;
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeGreaterThanOrEqual(120 - 1);
    expect((Date.parse(e.next_attempt_at!) - at) / 1000).toBeLessThanOrEqual(120 + 5);
  });

  it("a resend starts a schedule of its own: the log follows the resend's job, not the finished one", async () => {
    const ep = await endpoint("resend", { status: 500 });
    const deliveryId = await emitOne(ep.workspaceId);
    await settled(deliveryId, deliveryId, 1);
    // the first job gives up
    await h.t.db.execute(
      sql`update pgboss.job set retry_count = ${DELIVERY_RETRY_LIMIT - 1}, start_after = now()
          where name = ${deliverWebhookJob.name} and id = ${deliveryId}`,
    );
    await settled(deliveryId, deliveryId, 2);
    expect((await ep.entry(deliveryId)).status).toBe("failed");

    const r = await ep.client.post(`/api/webhook-deliveries/${deliveryId}/resend`);
    expect(r.statusCode, r.body).toBe(200);
    // the resend's job: the newest of the delivery's jobs
    const [row] = await h.t.db.execute<{ id: string }>(
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
