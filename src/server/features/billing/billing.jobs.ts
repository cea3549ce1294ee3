import { z } from "zod";
import { defineJob } from "../../jobs/contract";
import { METERS } from "./billing.plans";

/** Job contracts of the billing feature (what callers enqueue); the work is in billing.handlers.ts. */

/**
 * `billing.send-usage-warning`: emails the workspace owner that a meter reached 80 % of the plan's
 * monthly limit (spec section 9), unless the owner turned email notifications off. Enqueued once per
 * period and meter by `reserveUsage`.
 */
export const usageWarningJob = defineJob({
  name: "billing.send-usage-warning",
  schema: z.object({
    workspaceId: z.string().uuid(),
    meter: z.enum(METERS),
    used: z.number().int().nonnegative(),
    limit: z.number().int().positive(),
  }),
  options: { retryLimit: 3, retryDelay: 30, retryBackoff: true },
});
