import type { AppContext } from "../../context";
import type { User } from "../../db/schema";
import { AppError } from "../../lib/errors";
import {
  endSubscriptionAfterDeletion,
  endSubscriptionForDeletion,
  rememberDeletedWorkspace,
} from "../billing/billing.service";
import { stopCampaignsForDeletion } from "../campaigns/campaigns.service";
import { importFilesCleanupForDeletion } from "../crm/crm.service";
import { mediaFilesCleanupForDeletion } from "../studio/studio.service";
import { confirmPasswordForDeletion, deleteUserAccount, getUserProfiles } from "../user/user.service";
import { endMemberAccess } from "../workspaces/workspaces.departure";
import {
  type AccountMembership,
  abandonWorkspaceDeletion,
  assertCan,
  assertDeletingActiveWorkspace,
  beginWorkspaceDeletion,
  deleteOwnedWorkspace,
  leaveWorkspace,
  listAccountMemberships,
  type Tenant,
} from "../workspaces/workspaces.service";
import { DELETE_ACCOUNT_WORD, type DeleteAccountInput, type DeleteWorkspaceInput } from "./account.schemas";

// Deleting a workspace or a whole account: the one place that reaches every feature holding a
// workspace's data or money (billing, campaigns, CRM imports, the media library, API keys) through
// their services, so none of them has to know about the others. Nothing here imports this feature
// but its router.

/** What deleting the signed-in account would do to each of its workspaces (Settings > Profile). */
export interface AccountDeletionPreview {
  /** owned workspaces with other members: the account cannot be deleted until each is handed over or deleted */
  blocking: { id: string; name: string; other_members: number }[];
  /** owned workspaces nobody else is in: deleted with the account (subscription ended, data and files removed) */
  deleted: { id: string; name: string; plan: string; subscribed: boolean }[];
  /** workspaces the account is a member of: it leaves them (its API keys there are revoked) */
  left: { id: string; name: string; role: string }[];
}

/**
 * What deleting the account does to one of its workspaces: an owned one with other members blocks it,
 * an owned one without is deleted, any other is left.
 */
function fateOf(m: AccountMembership): "blocks" | "deleted" | "left" {
  if (m.tenant.role !== "owner") return "left";
  return m.otherMembers > 0 ? "blocks" : "deleted";
}

/**
 * What deleting `userId`'s account would do, workspace by workspace (AccountDeletionPreview); read
 * again by deleteAccount itself, so a preview that went stale changes nothing.
 */
export async function accountDeletionPreview(
  ctx: Pick<AppContext, "db">,
  userId: string,
): Promise<AccountDeletionPreview> {
  const preview: AccountDeletionPreview = { blocking: [], deleted: [], left: [] };
  for (const m of await listAccountMemberships(ctx, userId)) {
    const { workspace: w, role } = m.tenant;
    const fate = fateOf(m);
    if (fate === "left") preview.left.push({ id: w.id, name: w.name, role });
    else if (fate === "blocks")
      preview.blocking.push({ id: w.id, name: w.name, other_members: m.otherMembers });
    else
      preview.deleted.push({
        id: w.id,
        name: w.name,
        plan: w.plan,
        subscribed: Boolean(w.stripeSubscriptionId) && w.subscriptionStatus !== "canceled",
      });
  }
  return preview;
}

/**
 * Deletes a workspace the caller owns, with everything in it, in this order (each step's failure
 * stops the rest): it is marked as being deleted, so no invitation is accepted into it meanwhile
 * (workspaces beginWorkspaceDeletion, which with `soloOnly` also refuses it when someone else is a
 * member; a later failure clears the mark); its subscription ends now at the payments vendor
 * (billing endSubscriptionForDeletion: a vendor outage deletes nothing); its unfinished campaigns are
 * cancelled, each once nothing of it is on its way to a provider (campaigns
 * stopCampaignsForDeletion); the row goes under the workspace lock with the ownership re-read
 * (workspaces deleteOwnedWorkspace), billing remembering its customer and subscription in the same
 * transaction (rememberDeletedWorkspace: a checkout paid later for it is ended and refunded), taking
 * its contacts, campaigns, media rows, keys, webhooks and invitations (ON DELETE CASCADE); then a
 * subscription a checkout made while this ran is ended (billing endSubscriptionAfterDeletion) and
 * the stored files of its imports, campaigns and media library are removed (a storage failure is
 * logged, leaving orphan files, never undeleted data). Returns the other members' user ids it had.
 * @throws AppError FORBIDDEN (not the owner), CONFLICT (`soloOnly`), BAD_GATEWAY (payments vendor).
 */
