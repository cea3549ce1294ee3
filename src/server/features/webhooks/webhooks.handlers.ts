import { defineHandler } from "../../jobs/define";
import { deliverWebhook } from "./webhooks.deliver";
import { deliverWebhookJob, requeueStrandedDeliveriesJob } from "./webhooks.jobs";
import { requeueStrandedDeliveries } from "./webhooks.service";

const deliverWebhookHandler = defineHandler(deliverWebhookJob, {
  handler: (data, deps, meta) => deliverWebhook(deps, data.deliveryId, meta),
});

const requeueStrandedDeliveriesHandler = defineHandler(requeueStrandedDeliveriesJob, {
  handler: async (_data, deps) => {
    const queued = await requeueStrandedDeliveries(deps);
    if (queued) deps.log.warn({ queued }, "queued stranded webhook deliveries again");
  },
});

/** The webhooks feature's job handlers (registered by src/server/jobs/registry.ts). */
export const webhooksHandlers = [deliverWebhookHandler, requeueStrandedDeliveriesHandler];
