import type { AnyJobDefinition } from "../../jobs/define";

/** pg-boss jobs of the avatar feature. */
export const avatarJobs: AnyJobDefinition[] = [];