async function purgeWorkspace(ctx: AppContext, tenant: Tenant, opts: { soloOnly?: boolean }) {
  await beginWorkspaceDeletion(ctx, tenant, opts);
  let otherMemberIds: string[];
  let cleanups: (() => Promise<void>)[];
  let ended: string | null;
  try {
    ended = await endSubscriptionForDeletion(ctx, tenant.workspaceId);
    const cleanCampaigns = await stopCampaignsForDeletion(ctx, tenant.workspaceId);
    const cleanImports = await importFilesCleanupForDeletion(ctx, tenant.workspaceId);
    const cleanMedia = mediaFilesCleanupForDeletion(ctx, tenant.workspaceId);
    ({ otherMemberIds } = await deleteOwnedWorkspace(ctx, tenant, opts, rememberDeletedWorkspace));
    cleanups = [cleanCampaigns, cleanImports, cleanMedia];
  } catch (err) {
    await abandonWorkspaceDeletion(ctx, tenant.workspaceId).catch((e) =>
      ctx.log.warn({ err: e, workspaceId: tenant.workspaceId }, "a deletion mark was not cleared"),
    );
    throw err;
  }
  await endSubscriptionAfterDeletion(ctx, tenant.workspaceId, ended);
  for (const clean of cleanups) await clean();
  ctx.log.info({ workspaceId: tenant.workspaceId, by: tenant.userId }, "workspace deleted");
  return otherMemberIds;
}

/**
 * Settings > Workspace > Delete workspace (owner only): deletes the active workspace and everything
 * in it (purgeWorkspace), when it is the workspace the dialog showed (`workspace_id`,
 * workspaces assertDeletingActiveWorkspace), after the owner typed its name (compared after trimming, case and all) and
 * their current password (user confirmPasswordForDeletion: rate-limited as a password change, so a
 * stolen session cannot delete a workspace; `user` is the signed-in owner).
 * Its other members lose access at once (their sessions fall back to another workspace of theirs,
 * resolveTenant) and each gets an email saying who deleted it. A person whose only workspace this was
 * gets a new empty one on their next request (resolveTenant), as after leaving their last. Returns
 * `{ success, deleted: {id, name}, notified }` (how many members were emailed).
 * @throws AppError NOT_FOUND (`workspace_id` was deleted: a second click), CONFLICT (`workspace_id`
 *   is no longer the active workspace; a deletion of it already under way), FORBIDDEN (admins,
 *   members; a wrong password), BAD_REQUEST (the name does not match; no password),
 *   TOO_MANY_REQUESTS (password attempts), BAD_GATEWAY (the payments vendor could not end the
 *   subscription: nothing was deleted).
 */
export async function deleteWorkspace(
  ctx: AppContext,
  tenant: Tenant,
  user: User,
  input: DeleteWorkspaceInput,
  meta: { ip: string },
) {
  await assertDeletingActiveWorkspace(ctx, tenant, input.workspace_id);
  assertCan(tenant, "deleteWorkspace");
  const name = tenant.workspace.name.trim();
  // compared in Unicode NFC: an é typed as one character matches a name stored as e + accent
  if (input.confirm_name.trim().normalize("NFC") !== name.normalize("NFC"))
    throw new AppError("BAD_REQUEST", `Type the workspace's name, ${name}, exactly as it is to confirm.`);
  await confirmPasswordForDeletion(ctx, user, input.password, meta, "workspace");
  const others = await purgeWorkspace(ctx, tenant, {});
  const profiles = await getUserProfiles(ctx, [tenant.userId, ...others]);
  const by = profiles.get(tenant.userId)?.name ?? "The owner";
  let notified = 0;
  for (const id of others) {
    const p = profiles.get(id);
    if (!p) continue;
    try {
      await ctx.providers.email.send({
        to: p.email,
        subject: `${name} was deleted on Pitchwise`,
        text: `Hi ${p.name},\n\n${by} deleted the ${name} workspace on Pitchwise, with its contacts, campaigns and media. You no longer have access to it.\n\nYour Pitchwise account and your other workspaces are not affected.`,
        tag: "workspace-deleted",
      });
      notified++;
    } catch (err) {
      ctx.log.warn({ err, workspaceId: tenant.workspaceId }, "a workspace deletion notice was not sent");
    }
  }
  return { success: true as const, deleted: { id: tenant.workspaceId, name }, notified };
}

