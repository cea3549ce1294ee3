import type { AnyJobDefinition } from "../../jobs/define";

/** pg-boss jobs of the studio feature. */
export const studioJobs: AnyJobDefinition[] = [];
