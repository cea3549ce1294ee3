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