/** The account deletion email's sentence on the workspaces it deleted (none when it owned none). */
function ownedSentence(deleted: number): string {
  if (deleted === 0) return "";
  return deleted === 1
    ? " The workspace you owned was deleted with its contacts, campaigns and media, and any subscription ended."
    : ` The ${deleted} workspaces you owned were deleted with their contacts, campaigns and media, and any subscriptions ended.`;
}

/**
 * Settings > Profile > Delete account: after the person typed DELETE_ACCOUNT_WORD and their current
 * password (checked and rate-limited as a password change: user confirmPasswordForDeletion), deletes
 * the account. A workspace it owns with other members blocks it (CONFLICT naming them: hand it over in
 * Settings > Team or delete it first, as GitHub asks of organisation owners); each workspace it owns
 * alone is deleted (purgeWorkspace, soloOnly); it leaves the others (workspaces leaveWorkspace, its API
 * keys there revoked); then the user row goes with its sessions, links and memberships (user
 * deleteUserAccount; what it wrote elsewhere keeps a null author). A confirmation goes to the
 * account's address (logged if it cannot be sent). The caller clears the session cookie.
 * Returns `{ success, deleted_workspaces, left_workspaces }` (counts).
 * @throws AppError BAD_REQUEST (DELETE not typed, no password), FORBIDDEN (wrong password),
 *   TOO_MANY_REQUESTS, CONFLICT (owned workspaces with members), BAD_GATEWAY (payments vendor: the
 *   account and that workspace stay; workspaces deleted before it stay deleted, and trying again
 *   goes on from there).
 */
export async function deleteAccount(
  ctx: AppContext,
  user: User,
  input: DeleteAccountInput,
  meta: { ip: string },
) {
  if (input.confirm.trim() !== DELETE_ACCOUNT_WORD)
    throw new AppError(
      "BAD_REQUEST",
      `Type ${DELETE_ACCOUNT_WORD} to confirm that the account should be deleted.`,
    );
  await confirmPasswordForDeletion(ctx, user, input.password, meta, "account");
  const memberships = await listAccountMemberships(ctx, user.id);
  const blocking = memberships.filter((m) => fateOf(m) === "blocks");
  if (blocking.length > 0) {
    const names = blocking.map((m) => m.tenant.workspace.name).join(", ");
    throw new AppError(
      "CONFLICT",
      `You own ${names}, which ${blocking.length === 1 ? "has" : "have"} other members. Transfer ${blocking.length === 1 ? "its" : "their"} ownership (Settings > Team) or delete ${blocking.length === 1 ? "it" : "them"} (Settings > Workspace) first.`,
    );
  }
  let deleted = 0;
  let left = 0;
  for (const m of memberships) {
    const { tenant } = m;
    if (fateOf(m) === "deleted") {
      await purgeWorkspace(ctx, tenant, { soloOnly: true });
      deleted++;
    } else {
      await leaveWorkspace(ctx, tenant, endMemberAccess);
      left++;
    }
  }
  await deleteUserAccount(ctx, user.id);
  ctx.log.info({ userId: user.id, deleted, left }, "account deleted");
  try {
    await ctx.providers.email.send({
      to: user.email,
      subject: "Your Pitchwise account was deleted",
      text: `Hi ${user.name},\n\nYour Pitchwise account (${user.email}) was deleted, as you asked.${ownedSentence(deleted)}\n\nIf this wasn't you, reply to this email at once.`,
      tag: "account-deleted",
    });
  } catch (err) {
    ctx.log.warn({ err, userId: user.id }, "the account deletion confirmation was not sent");
  }
  return { success: true as const, deleted_workspaces: deleted, left_workspaces: left };
}
