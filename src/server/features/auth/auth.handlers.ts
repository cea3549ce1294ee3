import { type AnyJobDefinition, defineHandler } from "../../jobs/define";
import {
  sendAccountLinkJob,
  sendEmailChangedNoticeJob,
  sendPasswordResetJob,
  sendStrandedEmailChangeNoticesJob,
} from "./auth.jobs";
import {
  sendAccountLink,
  sendEmailChangedNotice,
  sendPasswordResetTo,
  sendStrandedEmailChangeNotices,
} from "./auth.service";

/** Emails a password-reset or verification link (token made here, only its hash stored). */
const sendAccountLinkHandler = defineHandler(sendAccountLinkJob, {
  handler: async ({ userId, purpose }, deps) => {
    await sendAccountLink(deps, userId, purpose);
  },
});

/** Emails a password-reset link to the account of an address, if there is one. */
const sendPasswordResetHandler = defineHandler(sendPasswordResetJob, {
  handler: async ({ email }, deps) => {
    await sendPasswordResetTo(deps, email);
  },
});

/** Tells an account's previous address that its email was changed. */
const sendEmailChangedNoticeHandler = defineHandler(sendEmailChangedNoticeJob, {
  handler: async (data, deps) => {
    await sendEmailChangedNotice(deps, data);
  },
});

/** Queues the email-changed notices a stopped process left unqueued (every 5 minutes). */
const sendStrandedEmailChangeNoticesHandler = defineHandler(sendStrandedEmailChangeNoticesJob, {
  handler: async (_data, deps) => {
    const queued = await sendStrandedEmailChangeNotices(deps);
    if (queued) deps.log.warn({ queued }, "queued stranded email-changed notices");
  },
});

/** The auth feature's job handlers (worker registry). */
export const authHandlers: AnyJobDefinition[] = [
  sendAccountLinkHandler,
  sendPasswordResetHandler,
  sendEmailChangedNoticeHandler,
  sendStrandedEmailChangeNoticesHandler,
];
