import { type AnyJobDefinition, defineHandler } from "../../jobs/define";
import { sendAccountLinkJob } from "./auth.jobs";
import { sendAccountLink } from "./auth.service";

/** Emails a password-reset or verification link (token made here, only its hash stored). */
const sendAccountLinkHandler = defineHandler(sendAccountLinkJob, {
  handler: async ({ userId, purpose }, deps) => {
    await sendAccountLink(deps, userId, purpose);
  },
});

/** The auth feature's job handlers (worker registry). */
export const authHandlers: AnyJobDefinition[] = [sendAccountLinkHandler];
