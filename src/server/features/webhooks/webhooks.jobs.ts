import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/** Retries of a delivery: 11, from 40 s doubling (about 23 hours in all), at least once per (endpoint, event). */
export const DELIVERY_RETRY_LIMIT = 11;
export const DELIVERY_RETRY_DELAY_S = 40;

/**
 * One webhook delivery attempt per job; pg-boss retries with exponential backoff
 * (40 s, 80 s, ... about 23 hours over 11 retries). The work is in webhooks.handlers.ts.
 */
export const deliverWebhookJob = defineJob({
  name: "webhooks.deliver",
  schema: z.object({ deliveryId: z.uuid() }),
  options: {
    retryLimit: DELIVERY_RETRY_LIMIT,
    retryDelay: DELIVERY_RETRY_DELAY_S,
    retryBackoff: true,
    expireInSeconds: 120,
    batchSize: 8,
    localConcurrency: 2,
  },
});

/** Minutes a delivery may wait unattempted before the sweep queues it again (its job was never stored). */
export const STRANDED_DELIVERY_MINUTES = 10;

/**
 * Every 5 minutes: queues again the deliveries that were stored but never attempted for
 * STRANDED_DELIVERY_MINUTES (a process that stopped between storing an event's deliveries and
 * queueing their jobs). Delivery jobs carry the delivery's id as their job id, so a delivery whose
 * job exists is not queued twice. The work is in webhooks.handlers.ts.
 */
export const requeueStrandedDeliveriesJob = defineJob({
  name: "webhooks.requeue-stranded-deliveries",
  schema: z.object({}),
  cron: "*/5 * * * *",
  options: { retryLimit: 1, retryDelay: 60, expireInSeconds: 600 },
});
