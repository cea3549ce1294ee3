import { z } from "zod";

/** The word a person types to confirm deleting their account (as Mailchimp and GitHub ask). */
export const DELETE_ACCOUNT_WORD = "DELETE";

/** Settings > Workspace > Delete workspace: the owner's current password and the workspace's name, typed. */
export const deleteWorkspaceInput = z.strictObject({
  password: z.string().max(1000),
  confirm_name: z.string().max(200),
});
export type DeleteWorkspaceInput = z.infer<typeof deleteWorkspaceInput>;

/** Settings > Profile > Delete account: the current password and DELETE_ACCOUNT_WORD, typed. */
export const deleteAccountInput = z.strictObject({
  password: z.string().max(1000),
  confirm: z.string().max(50),
});
export type DeleteAccountInput = z.infer<typeof deleteAccountInput>;
