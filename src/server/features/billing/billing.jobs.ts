import { z } from "zod";
import type { AppContext } from "../../context";
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

/**
 * `billing.sync-customer-email`: sets the payments vendor customer's email (where Stripe sends
 * receipts, failed-payment emails and invoices, and what its billing portal shows) to the workspace
 * owner's current address (billing.service syncCustomerEmail). Payload `{ workspaceId }` after an
 * ownership transfer (workspaces' transferOwnership), `{ ownerId }` after an account's email address
 * changed (auth: profile update, email recovery): every workspace it owns that has a customer. It
 * carries no address: the owner's is read when the job runs, so a retry or jobs run out of order
 * still end on the current one. Enqueued after the change commits, so a vendor outage neither fails
 * nor undoes it: a transient vendor failure is retried with backoff (8 retries from 60 s; the
 * worker caps a wait at 5 minutes); a refusal (a customer the vendor no longer knows) fails the job
 * at once, logged as a warning.
 */
export const syncCustomerEmailJob = defineJob({
  name: "billing.sync-customer-email",
  schema: z.union([z.object({ workspaceId: z.string().uuid() }), z.object({ ownerId: z.string().uuid() })]),
  options: { retryLimit: 8, retryDelay: 60, retryBackoff: true },
});

/**
 * Queues `billing.sync-customer-email` for `target` after the change it follows has committed (an
 * ownership transfer: `{ workspaceId }`; an owner's email change: `{ ownerId }`). Never throws: the
 * change stands, so a queue failure is logged as a warning naming `after` (what changed, e.g. "an
 * ownership transfer"). The one place the two features (auth, workspaces) enqueue it.
 */
export async function queueCustomerEmailSync(
  ctx: Pick<AppContext, "jobs" | "log">,
  target: z.input<typeof syncCustomerEmailJob.schema>,
  after: string,
): Promise<void> {
  try {
    await ctx.jobs.send(syncCustomerEmailJob, target);
  } catch (err) {
    ctx.log.warn({ err, ...target }, `billing customer email sync not queued after ${after}`);
  }
}
