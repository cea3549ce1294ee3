import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import {
  deliverWebhookJob,
  requeueStrandedDeliveriesJob,
} from "../../src/server/features/webhooks/webhooks.jobs";
import {
  emitWebhookEvent,
  queueWebhookDeliveries,
} from "../../src/server/features/webhooks/webhooks.service";
import type { JobClient } from "../../src/server/jobs/client";
import { PgBossJobClient } from "../../src/server/jobs/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { handlerOf } from "../../src/server/jobs/registry";
import { startBoss } from "../../src/server/jobs/worker";
import { createTestApp, signUp, type TestApp } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// Issue 15's at-least-once delivery: an event's deliveries are stored in the transaction of the
// change they report and their jobs queued after it commits. A process that stops in between must not lose the delivery: the sweep
// (webhooks.requeue-stranded-deliveries, every 5 minutes) queues it again, and a delivery whose job
// exists is never queued twice (the job id is the delivery id).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

/** A Business workspace with an endpoint subscribed to contact.created at `url`. */
async function subscribed(url: string) {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const { key } = (
    await u.client.post("/api/api-keys", {
      name: "hooks",
      scopes: ["webhooks:write", "contacts:read", "campaigns:read"],
    })
  ).json();
  const ep = await t.app.inject({
    method: "POST",
    url: "/api/v1/webhook_endpoints",
    headers: { authorization: `Bearer ${key}` },
    payload: { url, events: ["contact.created"] },
  });
  expect(ep.statusCode, ep.body).toBe(201);
  return { workspaceId: u.user.id, endpointId: ep.json().id as string, secret: ep.json().secret as string };
}

/** A job client that fails as a process stopping after the deliveries were stored would. */
const stoppedQueue: JobClient = {
  send: async () => {
    throw new Error("connection terminated");
  },
  sendMany: async () => {
    throw new Error("connection terminated");
  },
};

const deliveries = (endpointId: string) =>
  t.db.execute<{ id: string; status: string; attempts: number }>(
    sql`select id, status, attempts from webhook_deliveries where endpoint_id = ${endpointId}`,
  );

describe("stranded webhook deliveries", () => {
  it("a delivery stored without its job is queued again by the sweep once it is 10 minutes old, delivered once, signed", async () => {
    const hook = await webhookReceiver();
    try {
      const s = await subscribed(hook.url);
      const logged: string[] = [];
      const log = { warn: (_o: object, m: string) => logged.push(m) };
      // stored (in the feature's transaction; here one of its own), then the queueing after the commit fails
      const emitted = await emitWebhookEvent({ db: t.db, log }, s.workspaceId, "contact.created", {
        id: "42",
        first_name: "Ada",
      });
      expect(emitted.eventIds).toHaveLength(1);
      expect(emitted.deliveryIds).toHaveLength(1);
      await queueWebhookDeliveries({ jobs: stoppedQueue, log }, emitted);
      // the failure is logged, the feature's action stands, the delivery is stored but never queued
      expect(logged).toEqual(["webhook deliveries not queued; the stranded-delivery sweep queues them"]);
      const [stored] = await deliveries(s.endpointId);
      expect(stored).toMatchObject({ status: "pending", attempts: 0 });
      expect(hook.got).toHaveLength(0);

      const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
      const sweep = () =>
        handlerOf(requeueStrandedDeliveriesJob).handler({}, deps as JobDeps, { id: "s", retryCount: 0 });
      // younger than 10 minutes: its job may still be on its way; nothing is queued
      await sweep();
      expect(hook.got).toHaveLength(0);

      await t.db.execute(
        sql`update webhook_deliveries set created_at = now() - interval '11 minutes' where id = ${stored!.id}`,
      );
      await sweep();
      expect(hook.got).toHaveLength(1);
      const g = hook.got[0]!;
      const payload = new Webhook(s.secret).verify(g.body, {
        "webhook-id": String(g.headers["webhook-id"]),
        "webhook-timestamp": String(g.headers["webhook-timestamp"]),
        "webhook-signature": String(g.headers["webhook-signature"]),
      }) as { type: string; data: { first_name: string } };
      expect(payload).toMatchObject({ type: "contact.created", data: { first_name: "Ada" } });
      expect((await deliveries(s.endpointId))[0]).toMatchObject({ status: "succeeded", attempts: 1 });

      // delivered: the next sweeps leave it alone
      await sweep();
      expect(hook.got).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });

  it("with pg-boss, a delivery whose job is waiting is not queued a second time by the sweep", async () => {
    const s = await subscribed("https://hooks.example.com/in");
    const boss = await startBoss(
      t.env.DATABASE_URL!,
      [handlerOf(deliverWebhookJob), handlerOf(requeueStrandedDeliveriesJob)],
      { max: 2 },
    );
    try {
      // no worker runs: the job waits in the queue as in a backlog
      const jobs = new PgBossJobClient(boss);
      const marker = randomUUID();
      await queueWebhookDeliveries(
        { jobs },
        await emitWebhookEvent({ db: t.db }, s.workspaceId, "contact.created", { id: marker }),
      );
      const [d] = await deliveries(s.endpointId);
      await t.db.execute(
        sql`update webhook_deliveries set created_at = now() - interval '11 minutes' where id = ${d!.id}`,
      );
      const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs, log: t.ctx.log };
      await handlerOf(requeueStrandedDeliveriesJob).handler({}, deps as JobDeps, { id: "s", retryCount: 0 });
      await handlerOf(requeueStrandedDeliveriesJob).handler({}, deps as JobDeps, { id: "s", retryCount: 0 });
      const queued = await t.db.execute<{ id: string }>(
        sql`select id from pgboss.job where name = ${deliverWebhookJob.name} and data->>'deliveryId' = ${d!.id}`,
      );
      expect(queued.map((r) => r.id)).toEqual([d!.id]);
      // and the sweep is scheduled every 5 minutes
      const [sched] = await boss.getSchedules(requeueStrandedDeliveriesJob.name);
      expect(sched).toMatchObject({ cron: "*/5 * * * *", timezone: "UTC" });
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });
});
