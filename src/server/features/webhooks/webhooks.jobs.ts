import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/** Retries of a delivery after its first attempt (issue 15: about a day, at least once per (endpoint, event)). */
export const DELIVERY_RETRY_LIMIT = 11;
/** Seconds before the first retry; each later wait doubles (pg-boss backoff). */
export const DELIVERY_RETRY_DELAY_S = 40;
/** Seconds: the longest single wait (12 hours). Without it startBoss's 300 s default ends the schedule in ~45 minutes. */
export const DELIVERY_RETRY_DELAY_MAX_S = 12 * 60 * 60;

/**
 * One webhook delivery attempt per job; pg-boss retries with exponential backoff. Retry k
 * (k = 1..11) waits `min(12 h, 40 s * 2^(k-1) * (1 + random))`: 40-80 s, 80-160 s, ..., the 11th
 * 40,960-43,200 s (11.4-12 h). From the first attempt to the 12th and last: at least
 * 40 * (2^11 - 1) = 81,880 s (22.7 h), at most 80 * (2^10 - 1) + 43,200 = 125,040 s (34.7 h),
 * about 29 h on average, plus the attempts' own time (WEBHOOK_TIMEOUT_MS each at most).
 * The job id is the delivery id (the stranded sweep relies on it). The work is in webhooks.handlers.ts.
 */
export const deliverWebhookJob = defineJob({
  name: "webhooks.deliver",
  schema: z.object({ deliveryId: z.uuid() }),
  options: {
    retryLimit: DELIVERY_RETRY_LIMIT,
    retryDelay: DELIVERY_RETRY_DELAY_S,
    retryBackoff: true,
    retryDelayMax: DELIVERY_RETRY_DELAY_MAX_S,
    expireInSeconds: 120,
    // 2 fetch loops of 16 deliveries, each fetch's deliveries POSTed concurrently (startWorkers): up
    // to 32 in flight per worker process, with no more idle polling than 2 loops (every 0.5 s each)
    batchSize: 16,
    localConcurrency: 2,
    pollingIntervalSeconds: 0.5,
  },
});

/**
 * Minutes a delivery may wait unattempted before the sweep queues it again (its job was never stored:
 * the process stopped after the change and its event committed, before queueWebhookDeliveries). With
 * the sweep every 5 minutes, such a delivery goes out 10 to 15 minutes late, against a retry schedule
 * of about a day; in the normal path the job is queued right after the commit. Counted from the
 * delivery's created_at, the start of the transaction that stored it.
 */
export const STRANDED_DELIVERY_MINUTES = 10;

/**
 * Every 5 minutes: queues again the deliveries that were stored but never attempted for
 * STRANDED_DELIVERY_MINUTES (a process that stopped between committing an event's deliveries and
 * queueing their jobs). Delivery jobs carry the delivery's id as their job id, so a delivery whose
 * job exists is not queued twice. The work is in webhooks.handlers.ts.
 */
export const requeueStrandedDeliveriesJob = defineJob({
  name: "webhooks.requeue-stranded-deliveries",
  schema: z.object({}),
  cron: "*/5 * * * *",
  options: { retryLimit: 1, retryDelay: 60, expireInSeconds: 600 },
});
