import { avatarJobs } from "../features/avatar/avatar.jobs";
import { campaignsJobs } from "../features/campaigns/campaigns.jobs";
import { crmJobs } from "../features/crm/crm.jobs";
import { demoJobs } from "../features/demo/demo.jobs";
import { studioJobs } from "../features/studio/studio.jobs";
import type { AnyJobDefinition } from "./define";

/** Every job the worker runs; pg-boss creates a queue for each at boot. */
export const jobRegistry: AnyJobDefinition[] = [
  ...demoJobs,
  ...crmJobs,
  ...campaignsJobs,
  ...studioJobs,
  ...avatarJobs,
];
