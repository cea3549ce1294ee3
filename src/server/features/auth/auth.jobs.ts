import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/** The two kinds of single-use account links (the `auth_tokens.purpose` values). */
export const ACCOUNT_LINK_PURPOSES = ["password_reset", "email_verification"] as const;
export type AccountLinkPurpose = (typeof ACCOUNT_LINK_PURPOSES)[number];

/**
 * Emails a single-use account link to the user's current address: a password reset (valid 1 hour)
 * or an email verification (valid 7 days). The handler (auth.handlers.ts) makes the random token
 * itself and stores only its SHA-256, so the raw token is never in the job queue.
 */
export const sendAccountLinkJob = defineJob({
  name: "auth.send-account-link",
  schema: z.object({ userId: z.string().uuid(), purpose: z.enum(ACCOUNT_LINK_PURPOSES) }),
  options: { retryLimit: 3 },
});
