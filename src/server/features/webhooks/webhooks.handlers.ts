import { defineHandler } from "../../jobs/define";
import { deliverWebhook } from "./webhooks.deliver";
import { deliverWebhookJob } from "./webhooks.jobs";

const deliverWebhookHandler = defineHandler(deliverWebhookJob, {
  handler: (data, deps, meta) => deliverWebhook(deps, data.deliveryId, meta),
});

/** The webhooks feature's job handlers (registered by src/server/jobs/registry.ts). */
export const webhooksHandlers = [deliverWebhookHandler];
