import { apiHandlers } from "../features/api/api.handlers";
import { authHandlers } from "../features/auth/auth.handlers";
import { avatarHandlers } from "../features/avatar/avatar.handlers";
import { billingHandlers } from "../features/billing/billing.handlers";
import { recoverCampaigns } from "../features/campaigns/campaigns.engine";
import { campaignsHandlers } from "../features/campaigns/campaigns.handlers";
import { crmHandlers } from "../features/crm/crm.handlers";
import { dashboardHandlers } from "../features/dashboard/dashboard.handlers";
import { demoHandlers } from "../features/demo/demo.handlers";
import { leadsHandlers } from "../features/leads/leads.handlers";
import { studioHandlers } from "../features/studio/studio.handlers";
import { webhooksHandlers } from "../features/webhooks/webhooks.handlers";
import type { JobContract } from "./contract";
import type { AnyJobDefinition, JobDeps } from "./define";

/**
 * Every job the worker runs (contract + handler); pg-boss creates a queue for each at boot. The only
 * module outside the features that imports their `<feature>.handlers.ts` (npm run check:deps).
 */
export const jobRegistry: AnyJobDefinition[] = [
  ...authHandlers,
  ...apiHandlers,
  ...demoHandlers,
  ...crmHandlers,
  ...campaignsHandlers,
  ...studioHandlers,
  ...avatarHandlers,
  ...billingHandlers,
  ...webhooksHandlers,
  ...leadsHandlers,
  ...dashboardHandlers,
];

/**
 * The registered definition (with its handler) of a job contract, for scripts and tests that run one
 * job's work directly.
 * @throws Error when no handler is registered under the contract's name.
 */
export function handlerOf(job: JobContract): AnyJobDefinition {
  const def = jobRegistry.find((d) => d.name === job.name);
  if (!def) throw new Error(`No handler is registered for the job ${job.name}`);
  return def;
}

/**
 * Run once each time a worker process starts, after its pg-boss workers: recovery work that must not
 * wait for pg-boss to expire the jobs a killed worker held (e.g. re-arming campaign watchdogs).
 */
export const workerStartHooks: ((deps: JobDeps) => Promise<unknown>)[] = [recoverCampaigns];
