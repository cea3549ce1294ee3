import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeGoogleContentJob } from "../../src/server/features/leads/leads.jobs";
import {
  DELIVERY_RETRY_DELAY_MAX_S,
  DELIVERY_RETRY_DELAY_S,
  DELIVERY_RETRY_LIMIT,
  deliverWebhookJob,
} from "../../src/server/features/webhooks/webhooks.jobs";
import { handlerOf } from "../../src/server/jobs/registry";
import { startBoss } from "../../src/server/jobs/worker";
import { createTestApp, type TestApp } from "../helpers";

/**
 * The webhook delivery queue's retry schedule as pg-boss stores and applies it (issue 15: retries
 * over about a day). The definitions are the worker registry's own (handlerOf); only these two are
 * booted so the shared test database does not get every periodic schedule.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("webhooks.deliver retry schedule on pg-boss", () => {
  it("startBoss stores the 12 h cap (also on a queue created with the old 300 s), and a late retry waits ~11-12 h", async () => {
    const registry = [handlerOf(deliverWebhookJob), handlerOf(purgeGoogleContentJob)];
    let boss = await startBoss(t.env.DATABASE_URL!, registry, { max: 2 });
    // a database whose queue was created by the old code
    await boss.updateQueue(deliverWebhookJob.name, { retryBackoff: true, retryDelayMax: 300 });
    expect(await boss.getQueue(deliverWebhookJob.name)).toMatchObject({ retryDelayMax: 300 });
    await boss.stop({ graceful: false, timeout: 2000 });
    boss = await startBoss(t.env.DATABASE_URL!, registry, { max: 2 });
    try {
      expect(await boss.getQueue(deliverWebhookJob.name)).toMatchObject({
        retryLimit: DELIVERY_RETRY_LIMIT,
        retryDelay: DELIVERY_RETRY_DELAY_S,
        retryBackoff: true,
        retryDelayMax: 12 * 60 * 60,
      });
      expect(DELIVERY_RETRY_DELAY_MAX_S).toBe(43_200);
      expect(await boss.getQueue(purgeGoogleContentJob.name)).toMatchObject({ retryDelayMax: 3600 });

      // a delivery failing its 11th attempt (retry count 10): pg-boss waits 40 s * 2^10 * (1 + random), capped
      const id = randomUUID();
      await boss.send(deliverWebhookJob.name, { deliveryId: randomUUID() }, { id });
      await t.db.execute(sql`update pgboss.job set retry_count = 10 where id = ${id}`);
      const before = Date.now();
      await boss.fail(deliverWebhookJob.name, id, { message: "HTTP 503" });
      const job = await boss.getJobById(deliverWebhookJob.name, id);
      expect(job).toMatchObject({ state: "retry", retryCount: 10, retryDelayMax: 43_200 });
      const waitS = (job!.startAfter.getTime() - before) / 1000;
      expect(waitS).toBeGreaterThanOrEqual(40_960 - 5);
      expect(waitS).toBeLessThanOrEqual(43_200 + 5);
      await boss.deleteJob(deliverWebhookJob.name, id);
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });
});
