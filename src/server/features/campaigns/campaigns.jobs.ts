import type { AnyJobDefinition } from "../../jobs/define";

/** pg-boss jobs of the campaigns feature. */
export const campaignsJobs: AnyJobDefinition[] = [];
