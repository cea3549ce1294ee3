import { defineHandler, PermanentJobError } from "../../jobs/define";
import { ProviderError } from "../../providers/errors";
import { getUserProfiles } from "../user/user.service";
import { syncCustomerEmailJob, usageWarningJob } from "./billing.jobs";
import { limitUnits, PLANS } from "./billing.plans";
import * as q from "./billing.queries";
import { effectivePlan, syncCustomerEmail } from "./billing.service";

/**
 * `billing.send-usage-warning`: emails the workspace owner that a meter reached 80 % of the plan's
 * monthly limit (spec section 2 FAQ, section 9), unless the owner turned email notifications off in
 * Settings > Preferences. Enqueued once per period and meter by `reserveUsage`.
 */

const usageWarningHandler = defineHandler(usageWarningJob, {
  async handler(data, deps) {
    const ws = await q.findBillingWorkspace(deps.db, data.workspaceId);
    if (!ws) return;
    const owner = (await getUserProfiles(deps, [ws.ownerId])).get(ws.ownerId);
    if (!owner || owner.preferences?.emailNotifications === false) return;
    const plan = PLANS[effectivePlan(ws)];
    const words = limitUnits(data.meter);
    const pct = Math.floor((data.used / data.limit) * 100);
    const url = `${deps.env.APP_URL}/pricing`;
    await deps.providers.email.send({
      to: owner.email,
      subject: `You have used ${pct}% of your ${words} this month`,
      text:
        `Hi ${owner.name},\n\n${ws.name} has used ${data.used.toLocaleString("en-US")} of the ` +
        `${data.limit.toLocaleString("en-US")} ${words} your ${plan.name} plan includes this billing period. ` +
        `When the limit is reached, new ${words} are refused until the next period or an upgrade.\n\n` +
        `Compare plans: ${url}\n`,
      tag: "usage-warning",
      workspaceId: ws.id,
      metadata: { kind: "usage-warning", meter: data.meter },
    });
  },
});

/**
 * `billing.sync-customer-email` (billing.jobs.ts): the vendor customer's email follows the owner. A
 * transient vendor failure throws (the queue retries it); a refusal (ProviderError not transient,
 * e.g. Stripe's 404 for a customer deleted in its dashboard) will not change by asking again: logged
 * and failed at once (PermanentJobError).
 */
const syncCustomerEmailHandler = defineHandler(syncCustomerEmailJob, {
  async handler(data, deps) {
    try {
      await syncCustomerEmail(deps, data);
    } catch (err) {
      if (err instanceof ProviderError && !err.transient) {
        deps.log.warn(
          { err, ...data },
          "billing customer email not updated: the payments provider refused it",
        );
        throw new PermanentJobError(err.message);
      }
      throw err;
    }
  },
});

/** The billing feature's job handlers (registered by src/server/jobs/registry.ts). */
export const billingHandlers = [usageWarningHandler, syncCustomerEmailHandler];
