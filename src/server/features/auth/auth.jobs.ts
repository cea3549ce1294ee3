import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/**
 * The two kinds of single-use account links sendAccountLinkJob sends (`auth_tokens.purpose` values;
 * the third purpose, EMAIL_RECOVERY_PURPOSE, is made by sendEmailChangedNoticeJob).
 */
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

/**
 * `POST /api/auth/forgot-password`'s work: emails a password-reset link to the account of `email`
 * when there is one, else nothing. Queued for every address the limits let through, so the request
 * does the same work whether or not the account exists (no timing difference to probe addresses with).
 */
export const sendPasswordResetJob = defineJob({
  name: "auth.send-password-reset",
  schema: z.object({ email: z.string().email().max(320) }),
  options: { retryLimit: 3 },
});

/**
 * `auth_tokens.purpose` of the "this wasn't me" link in the email-changed notice: restores the
 * previous address (valid 7 days). Its `email` is the previous address, its `created_at` the moment
 * of the change.
 */
export const EMAIL_RECOVERY_PURPOSE = "email_recovery";

/**
 * After an account's email address changed (Settings > Profile): tells the previous address, so the
 * owner learns of a change they did not make, with a single-use recovery link (the handler makes
 * the token, so no secret is queued). Carries both addresses and `changedAt` (ISO 8601, when the
 * change was saved: a recovery revokes the API keys created since).
 */
export const sendEmailChangedNoticeJob = defineJob({
  name: "auth.send-email-changed-notice",
  schema: z.object({
    userId: z.string().uuid(),
    oldEmail: z.string().email().max(320),
    newEmail: z.string().email().max(320),
    changedAt: z.iso.datetime().optional(),
    /**
     * The id of the recovery link's row, stored when the change was saved (followEmailChange) so the
     * old address is held for its owner from that moment; the handler gives it the token's hash.
     * Absent in jobs queued before: the handler stores a new row.
     */
    linkId: z
      .string()
      .regex(/^pending-[0-9a-f]{40}$/)
      .optional(),
  }),
  options: { retryLimit: 3 },
});

/**
 * Minutes an email change's recovery row may stay pending (its notice job never stored: the process
 * stopped between the change's commit and queueing the notice) before the sweep queues the notice.
 * With the sweep every 5 minutes, such a notice goes out 10 to 15 minutes late; in the normal path
 * it is queued right after the commit. Counted from the row's created_at, the moment of the change.
 */
export const STRANDED_NOTICE_MINUTES = 10;

/**
 * Every 5 minutes: queues the email-changed notice of every change whose recovery row is still
 * pending STRANDED_NOTICE_MINUTES after it was saved (auth.service sendStrandedEmailChangeNotices).
 * A notice job's id derives from its recovery row's id, so a notice whose job exists is not queued
 * twice. The work is in auth.handlers.ts.
 */
export const sendStrandedEmailChangeNoticesJob = defineJob({
  name: "auth.send-stranded-email-change-notices",
  schema: z.object({}),
  cron: "*/5 * * * *",
  options: { retryLimit: 1, retryDelay: 60, expireInSeconds: 600 },
});
