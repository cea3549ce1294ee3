import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/**
 * Polls (vendor) or renders (local) one avatar video, poll number `attempt`; the work is in
 * avatar.handlers.ts. A job whose `attempt` is not the row's `attempts` is a stale duplicate.
 */
export const pollAvatarVideoJob = defineJob({
  name: "avatar.poll-video",
  schema: z.object({
    avatarVideoId: z.string().uuid(),
    /** which poll this is: must equal the row's `attempts`, else the job is a stale duplicate */
    attempt: z.number().int().min(0),
  }),
  options: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 900, localConcurrency: 2 },
});
