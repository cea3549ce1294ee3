import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/**
 * Hourly (minute 17, UTC): deletes the API's idempotency records older than 24 hours
 * (api.service IDEMPOTENCY_TTL_HOURS, Stripe's rule). The work is in api.handlers.ts.
 */
export const pruneIdempotencyKeysJob = defineJob({
  name: "api.prune-idempotency-keys",
  schema: z.object({}),
  cron: "17 * * * *",
  options: { retryLimit: 1, retryDelay: 60, expireInSeconds: 600 },
});
