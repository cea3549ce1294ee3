import { avatarJobs } from "../features/avatar/avatar.jobs";
import { recoverCampaigns } from "../features/campaigns/campaigns.engine";
import { campaignsJobs } from "../features/campaigns/campaigns.jobs";
import { crmJobs } from "../features/crm/crm.jobs";
import { demoJobs } from "../features/demo/demo.jobs";
import { studioJobs } from "../features/studio/studio.jobs";
import { webhooksJobs } from "../features/webhooks/webhooks.jobs";
import type { AnyJobDefinition, JobDeps } from "./define";

/** Every job the worker runs; pg-boss creates a queue for each at boot. */
export const jobRegistry: AnyJobDefinition[] = [
  ...demoJobs,
  ...crmJobs,
  ...campaignsJobs,
  ...studioJobs,
  ...avatarJobs,
  ...webhooksJobs,
];

/**
 * Run once each time a worker process starts, after its pg-boss workers: recovery work that must not
 * wait for pg-boss to expire the jobs a killed worker held (e.g. re-arming campaign watchdogs).
 */
export const workerStartHooks: ((deps: JobDeps) => Promise<unknown>)[] = [recoverCampaigns];
