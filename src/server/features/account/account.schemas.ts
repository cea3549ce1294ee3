import { z } from "zod";

/** The word a person types to confirm deleting their account (as Mailchimp and GitHub ask). */
export const DELETE_ACCOUNT_WORD = "DELETE";

/**
 * Settings > Workspace > Delete workspace: the owner's current password, the workspace's name, typed,
 * and the id of the workspace the dialog showed (`workspace_id`). The id binds the confirmation to that
 * workspace: a second click that arrives after the first deleted it would otherwise act on the
 * session's next workspace (the one it falls back to, or the new empty one a person whose only
 * workspace it was gets, which has the same name).
 */
export const deleteWorkspaceInput = z.strictObject({
  workspace_id: z.string().max(100),
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
