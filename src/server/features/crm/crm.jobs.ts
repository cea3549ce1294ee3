import type { AnyJobDefinition } from "../../jobs/define";

/** pg-boss jobs of the crm feature. */
export const crmJobs: AnyJobDefinition[] = [];
