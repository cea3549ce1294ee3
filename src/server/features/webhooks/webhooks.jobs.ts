import { z } from "zod";
import { type AnyJobDefinition, defineJob } from "../../jobs/define";
import { DELIVERY_RETRY_DELAY_S, DELIVERY_RETRY_LIMIT, deliverWebhook } from "./webhooks.deliver";

/**
 * One webhook delivery attempt per job; pg-boss retries with exponential backoff
 * (40 s, 80 s, ... about 23 hours over 11 retries), at least once per (endpoint, event).
 */
export const deliverWebhookJob = defineJob({
  name: "webhooks.deliver",
  schema: z.object({ deliveryId: z.uuid() }),
  handler: (data, deps, meta) => deliverWebhook(deps, data.deliveryId, meta),
  options: {
    retryLimit: DELIVERY_RETRY_LIMIT,
    retryDelay: DELIVERY_RETRY_DELAY_S,
    retryBackoff: true,
    expireInSeconds: 120,
    batchSize: 8,
    localConcurrency: 2,
  },
});

export const webhooksJobs: AnyJobDefinition[] = [deliverWebhookJob];
