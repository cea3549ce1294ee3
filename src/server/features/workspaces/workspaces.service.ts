import { sha256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import { RateLimiterRes } from "rate-limiter-flexible";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import type { UserPreferences, Workspace, WorkspaceRole } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { isUuid, randomToken } from "../../lib/ids";
import { maskEmail } from "../../lib/mask-email";
import {
  INVITE_EMAILS_PER_WORKSPACE_PER_DAY,
  INVITE_RESENDS_PER_DAY,
  type RateLimiter,
} from "../../lib/rate-limit";
import type { WorkspaceChanged } from "../../lib/shown-workspace";
import { queueCustomerEmailSync } from "../billing/billing.jobs";
import {
  assertPlanFeature,
  assertWithinPlan,
  effectivePlan,
  PLANS,
  planOf,
  planRefusalOf,
  withinPlan,
} from "../billing/billing.plans";
import { getUserProfiles } from "../user/user.service";
import * as q from "./workspaces.queries";
import type { InviteInput, WorkspaceSettingsInput } from "./workspaces.schemas";

/**
 * The acting person in the active workspace: what every tenant-scoped service needs.
 * `workspaceId` is the tenant every query filters by; `userId` is who acted (`created_by`).
 */
export interface Tenant {
  userId: string;
  workspaceId: string;
  role: WorkspaceRole;
  /** the active workspace's plan (free | professional | business | enterprise) */
  plan: string;
  workspace: Workspace;
}

/**
 * Refuses a request from a browser tab that shows another workspace than the session's active one
 * (`shownId`: the tab's SHOWN_WORKSPACE_HEADER or SHOWN_WORKSPACE_PARAM value; undefined or empty
 * when the caller sent none, as outside clients do, and then nothing is checked). The session's
 * workspace is shared by a browser's tabs: it changes when another tab switches workspace, and when
 * the person is removed from the workspace (resolveTenant falls back to another). Without this, the
 * stale tab's next action (an added contact, a launched campaign) would land in that other workspace
 * while the tab still names the first. Nothing has run when this throws.
 * `memberOfShown`: whether the person is still a member of the workspace the tab shows
 * (isMemberOfShownWorkspace, read by the auth hook only when the ids differ), undefined when the
 * caller did not read it; the refusal carries it so the tab offers to switch back only to a
 * workspace the person still belongs to.
 * @throws AppError CONFLICT "Your account is now working in ..." with `details.expose.workspace_changed`
 *   = {id, name} of the active workspace (shown-workspace WorkspaceChanged) and
 *   `details.expose.shown_workspace_member` = `memberOfShown` (null when not known).
 */
export function assertShownWorkspace(
  tenant: Tenant,
  shownId: string | undefined,
  memberOfShown?: boolean,
): void {
  if (!shownId || shownId === tenant.workspaceId) return;
  const active: WorkspaceChanged = { id: tenant.workspaceId, name: tenant.workspace.name };
  throw new AppError(
    "CONFLICT",
    `Your account is now working in ‘${active.name}’: the workspace was switched in another tab, or your access to the one this tab shows has ended. Nothing was changed. Reload the page to continue.`,
    { expose: { workspace_changed: active, shown_workspace_member: memberOfShown ?? null } },
  );
}

/**
 * For a request from a tab that shows workspace `shownId` while the session works in another
 * (assertShownWorkspace will refuse it): whether `userId` is still a member of `shownId` (false for a
 * malformed or unknown id: nothing about another workspace is revealed). Returns undefined, without a
 * query, when there is nothing to refuse (no `shownId`, or it is the active workspace): the auth hook
 * calls this on every request.
 */
export async function isMemberOfShownWorkspace(
  ctx: Pick<AppContext, "db">,
  tenant: Pick<Tenant, "workspaceId" | "userId">,
  shownId: string | undefined,
): Promise<boolean | undefined> {
  if (!shownId || shownId === tenant.workspaceId) return undefined;
  if (!isUuid(shownId)) return false;
  return (await q.findMembership(ctx.db, shownId, tenant.userId)) !== null;
}

/** Invite links live 7 days (issue 10). */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * What each role may do (issue 10 "Roles"): owner everything; admin everything but billing, deleting
 * the workspace and changing the owner; member works with contacts, media and campaigns but cannot
 * manage members, billing or API keys, or delete more than one contact at a time. Notes: anyone reads
 * them and edits or deletes their own; `editOthersNotes` lets owners and admins edit or delete anyone's
 * (HubSpot's and Pipedrive's rule for a shared contact record; crm.note-access canChangeNote).
 */
export const PERMISSIONS = {
  manageMembers: ["owner", "admin"],
  manageWorkspace: ["owner", "admin"],
  manageApiKeys: ["owner", "admin"],
  manageWebhooks: ["owner", "admin"],
  bulkDeleteContacts: ["owner", "admin"],
  editOthersNotes: ["owner", "admin"],
  manageBilling: ["owner"],
  deleteWorkspace: ["owner"],
  transferOwnership: ["owner"],
} as const satisfies Record<string, readonly WorkspaceRole[]>;
export type Permission = keyof typeof PERMISSIONS;

const DENIED: Record<Permission, string> = {
  manageMembers: "Only the workspace owner or an admin can manage team members.",
  manageWorkspace: "Only the workspace owner or an admin can change workspace settings.",
  manageApiKeys: "Only the workspace owner or an admin can manage API keys.",
  manageWebhooks: "Only the workspace owner or an admin can manage webhooks.",
  bulkDeleteContacts: "Only the workspace owner or an admin can delete more than one contact at a time.",
  editOthersNotes:
    "Only the note's author, the workspace owner or an admin can edit or delete a note someone else wrote.",
  manageBilling: "Only the workspace owner can manage billing.",
  deleteWorkspace: "Only the workspace owner can delete the workspace.",
  transferOwnership: "Only the workspace owner can transfer ownership.",
};

/** True when `role` may do `action`. */
export function can(role: WorkspaceRole, action: Permission): boolean {
  return (PERMISSIONS[action] as readonly WorkspaceRole[]).includes(role);
}

/** @throws AppError FORBIDDEN (403) with a sentence naming who may do it. */
export function assertCan(tenant: Pick<Tenant, "role">, action: Permission): void {
  if (!can(tenant.role, action)) throw new AppError("FORBIDDEN", DENIED[action]);
}

/** A role an invitation gives. */
export type InviteRole = Exclude<WorkspaceRole, "owner">;

/**
 * The roles a member with `role` may give by invitation (issue 10 "Roles": owners and admins manage
 * members and may invite admins or members; members invite no one). Checked when an invitation is
 * sent and again when it is accepted, against the sender's role at that moment: an invitation carries
 * its sender's authority only while they still have it, as an API key carries its creator's.
 */
export function invitableRoles(role: WorkspaceRole): readonly InviteRole[] {
  return can(role, "manageMembers") ? ["admin", "member"] : [];
}

/**
 * Auth's assertCanSend, handed in by the adapters (this feature cannot import auth, which imports
 * it): refuses a user whose email address is not verified from emailing anyone but themselves.
 * @throws AppError FORBIDDEN (auth's UNVERIFIED_SEND_MESSAGE).
 */
export type SendGate = (ctx: Pick<AppContext, "db">, userId: string, to: readonly string[]) => Promise<void>;

/**
 * What ends with a person's membership in features this one cannot import (they import it), handed
 * in by the adapters like SendGate: workspaces.departure endMemberAccess, which revokes the API keys
 * the person created in the workspace (api.service revokeKeysOfDepartingMember) and pauses the
 * campaigns they launched that are still scheduled (campaigns.departure). Called inside the removal's
 * or leave's transaction (`ctx.db` is it), after the membership row is gone, so both end in the same
 * commit.
 * Webhook endpoints the person created are not touched here: an endpoint belongs to the workspace
 * and carries no secret the person could use to read its data (its signing secret only signs what
 * the workspace sends to the URL). It still acts with its creator's authority: webhooks.service
 * creatorMayDeliver pauses one whose creator is no longer an owner or admin, until an owner or admin
 * re-enables it.
 */
export type MemberDepartureHook = (
  ctx: { db: DbOrTx },
  departure: { workspaceId: string; userId: string; reason: "removed" | "left" },
) => Promise<number>;

/**
 * Takes the workspace's row lock for the rest of transaction `tx`, then re-reads the acting person's
 * membership under it. `tenant.role` was read when the request began; a transfer, role change or
 * removal that committed since (a concurrent request) may have changed it, and without the lock two
 * transfers at once both passed the owner check and left two owners. Every write that depends on a
 * member's role takes the workspace lock first (invite, resend, revoke, role change, removal and
 * transfer through here; leave and accept take it themselves), so they run one after another per workspace
 * and each sees the roles the previous one left.
 * Returns the membership: the role and the workspace row as they are now.
 * @throws AppError NOT_FOUND when the workspace was deleted since the request began (a second click
 *   of Delete workspace); FORBIDDEN (the `action`'s sentence) when the person may no longer do `action`.
 */
async function lockAsActor(tx: DbOrTx, tenant: Tenant, action: Permission) {
  await q.lockWorkspace(tx, tenant.workspaceId);
  const m = await q.findMembership(tx, tenant.workspaceId, tenant.userId);
  if (!m && !(await q.findWorkspace(tx, tenant.workspaceId))) throw workspaceGone();
  if (!m || !can(m.role, action)) throw new AppError("FORBIDDEN", DENIED[action]);
  return m;
}

/** The membership of `userId` in the workspace. @throws AppError NOT_FOUND (also for a malformed id). */
async function memberOrNotFound(ctx: { db: DbOrTx }, workspaceId: string, userId: string) {
  const m = isUuid(userId) ? await q.findMembership(ctx.db, workspaceId, userId) : null;
  if (!m) throw new AppError("NOT_FOUND", "Member not found.");
  return m;
}

/** A pending (not accepted, not revoked) invite of the workspace. @throws AppError NOT_FOUND. */
async function pendingInviteOrNotFound(ctx: { db: DbOrTx }, workspaceId: string, inviteId: string) {
  const invite = isUuid(inviteId) ? await q.findInvite(ctx.db, workspaceId, inviteId) : null;
  if (!invite || invite.acceptedAt || invite.revokedAt)
    throw new AppError("NOT_FOUND", "Invitation not found");
  return invite;
}

function hashToken(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "workspace"
  );
}

/** The workspace as the API shows it in `GET /api/auth/me` and lists. */
export function toWorkspaceSummary(w: Workspace, role: WorkspaceRole) {
  return { id: w.id, name: w.name, role, plan: planOf(w.plan).id };
}

/** Full settings of a workspace (Settings > Workspace). */
export function toWorkspaceJson(w: Workspace, role: WorkspaceRole) {
  return {
    id: w.id,
    name: w.name,
    slug: w.slug,
    role,
    plan: planOf(w.plan).id,
    subscription_status: w.subscriptionStatus,
    logo_url: w.logoUrl,
    brand_color: w.brandColor,
    sender_name: w.senderName,
    postal_address: w.postalAddress,
    hide_branding: w.hideBranding,
    phone_country: w.phoneCountry,
    // the plan the workspace has now: an unpaid, paused or ended subscription counts as Free
    white_label_available: PLANS[effectivePlan(w)].features.whiteLabel,
    created_at: w.createdAt.toISOString(),
  };
}

/**
 * An account recovery (auth recoverEmail): revokes every pending invitation `userId` sent at or after
 * `since` (the undone email change), in every workspace, since whoever made the change may have
 * invited themselves in under another address. Accepted invitations are members now and are not
 * touched (an owner removes them in Settings > Team). `ctx.db` may be the recovery's transaction.
 * Returns how many were revoked.
 */
export async function revokeInvitesSentBySince(
  ctx: { db: DbOrTx },
  userId: string,
  since: Date,
): Promise<number> {
  return (await q.revokeInvitesSentBy(ctx.db, userId, { since })).length;
}

/**
 * After a member's email address changed to `email` (auth: a profile update, an email recovery):
 * revokes the pending invitations to that address in the workspaces the person is already a member
 * of. Such an invitation can no longer be accepted (they are a member) nor resent (409), so it would
 * only hold a seat until it expired. `ctx.db` may be the change's transaction. Returns how many were
 * revoked.
 */
export async function revokeInvitesToMemberAddress(
  ctx: { db: DbOrTx },
  userId: string,
  email: string,
): Promise<number> {
  return (await q.revokeInvitesToMember(ctx.db, userId, email)).length;
}

/**
 * Creates the user's personal workspace (owner membership). Its id is the user's id when
 * `sameIdAsUser` (registration), else random. Name: the business name, else "{name}'s workspace".
 */
export async function createWorkspace(
  ctx: { db: DbOrTx },
  owner: { id: string; name: string; businessName: string | null },
  opts: { sameIdAsUser?: boolean; name?: string } = {},
) {
  const name = opts.name?.trim() || owner.businessName?.trim() || `${owner.name}'s workspace`;
  return ctx.db.transaction(async (tx) => {
    const w = await q.insertWorkspace(tx, {
      ...(opts.sameIdAsUser ? { id: owner.id } : {}),
      name,
      slug: `${slugify(name)}-${randomToken(5)}`,
      ownerId: owner.id,
      senderName: owner.businessName?.trim() || null,
    });
    await q.insertMember(tx, { workspaceId: w.id, userId: owner.id, role: "owner" });
    return w;
  });
}

/**
 * Resolves the active workspace of a session. The session's workspace is used while the user is
 * still a member; otherwise (removed, or none chosen yet) the user's first membership (owned
 * workspaces first) becomes active and is stored on the session. A user with no membership left gets
 * a new personal workspace (one, also for concurrent requests: fallbackWorkspace), so a signed-in
 * person always has a tenant.
 * `membership`: the user's membership of `session.workspaceId` when the caller already read it in
 * the same query as the session (validateSessionToken: one round trip per signed-in request); null
 * means "not a member (any more)"; undefined means "not read", and it is looked up here.
 */
export async function resolveTenant(
  ctx: Pick<AppContext, "db">,
  session: { id: string; workspaceId: string | null },
  user: { id: string; name: string; businessName: string | null },
  membership?: { role: WorkspaceRole; workspace: Workspace } | null,
): Promise<Tenant> {
  if (session.workspaceId) {
    const m =
      membership === undefined ? await q.findMembership(ctx.db, session.workspaceId, user.id) : membership;
    if (m) return tenantOf(user.id, m);
  }
  const [first] = await q.listMemberships(ctx.db, user.id);
  const m = first ?? (await fallbackWorkspace(ctx, user));
  await q.setSessionWorkspace(ctx.db, session.id, m.workspace.id);
  session.workspaceId = m.workspace.id;
  return tenantOf(user.id, m);
}

/** `userId` acting in the workspace of membership `m` with its role. */
function tenantOf(userId: string, m: { role: WorkspaceRole; workspace: Workspace }): Tenant {
  return {
    userId,
    workspaceId: m.workspace.id,
    role: m.role,
    plan: m.workspace.plan,
    workspace: m.workspace,
  };
}

/**
 * The workspace of a user who has none left (they handed over their own and were removed, or left,
 * everywhere): their first membership if a concurrent request has just made one, else a new personal
 * workspace they own, named "{name}'s workspace" (fallbackWorkspaceName), not after their business as
 * the registration's is: that name is usually the lost workspace's, and an empty workspace under it
 * read as if its data had been wiped. Under the user's fallback-workspace lock, so the requests a page
 * sends at once (the app's queries, several tabs) make one workspace between them, not one each.
 */
async function fallbackWorkspace(
  ctx: Pick<AppContext, "db">,
  user: { id: string; name: string; businessName: string | null },
): Promise<{ workspace: Workspace; role: WorkspaceRole }> {
  return ctx.db.transaction(async (tx) => {
    await q.lockFallbackWorkspace(tx, user.id);
    const [first] = await q.listMemberships(tx, user.id);
    if (first) return first;
    const name = fallbackWorkspaceName(user.name);
    return { workspace: await createWorkspace({ db: tx }, user, { name }), role: "owner" };
  });
}

/** The name of a fallback workspace (fallbackWorkspace): "Olive Owner's workspace" ("My workspace" without a name). */
function fallbackWorkspaceName(personName: string): string {
  return personName.trim() ? `${personName.trim()}'s workspace` : "My workspace";
}

/** The user's workspaces as `[{id, name, role, plan}]` (owned first). */
export async function listUserWorkspaces(ctx: Pick<AppContext, "db">, userId: string) {
  return (await q.listMemberships(ctx.db, userId)).map((m) => toWorkspaceSummary(m.workspace, m.role));
}

/**
 * Makes `workspaceId` the session's active workspace.
 * @throws AppError NOT_FOUND when the user is not a member (the workspace's existence is not revealed).
 */
export async function switchWorkspace(
  ctx: Pick<AppContext, "db">,
  sessionId: string,
  userId: string,
  workspaceId: string,
) {
  const m = isUuid(workspaceId) ? await q.findMembership(ctx.db, workspaceId, userId) : null;
  if (!m) throw new AppError("NOT_FOUND", "Workspace not found.");
  await q.setSessionWorkspace(ctx.db, sessionId, workspaceId);
  return toWorkspaceSummary(m.workspace, m.role);
}

/**
 * Members of the active workspace, and (for owners and admins) its pending invites.
 * Shape: `{permissions, members: [{user_id, name, email, role, joined_at}], invites: [...], seats:
 * {used, limit, full}}`; `permissions` is what the caller's role may do here (PERMISSIONS, so the
 * Team screen never decides it from the role's name): `{manage_members, transfer_ownership,
 * leave_workspace, manage_members_refusal}`, the last the sentence a 403 would give (null when
 * allowed), shown to a member in place of the controls; `seats.used` counts members and pending
 * invitations for every role (as the seat check
 * does), also when `invites` is not shown (members); `seats.full` is true when the plan's seat check
 * (billing.plans withinPlan, the rule `invite` applies) would refuse one more invitation.
 */
export async function listMembers(ctx: Pick<AppContext, "db">, tenant: Tenant) {
  const rows = await q.listMembers(ctx.db, tenant.workspaceId);
  const profiles = await getUserProfiles(
    ctx,
    rows.map((r) => r.userId),
  );
  const invites = can(tenant.role, "manageMembers")
    ? await q.listPendingInvites(ctx.db, tenant.workspaceId)
    : [];
  // a member is not shown the invitations, but they hold seats all the same (countWorkspaceSeats)
  const pending = can(tenant.role, "manageMembers")
    ? invites.length
    : await q.countPendingInvites(ctx.db, tenant.workspaceId);
  const limit = PLANS[effectivePlan(tenant.workspace)].limits.seats;
  const manage = can(tenant.role, "manageMembers");
  return {
    permissions: {
      manage_members: manage,
      transfer_ownership: can(tenant.role, "transferOwnership"),
      // everyone but the owner (leaveWorkspace: the owner transfers ownership first)
      leave_workspace: tenant.role !== "owner",
      manage_members_refusal: manage ? null : DENIED.manageMembers,
    },
    members: rows.map((r) => ({
      user_id: r.userId,
      name: profiles.get(r.userId)?.name ?? "",
      email: profiles.get(r.userId)?.email ?? "",
      role: r.role,
      joined_at: r.joinedAt.toISOString(),
    })),
    invites: invites.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      expires_at: i.expiresAt.toISOString(),
      created_at: i.createdAt.toISOString(),
    })),
    seats: {
      used: rows.length + pending,
      limit,
      full: !withinPlan(tenant.workspace, "seats", 1, rows.length + pending),
    },
  };
}

/** What a resent invitation's email adds: its token replaced the earlier one's (resendInvite). */
const INVITE_REPLACES_EARLIER =
  "This invitation replaces the one sent earlier: the link in that email no longer works.";

/**
 * A role an invitation gives, in its email's sentence ("... on Pitchwise as an admin."), with what the
 * role may do: the invitee learns before accepting what they are joining as.
 */
const INVITE_ROLE_WORDS: Record<InviteRole, string> = {
  admin: "an admin (you can manage its team, settings, API keys and webhooks)",
  member: "a member (you can work with its contacts, media and campaigns)",
};

/**
 * Emails the invite link `APP_URL/invite/{token}` to `to`, signed by the inviting member, naming the
 * `role` it gives (INVITE_ROLE_WORDS). `resent`:
 * the invitation was sent before with another token (resendInvite), so the email says the earlier
 * email's link no longer works (INVITE_REPLACES_EARLIER).
 */
async function sendInviteEmail(
  ctx: Pick<AppContext, "db" | "providers" | "env">,
  tenant: Tenant,
  to: string,
  token: string,
  role: InviteRole,
  opts: { resent?: boolean } = {},
) {
  const inviterName = (await getUserProfiles(ctx, [tenant.userId])).get(tenant.userId)?.name ?? "A teammate";
  const workspaceName = tenant.workspace.name;
  const link = `${ctx.env.APP_URL}/invite/${token}`;
  const replaces = opts.resent ? `\n\n${INVITE_REPLACES_EARLIER}` : "";
  const replacesHtml = opts.resent ? `<p>${INVITE_REPLACES_EARLIER}</p>` : "";
  await ctx.providers.email.send({
    to,
    subject: `${inviterName} invited you to ${workspaceName} on Pitchwise`,
    text: `${inviterName} invited you to join the ${workspaceName} workspace on Pitchwise as ${INVITE_ROLE_WORDS[role]}.\n\nAccept the invitation: ${link}${replaces}\n\nThe link works once and expires in 7 days. If you did not expect this, ignore this email.`,
    html: `<p>${escapeHtml(inviterName)} invited you to join the <strong>${escapeHtml(workspaceName)}</strong> workspace on Pitchwise as ${INVITE_ROLE_WORDS[role]}.</p><p><a href="${link}">Accept the invitation</a></p>${replacesHtml}<p>The link works once and expires in 7 days. If you did not expect this, ignore this email.</p>`,
    tag: "workspace-invite",
  });
}

function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One point of `limiter` for `key`: null when taken, else how long (ms) until the window ends. */
async function tryConsume(limiter: RateLimiter, key: string): Promise<number | null> {
  try {
    await limiter.consume(key);
    return null;
  } catch (e) {
    if (e instanceof RateLimiterRes) return e.msBeforeNext;
    throw e;
  }
}

/** A wait in words, rounded up: "45 seconds", "12 minutes", "3 hours". */
function waitInWords(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (ms < 60_000) return plural(Math.max(1, Math.ceil(ms / 1000)), "second");
  if (ms < 90 * 60_000) return plural(Math.ceil(ms / 60_000), "minute");
  return plural(Math.ceil(ms / 3_600_000), "hour");
}

/** A rate limit an invitation email counts against: its limiter, key and 429 sentence. */
interface EmailLimit {
  limiter: RateLimiter;
  key: string;
  /** the sentence of the 429, given the wait in words ("45 seconds") */
  refusal: (wait: string) => string;
}

/** The workspace's daily bound on invitation emails, new and resent (INVITE_EMAILS_PER_WORKSPACE_PER_DAY). */
function workspaceEmailLimit(ctx: Pick<AppContext, "limiters">, workspaceId: string): EmailLimit {
  return {
    limiter: ctx.limiters.inviteEmailsWorkspace,
    key: workspaceId,
    refusal: (wait) =>
      `This workspace has sent ${INVITE_EMAILS_PER_WORKSPACE_PER_DAY} invitation emails today, the daily limit. You can send more in ${wait}.`,
  };
}

/**
 * Takes one point of each limit in order for one invitation email, before the transaction that
 * stores it (a limiter on the Postgres store uses a connection of its own; taking one while holding
 * the workspace lock could wait on a pool whose connections all wait on that lock). Returns a
 * function that gives the points back, for when the email is not sent after all (a 402, 404, ...).
 * @throws AppError TOO_MANY_REQUESTS (the refused limit's sentence), having given back the points
 *   already taken.
 */
async function takeEmailPoints(limits: EmailLimit[]): Promise<() => Promise<void>> {
  const taken: EmailLimit[] = [];
  const giveBack = async () => {
    await Promise.all(taken.map((l) => l.limiter.reward(l.key, 1).catch(() => {})));
  };
  for (const l of limits) {
    const wait = await tryConsume(l.limiter, l.key);
    if (wait !== null) {
      await giveBack();
      throw new AppError("TOO_MANY_REQUESTS", l.refusal(waitInWords(wait)));
    }
    taken.push(l);
  }
  return giveBack;
}

/**
 * Refuses to invite `email` (lower case) to the workspace when it is a member's address or has a
 * pending invitation there other than `exceptInviteId` (the one being resent). Run under the
 * workspace lock. Returns the workspace's member and pending-invitation counts (its seats in use).
 * @throws AppError CONFLICT naming the address.
 */
async function assertInvitable(
  tx: DbOrTx,
  workspaceId: string,
  email: string,
  exceptInviteId: string | null = null,
): Promise<{ members: number; pending: number }> {
  const members = await q.listMembers(tx, workspaceId);
  const profiles = await getUserProfiles(
    { db: tx },
    members.map((m) => m.userId),
  );
  if ([...profiles.values()].some((p) => p.email.toLowerCase() === email))
    throw new AppError("CONFLICT", `${email} is already a member of this workspace.`);
  const pending = await q.listPendingInvites(tx, workspaceId);
  if (pending.some((i) => i.id !== exceptInviteId && i.email.toLowerCase() === email))
    throw new AppError(
      "CONFLICT",
      `${email} already has a pending invitation. Resend it from the list instead.`,
    );
  return { members: members.length, pending: pending.length };
}

/**
 * Invites `email` to the active workspace with `role` (admin | member): stores the SHA-256 of a
 * random 160-bit token, expiring in 7 days, and emails the link `APP_URL/invite/{token}`.
 * Seats: members + pending invites + 1 must fit the plan (spec section 9). The inviter's email
 * address must be verified (`canSend`: auth's assertCanSend, the campaign gate; the email carries the
 * inviter's and the workspace's names, both chosen by the sender). Each invitation email counts
 * against the workspace's INVITE_EMAILS_PER_WORKSPACE_PER_DAY. The inviter's role is re-read under the
 * workspace lock (lockAsActor).
 * @throws AppError FORBIDDEN for members and for an unverified inviter; CONFLICT when the person is
 *   already a member or invited, or while a plan change of the local billing portal runs
 *   (assertNoSeatChange); PAYMENT_REQUIRED (402) over the seat limit, naming the plan that allows
 *   more; TOO_MANY_REQUESTS (429) past the workspace's daily invitation emails.
 */
export async function inviteMember(
  ctx: Pick<AppContext, "db" | "providers" | "env" | "limiters">,
  tenant: Tenant,
  input: InviteInput,
  canSend: SendGate,
) {
  assertCan(tenant, "manageMembers");
  const email = input.email.trim().toLowerCase();
  await canSend(ctx, tenant.userId, [email]);
  const giveBack = await takeEmailPoints([workspaceEmailLimit(ctx, tenant.workspaceId)]);
  const token = randomToken(20);
  const invite = await ctx.db
    .transaction(async (tx) => {
      await assertNoSeatChange(tx, tenant);
      const actor = await lockAsActor(tx, tenant, "manageMembers");
      if (!invitableRoles(actor.role).includes(input.role))
        throw new AppError("FORBIDDEN", DENIED.manageMembers);
      const { members, pending } = await assertInvitable(tx, tenant.workspaceId, email);
      assertWithinPlan(actor.workspace, "seats", 1, members + pending);
      return q.insertInvite(tx, {
        workspaceId: tenant.workspaceId,
        email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedBy: tenant.userId,
        expiresAt: new Date(Date.now() + INVITE_TTL_MS),
      });
    })
    .catch(async (e: unknown) => {
      await giveBack();
      throw e;
    });
  await sendInviteEmail(ctx, tenant, email, token, invite.role);
  return {
    id: invite.id,
    email: invite.email,
    role: invite.role,
    expires_at: invite.expiresAt.toISOString(),
    created_at: invite.createdAt.toISOString(),
  };
}

/**
 * Sends a pending invite again with a new token (the old link stops working, and the email says so:
 * INVITE_REPLACES_EARLIER) and a fresh 7 days. Like inviteMember: the sender's address must be verified (`canSend`) and the email counts against
 * the workspace's INVITE_EMAILS_PER_WORKSPACE_PER_DAY. Per invitation, at most one resend a minute
 * and INVITE_RESENDS_PER_DAY a day (limiters inviteResendMinute / inviteResendDay, keyed by the invite
 * id). An expired invitation holds no seat (seats count pending invites that have not expired), so
 * bringing one back is checked against the plan's seats under the workspace lock, as a new one is.
 * An invitation whose address is a member's now, or has a newer pending invitation, is not resent
 * (409, as inviteMember refuses a new one).
 * @throws AppError FORBIDDEN (members, an unverified sender); NOT_FOUND when the invite is not a
 *   pending one of this workspace; CONFLICT (the address is a member's or invited again; a plan
 *   change of the local billing portal under way: assertNoSeatChange);
 *   PAYMENT_REQUIRED (402) when an expired invite would exceed the seats; TOO_MANY_REQUESTS (429)
 *   past a limit, saying when it can be resent.
 */
export async function resendInvite(
  ctx: Pick<AppContext, "db" | "providers" | "env" | "limiters">,
  tenant: Tenant,
  inviteId: string,
  canSend: SendGate,
) {
  assertCan(tenant, "manageMembers");
  const found = await pendingInviteOrNotFound(ctx, tenant.workspaceId, inviteId);
  await canSend(ctx, tenant.userId, [found.email]);
  const giveBack = await takeEmailPoints([
    {
      limiter: ctx.limiters.inviteResendMinute,
      key: found.id,
      refusal: (wait) => `This invitation was sent less than a minute ago. You can resend it in ${wait}.`,
    },
    {
      limiter: ctx.limiters.inviteResendDay,
      key: found.id,
      refusal: (wait) =>
        `This invitation has been resent ${INVITE_RESENDS_PER_DAY} times today. You can resend it in ${wait}.`,
    },
    workspaceEmailLimit(ctx, tenant.workspaceId),
  ]);
  const token = randomToken(20);
  const { invite, updated } = await ctx.db
    .transaction(async (tx) => {
      await assertNoSeatChange(tx, tenant);
      const actor = await lockAsActor(tx, tenant, "manageMembers");
      const invite = await pendingInviteOrNotFound({ db: tx }, tenant.workspaceId, inviteId);
      // the address may have joined (through a newer invitation, or a member's email change) or been
      // invited again since this one was sent
      const seats = await assertInvitable(tx, tenant.workspaceId, invite.email.toLowerCase(), invite.id);
      // an expired invite holds no seat (pending invites count until they expire): it takes one again
      if (invite.expiresAt.getTime() <= Date.now())
        assertWithinPlan(actor.workspace, "seats", 1, seats.members + seats.pending);
      const updated = await q.updateInvite(tx, invite.id, {
        tokenHash: hashToken(token),
        expiresAt: new Date(Date.now() + INVITE_TTL_MS),
      });
      return { invite, updated: updated! };
    })
    .catch(async (e: unknown) => {
      await giveBack();
      throw e;
    });
  await sendInviteEmail(ctx, tenant, invite.email, token, invite.role, { resent: true });
  return {
    id: invite.id,
    email: invite.email,
    role: invite.role,
    expires_at: updated.expiresAt.toISOString(),
  };
}

/**
 * Revokes a pending invite (its link stops working). Under the workspace lock with the caller's role
 * re-read (lockAsActor), as acceptInvite takes it: of a revoke and an accept at once, the one that
 * gets the lock first wins, and a revoke that answers success means the invitee did not join (an
 * invitation accepted meanwhile is no longer pending: 404).
 * @throws AppError FORBIDDEN; NOT_FOUND.
 */
export async function revokeInvite(ctx: Pick<AppContext, "db">, tenant: Tenant, inviteId: string) {
  assertCan(tenant, "manageMembers");
  await ctx.db.transaction(async (tx) => {
    await lockAsActor(tx, tenant, "manageMembers");
    const invite = await pendingInviteOrNotFound({ db: tx }, tenant.workspaceId, inviteId);
    await q.updateInvite(tx, invite.id, { revokedAt: new Date() });
  });
}

type InviteStatus = "pending" | "accepted" | "revoked" | "expired";

async function findInviteByToken(ctx: Pick<AppContext, "db">, token: string) {
  if (!/^[a-z2-7]{16,64}$/.test(token)) return null;
  return q.findInviteByTokenHash(ctx.db, hashToken(token));
}

/** The signed-in person looking at or accepting an invite (the `users` row's fields that matter). */
export interface InviteViewer {
  email: string;
  /** null while the address is unconfirmed (issue 11 verification) */
  emailVerifiedAt: Date | null;
}

/**
 * Why `viewer` may not accept an invite sent to `invitedEmail`, as the sentence to show, or null when
 * they may. An invite belongs to the address it was emailed to (compared case-insensitively), and
 * that address must be verified: the account link proves the person reads that mailbox, so a
 * forwarded or leaked invite link cannot be used by another account, nor by someone who registered
 * the invited address without owning it. The other account is told only the masked address.
 */
export function inviteRefusal(invitedEmail: string, viewer: InviteViewer): string | null {
  if (viewer.email.trim().toLowerCase() !== invitedEmail.trim().toLowerCase())
    return `This invitation was sent to ${maskEmail(invitedEmail)}. Sign in with that address to accept it.`;
  if (!viewer.emailVerifiedAt)
    return `Please confirm your email address first: open the link we emailed to ${viewer.email}, then accept the invitation here.`;
  return null;
}

/**
 * Why an invitation to workspace `w` cannot be accepted for want of a seat, as the sentence its
 * invitee reads, or null when a seat is free. `used` is the seats held without this invitation:
 * members plus the other open invitations (accepting turns this invitation's seat into the member's).
 * The plan may have been lowered since the invitation was sent (seats: billing.plans, asked through
 * assertWithinPlan); the invitee cannot change the plan, so the sentence sends them to the owner
 * rather than to an upgrade.
 */
function inviteSeatRefusal(w: { name: string } & Parameters<typeof assertWithinPlan>[0], used: number) {
  try {
    assertWithinPlan(w, "seats", 1, used);
    return null;
  } catch (err) {
    if (!planRefusalOf(err)) throw err;
    return `${w.name} has no free seat on its current plan, so you cannot join yet. Ask the workspace owner to upgrade the plan or free a seat, then accept again.`;
  }
}

/**
 * Who invites whom to what, for the invite page (public: the token is the secret).
 * Shape: `{workspace: {name}, inviter: {name}, email, role, status, expires_at, viewer, refusal,
 * refusal_kind, member_workspace}`.
 * `email` is the invited address in full only for a signed-in viewer whose own address it is;
 * anyone else (signed out, another account) sees it masked ("a•••@example.com").
 * `viewer`: "signed_out" | "invitee" (the signed-in address is the invited one) | "other_account".
 * `refusal`: the sentence accepting would answer the signed-in viewer now (inviteRefusal, then for an
 * open invitation the workspace's free seats: inviteSeatRefusal), else null; `refusal_kind` names it:
 * "other_account" | "unverified" | "no_seat" | null.
 * `member_workspace`: `{id, name}` of the invitation's workspace when the signed-in viewer is a
 * member of it now (Back to the link after accepting it, or joined otherwise), so the page can say so
 * and offer to switch to it; null for anyone else and when signed out (it tells the viewer only about
 * their own membership).
 * @throws AppError NOT_FOUND for an unknown or forged token.
 */
export async function getInvite(
  ctx: Pick<AppContext, "db">,
  token: string,
  viewer: ({ id: string } & InviteViewer) | null = null,
) {
  const row = await findInviteByToken(ctx, token);
  if (!row) throw new AppError("NOT_FOUND", "This invitation link is not valid. Ask for a new one.");
  const { invite, workspace } = row;
  const inviter = invite.invitedBy
    ? (await getUserProfiles(ctx, [invite.invitedBy])).get(invite.invitedBy)
    : null;
  const status: InviteStatus = invite.acceptedAt
    ? "accepted"
    : invite.revokedAt
      ? "revoked"
      : invite.expiresAt.getTime() <= Date.now()
        ? "expired"
        : "pending";
  const isInvitee = viewer !== null && viewer.email.trim().toLowerCase() === invite.email.toLowerCase();
  // what stops the signed-in viewer from accepting now: the invitation's address, then a seat
  let refusal = viewer ? inviteRefusal(invite.email, viewer) : null;
  let refusalKind: "other_account" | "unverified" | "no_seat" | null = refusal
    ? isInvitee
      ? "unverified"
      : "other_account"
    : null;
  if (viewer && !refusal && status === "pending") {
    // this invitation is among the pending ones: without it
    refusal = inviteSeatRefusal(workspace, (await countWorkspaceSeats(ctx, workspace.id)) - 1);
    refusalKind = refusal ? "no_seat" : null;
  }
  return {
    workspace: { name: workspace.name },
    inviter: { name: inviter?.name ?? null },
    email: isInvitee ? invite.email : maskEmail(invite.email),
    role: invite.role,
    status,
    expires_at: invite.expiresAt.toISOString(),
    viewer: (viewer === null ? "signed_out" : isInvitee ? "invitee" : "other_account") as
      | "signed_out"
      | "invitee"
      | "other_account",
    refusal,
    refusal_kind: refusalKind,
    member_workspace:
      viewer && (await q.findMembership(ctx.db, workspace.id, viewer.id))
        ? { id: workspace.id, name: workspace.name }
        : null,
  };
}

/** The 400 for an invitation that is no longer open (used, revoked or expired), or null while it is. */
function closedInviteError(invite: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date }) {
  if (invite.acceptedAt) return new AppError("BAD_REQUEST", "This invitation has already been used.");
  if (invite.revokedAt) return new AppError("BAD_REQUEST", "This invitation was revoked. Ask for a new one.");
  if (invite.expiresAt.getTime() <= Date.now())
    return new AppError("BAD_REQUEST", "This invitation has expired. Ask for a new one.");
  return null;
}

/**
 * Accepts an invite for the signed-in user: adds the membership with the invited role (single use,
 * also under concurrent accepts), makes it the session's active workspace. The seat limit is checked
 * again under the workspace lock (the plan may have changed since the invite).
 * Only the invitee may accept: the signed-in account's address must be the invited one and verified
 * (inviteRefusal). The invitation gives its role only while its sender may still give it: under the
 * same lock the sender must still be a member whose role allows it (invitableRoles); removing,
 * demoting or leaving revokes a sender's invitations anyway, this is the check at the door.
 * @throws AppError NOT_FOUND for an unknown token; BAD_REQUEST ("already used", "expired",
 *   "revoked", "no longer valid" when the sender can no longer invite, "being deleted" while the
 *   owner's deletion of the workspace runs: beginWorkspaceDeletion) for an invite that is no longer
 *   open; FORBIDDEN (inviteRefusal's sentence) for another account or an unverified address, and
 *   (inviteSeatRefusal's sentence) when the workspace's plan has no free seat now; CONFLICT when
 *   already a member.
 */
export async function acceptInvite(
  ctx: Pick<AppContext, "db">,
  user: { id: string } & InviteViewer,
  sessionId: string,
  token: string,
) {
  const row = await findInviteByToken(ctx, token);
  if (!row) throw new AppError("NOT_FOUND", "This invitation link is not valid. Ask for a new one.");
  const { invite } = row;
  const closed = closedInviteError(invite);
  if (closed) throw closed;
  const refusal = inviteRefusal(invite.email, user);
  if (refusal) throw new AppError("FORBIDDEN", refusal);
  const workspace = await ctx.db.transaction(async (tx) => {
    await q.lockWorkspace(tx, invite.workspaceId);
    const w = await q.findWorkspace(tx, invite.workspaceId);
    if (!w) throw workspaceGone();
    if (beingDeleted(w))
      throw new AppError(
        "BAD_REQUEST",
        `${w.name} is being deleted by its owner, so this invitation can no longer be accepted.`,
      );
    if (await q.findMembership(tx, w.id, user.id))
      throw new AppError("CONFLICT", `You are already a member of ${w.name}.`);
    const sender = invite.invitedBy ? await q.findMembership(tx, w.id, invite.invitedBy) : null;
    if (!sender || !invitableRoles(sender.role).includes(invite.role))
      throw new AppError(
        "BAD_REQUEST",
        `This invitation is no longer valid: the person who sent it can no longer invite people to ${w.name}. Ask for a new one.`,
      );
    const claimed = await q.claimInvite(tx, invite.id, user.id);
    if (!claimed) {
      // closed since it was read (revoked, used or expired meanwhile): say which
      const now = await q.findInvite(tx, w.id, invite.id);
      throw (
        (now && closedInviteError(now)) ??
        new AppError("BAD_REQUEST", "This invitation has already been used.")
      );
    }
    // the accepted invite's seat becomes the member's seat: members before + 1 must fit
    const noSeat = inviteSeatRefusal(w, await countWorkspaceSeats({ db: tx }, w.id));
    if (noSeat) throw new AppError("FORBIDDEN", noSeat);
    await q.insertMember(tx, { workspaceId: w.id, userId: user.id, role: invite.role });
    await q.setSessionWorkspace(tx, sessionId, w.id);
    return w;
  });
  return toWorkspaceSummary(workspace, invite.role);
}

/**
 * Removes a member. Access ends at once: every request re-checks membership, and the person's
 * sessions on this workspace are detached (they fall back to another workspace of theirs). The
 * invitations they sent that are still open are revoked: an invitation carries its sender's
 * authority (invitableRoles). The API keys they created in the workspace are revoked and their
 * still-scheduled campaigns paused in the same transaction by `onDeparture` (MemberDepartureHook;
 * webhook endpoints stay, see there). Runs under
 * the workspace lock with the caller's role re-read (lockAsActor), so it cannot remove a member a
 * concurrent transfer has just made owner.
 * After the commit the removed person is emailed "You were removed from {workspace} on Pitchwise"
 * (sendRemovalNotice; a failure to send is logged and the removal stands): nothing else tells them,
 * and a person who had no other workspace lands in a new empty one on their next request.
 * @throws AppError FORBIDDEN (members; removing the owner); NOT_FOUND for a non-member id.
 */
export async function removeMember(
  ctx: Pick<AppContext, "db" | "providers" | "log">,
  tenant: Tenant,
  userId: string,
  onDeparture: MemberDepartureHook,
) {
  assertCan(tenant, "manageMembers");
  const workspace = await ctx.db.transaction(async (tx) => {
    const actor = await lockAsActor(tx, tenant, "manageMembers");
    const target = await memberOrNotFound({ db: tx }, tenant.workspaceId, userId);
    if (target.role === "owner")
      throw new AppError("FORBIDDEN", "The owner cannot be removed. Transfer ownership first.");
    if (userId === tenant.userId)
      throw new AppError("BAD_REQUEST", "Use 'Leave workspace' to remove yourself.");
    await q.deleteMember(tx, tenant.workspaceId, userId);
    await q.detachSessions(tx, tenant.workspaceId, userId);
    await q.revokeInvitesSentBy(tx, userId, { workspaceId: tenant.workspaceId });
    await onDeparture({ db: tx }, { workspaceId: tenant.workspaceId, userId, reason: "removed" });
    return actor.workspace;
  });
  await sendRemovalNotice(ctx, tenant.userId, userId, workspace.name);
}

/**
 * Emails `removedId` that `byId` removed them from workspace `workspaceName` (removeMember), through
 * the email provider as the other workspace emails go. Logged as a warning when it cannot be sent.
 */
async function sendRemovalNotice(
  ctx: Pick<AppContext, "db" | "providers" | "log">,
  byId: string,
  removedId: string,
  workspaceName: string,
): Promise<void> {
  const profiles = await getUserProfiles(ctx, [byId, removedId]);
  const removed = profiles.get(removedId);
  if (!removed) return;
  const by = profiles.get(byId)?.name || "An admin";
  try {
    await ctx.providers.email.send({
      to: removed.email,
      subject: `You were removed from ${workspaceName} on Pitchwise`,
      text: `Hi ${removed.name},\n\n${by} removed you from the ${workspaceName} workspace on Pitchwise. You no longer have access to its contacts, campaigns and media. Its data is not affected.\n\nYour Pitchwise account and your other workspaces are not affected. If you had no other workspace, you now work in a new empty one of your own.`,
      tag: "workspace-removed",
    });
  } catch (err) {
    ctx.log.warn({ err, userId: removedId }, "a workspace removal notice was not sent");
  }
}

/**
 * Changes a member's role to admin or member. A role that cannot invite (member) revokes the open
 * invitations the person sent (invitableRoles). Under the workspace lock with the caller's role and
 * the target's re-read (lockAsActor), so a concurrent transfer's new owner is never demoted.
 * @throws AppError FORBIDDEN (members; the owner's own role: use transfer); NOT_FOUND.
 */
export async function changeRole(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  userId: string,
  role: Exclude<WorkspaceRole, "owner">,
) {
  assertCan(tenant, "manageMembers");
  await ctx.db.transaction(async (tx) => {
    await lockAsActor(tx, tenant, "manageMembers");
    const target = await memberOrNotFound({ db: tx }, tenant.workspaceId, userId);
    if (target.role === "owner")
      throw new AppError("FORBIDDEN", "The owner's role cannot be changed. Transfer ownership instead.");
    await q.updateMemberRole(tx, tenant.workspaceId, userId, role);
    if (invitableRoles(role).length === 0)
      await q.revokeInvitesSentBy(tx, userId, { workspaceId: tenant.workspaceId });
  });
  return { user_id: userId, role };
}

/**
 * Makes another member the owner; the previous owner becomes an admin (and keeps the invitations
 * they sent: an admin may invite). Owner only, checked again under the workspace lock (lockAsActor):
 * of two transfers at once, the second finds its caller an admin and is refused. After the commit,
 * billing's `billing.sync-customer-email` job is queued so the payments vendor's customer (receipts,
 * failed-payment emails, invoices, the billing portal) gets the new owner's email: a job, not a call,
 * so a vendor outage neither fails nor undoes the transfer (the job retries); billing reaches this
 * feature (assertCan), so this one reaches billing through its job contract. A queue failure is
 * logged as a warning and the transfer stands.
 * Returns `{workspace: {id, name}, new_owner: {user_id, name}, previous_owner_role}` (the role the
 * caller has now, "admin"), for the confirmation the caller is shown.
 * @throws AppError FORBIDDEN; NOT_FOUND for a non-member; BAD_REQUEST to oneself.
 */
export async function transferOwnership(
  ctx: Pick<AppContext, "db" | "jobs" | "log">,
  tenant: Tenant,
  userId: string,
) {
  assertCan(tenant, "transferOwnership");
  const previousOwnerRole = "admin" as const satisfies WorkspaceRole;
  const workspace = await ctx.db.transaction(async (tx) => {
    const actor = await lockAsActor(tx, tenant, "transferOwnership");
    await memberOrNotFound({ db: tx }, tenant.workspaceId, userId);
    if (userId === tenant.userId) throw new AppError("BAD_REQUEST", "You already own this workspace.");
    await q.updateMemberRole(tx, tenant.workspaceId, tenant.userId, previousOwnerRole);
    await q.updateMemberRole(tx, tenant.workspaceId, userId, "owner");
    await q.updateWorkspace(tx, tenant.workspaceId, { ownerId: userId });
    return actor.workspace;
  });
  await queueCustomerEmailSync(ctx, { workspaceId: tenant.workspaceId }, "an ownership transfer");
  const newOwner = (await getUserProfiles(ctx, [userId])).get(userId);
  return {
    workspace: { id: workspace.id, name: workspace.name },
    new_owner: { user_id: userId, name: newOwner?.name || newOwner?.email || "" },
    previous_owner_role: previousOwnerRole,
  };
}

/**
 * The signed-in user leaves the active workspace; the session falls back to another of theirs. The
 * open invitations they sent are revoked, and so are the API keys they created in the workspace, and
 * their still-scheduled campaigns are paused, by `onDeparture` in the same transaction
 * (MemberDepartureHook; webhook endpoints stay, see there).
 * The role is re-read under the workspace lock (a transfer may have just made them the owner).
 * @throws AppError BAD_REQUEST for the owner (transfer ownership first).
 */
export async function leaveWorkspace(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  onDeparture: MemberDepartureHook,
) {
  const ownerCannotLeave = "The owner cannot leave the workspace. Transfer ownership first.";
  if (tenant.role === "owner") throw new AppError("BAD_REQUEST", ownerCannotLeave);
  await ctx.db.transaction(async (tx) => {
    await q.lockWorkspace(tx, tenant.workspaceId);
    const m = await q.findMembership(tx, tenant.workspaceId, tenant.userId);
    if (m?.role === "owner") throw new AppError("BAD_REQUEST", ownerCannotLeave);
    await q.deleteMember(tx, tenant.workspaceId, tenant.userId);
    await q.detachSessions(tx, tenant.workspaceId, tenant.userId);
    await q.revokeInvitesSentBy(tx, tenant.userId, { workspaceId: tenant.workspaceId });
    await onDeparture({ db: tx }, { workspaceId: tenant.workspaceId, userId: tenant.userId, reason: "left" });
  });
}

/** One of an account's memberships, with how many other people are members (account deletion). */
export interface AccountMembership {
  tenant: Tenant;
  /** members other than the account itself */
  otherMembers: number;
}

/**
 * The user's memberships as tenants (owned first, then by join time), each with its count of other
 * members: what features/account needs to say what deleting the account does to each workspace.
 */
export async function listAccountMemberships(
  ctx: Pick<AppContext, "db">,
  userId: string,
): Promise<AccountMembership[]> {
  const memberships = await q.listMemberships(ctx.db, userId);
  return Promise.all(
    memberships.map(async (m) => ({
      tenant: tenantOf(userId, m),
      otherMembers: Math.max(0, (await q.countMembers(ctx.db, m.workspace.id)) - 1),
    })),
  );
}

/**
 * How long a workspace's deletion mark (deletion_started_at, beginWorkspaceDeletion) keeps
 * invitations from being accepted: a deletion's steps take seconds (its campaigns' cancels at most
 * about 15 s each); a mark this old was left by a process that died mid-way and no longer counts.
 */
export const DELETION_MARK_MS = 15 * 60_000;

/** The NOT_FOUND of a workspace deleted since the request began (an invitation to it, a second delete, a launch). */
function workspaceGone(): AppError {
  return new AppError("NOT_FOUND", "This workspace no longer exists.");
}

/** Whether workspace `w` is being deleted now (its deletion mark is younger than DELETION_MARK_MS). */
function beingDeleted(w: { deletionStartedAt: Date | null }): boolean {
  return w.deletionStartedAt !== null && Date.now() - w.deletionStartedAt.getTime() < DELETION_MARK_MS;
}

/**
 * In transaction `tx` of work that starts sending (a campaign launch, a resend of its failed
 * recipients), before it writes: refuses while the workspace is being deleted
 * (beginWorkspaceDeletion's mark). A deletion cancels the campaigns it finds after marking the
 * workspace, so a campaign started after that read would send until the workspace's rows go. The
 * workspace row stays FOR SHARE locked until `tx` ends: a deletion that has not marked it yet waits
 * for `tx` to commit, and then finds and cancels what `tx` started.
 * @throws AppError CONFLICT ("<name> is being deleted by its owner, so nothing more can be sent
 *   from it."), NOT_FOUND (the workspace was deleted meanwhile).
 */
export async function assertWorkspaceNotBeingDeleted(tx: DbOrTx, workspaceId: string): Promise<void> {
  const w = await q.selectDeletionMarkForShare(tx, workspaceId);
  if (!w) throw workspaceGone();
  if (beingDeleted(w))
    throw new AppError(
      "CONFLICT",
      `${w.name} is being deleted by its owner, so nothing more can be sent from it.`,
    );
}

/**
 * Before a deletion of the workspace `workspaceId` that a screen showed (account deleteWorkspace's
 * `workspace_id`): refuses when it is not the session's active workspace now, so a confirmation given
 * for one workspace never deletes another. That happens to a second click that arrives after the
 * first deleted the workspace (the session then works in another workspace, or in the new empty one a
 * person whose only workspace it was gets), and to a tab whose workspace was
 * switched in another tab.
 * @throws AppError NOT_FOUND "This workspace no longer exists." (deleted, or never one); CONFLICT
 *   "Your account is now working in ..." (assertShownWorkspace) when it still exists.
 */
export async function assertDeletingActiveWorkspace(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  workspaceId: string,
): Promise<void> {
  if (workspaceId === tenant.workspaceId) return;
  if (!isUuid(workspaceId) || !(await q.findWorkspace(ctx.db, workspaceId))) throw workspaceGone();
  assertShownWorkspace(tenant, workspaceId);
}

/** The CONFLICT for an owned workspace that has other members when only a solo one may be deleted. */
function notSoloError(name: string) {
  return new AppError(
    "CONFLICT",
    `${name} has other members now. Transfer its ownership (Settings > Team) or delete it (Settings > Workspace) first.`,
  );
}

/**
 * The first step of deleting a workspace (features/account), before anything is ended or removed:
 * under the workspace lock, re-reads that the caller owns it (lockAsActor) and, with `soloOnly`, that
 * nobody else is a member (an invitation may have been accepted since the account's preview), then
 * marks it as being deleted (deletion_started_at), so no invitation is accepted into it while the
 * deletion runs (acceptInvite): such a member would otherwise make the last step refuse after the
 * subscription was already ended. A deletion that fails clears the mark (abandonWorkspaceDeletion).
 * @throws AppError FORBIDDEN (not the owner); NOT_FOUND (deleted meanwhile); CONFLICT (`soloOnly` and
 *   other members; a deletion of it already under way, such as a second click: the first goes on).
 */
export async function beginWorkspaceDeletion(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  opts: { soloOnly?: boolean } = {},
): Promise<void> {
  assertCan(tenant, "deleteWorkspace");
  await ctx.db.transaction(async (tx) => {
    const m = await lockAsActor(tx, tenant, "deleteWorkspace");
    if (beingDeleted(m.workspace))
      throw new AppError(
        "CONFLICT",
        `${m.workspace.name} is already being deleted. If it is still there in ${DELETION_MARK_MS / 60_000} minutes, try again.`,
      );
    if (opts.soloOnly && (await q.countMembers(tx, tenant.workspaceId)) > 1)
      throw notSoloError(tenant.workspace.name);
    await q.updateWorkspace(tx, tenant.workspaceId, { deletionStartedAt: new Date() });
  });
}

/** Clears the deletion mark of a workspace whose deletion failed (beginWorkspaceDeletion): invitations work again. */
export async function abandonWorkspaceDeletion(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<void> {
  await q.updateWorkspace(ctx.db, workspaceId, { deletionStartedAt: null });
}

/**
 * The last step of deleting a workspace (features/account deleteWorkspace and deleteAccount, which
 * end its subscription, campaigns and files around it): under the workspace lock, re-reads that the
 * caller still owns it (lockAsActor: a transfer may have just moved it) and, with `soloOnly`, that
 * nobody else is a member now, then runs `beforeDelete` in the same transaction (billing remembers
 * the workspace's subscription there) and deletes the row and with it everything the workspace owns
 * (foreign keys ON DELETE CASCADE: contacts, campaigns, media rows, keys, webhooks, invitations,
 * memberships). Sessions that had it active fall back to another workspace of their person
 * (resolveTenant). Returns the user ids of the other members it had, for their notice.
 * @throws AppError FORBIDDEN (not the owner); CONFLICT (`soloOnly` and other members).
 */
export async function deleteOwnedWorkspace(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  opts: { soloOnly?: boolean } = {},
  beforeDelete?: (tx: DbOrTx, workspaceId: string) => Promise<void>,
): Promise<{ otherMemberIds: string[] }> {
  assertCan(tenant, "deleteWorkspace");
  return ctx.db.transaction(async (tx) => {
    await lockAsActor(tx, tenant, "deleteWorkspace");
    const otherMemberIds = (await q.listMembers(tx, tenant.workspaceId))
      .map((m) => m.userId)
      .filter((id) => id !== tenant.userId);
    if (opts.soloOnly && otherMemberIds.length > 0) throw notSoloError(tenant.workspace.name);
    await beforeDelete?.(tx, tenant.workspaceId);
    await q.deleteWorkspace(tx, tenant.workspaceId);
    return { otherMemberIds };
  });
}

/**
 * In an invitation's transaction `tx` (inviteMember, resendInvite), before its seat check: takes the
 * workspace's seat-change lock in shared mode for the rest of it (invitations do not exclude one
 * another), or refuses while a plan change of the local billing portal holds it
 * (withSeatChangesHeld), since that change's seat check did not count this invitation and its plan
 * is written after it. Does not wait (see workspaces.queries tryLockSeatChangesShared); a plan change
 * takes a fraction of a second.
 * @throws AppError CONFLICT while a plan change is under way.
 */
async function assertNoSeatChange(tx: DbOrTx, tenant: Tenant): Promise<void> {
  if (!(await q.tryLockSeatChangesShared(tx, tenant.workspaceId)))
    throw new AppError(
      "CONFLICT",
      `${tenant.workspace.name}'s plan is being changed right now. Send the invitation again in a moment.`,
    );
}

/** Plan changes under way in this process, by workspace: each waits for the one before (withSeatChangesHeld). */
const seatChangeQueue = new Map<string, Promise<unknown>>();

/**
 * Runs `work` while holding workspace `workspaceId`'s seat-change lock (lockSeatChanges, in a
 * transaction that does nothing else, so `work` uses its own connections): for a seat check followed
 * by a plan change that is applied elsewhere (billing localPortalChangePlan: the plan is written by
 * the payment event's delivery). Invitations and resent invitations of the workspace are refused
 * meanwhile (assertNoSeatChange), so none is counted against the old plan after the check. Calls in
 * one process queue here first and only one at a time waits for the database lock, so waiting plan
 * changes hold no pool connection that the running one's `work` could need.
 */
export async function withSeatChangesHeld<T>(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  work: () => Promise<T>,
): Promise<T> {
  const before = seatChangeQueue.get(workspaceId) ?? Promise.resolve();
  const run = before
    .catch(() => {})
    .then(() =>
      ctx.db.transaction(async (tx) => {
        await q.lockSeatChanges(tx, workspaceId);
        return work();
      }),
    );
  seatChangeQueue.set(workspaceId, run);
  try {
    return await run;
  } finally {
    if (seatChangeQueue.get(workspaceId) === run) seatChangeQueue.delete(workspaceId);
  }
}

/**
 * Updates name, branding, the postal address and the phone country (owner and admin). Hiding
 * 'Powered by Pitchwise' is the Enterprise white-label option (spec section 9); `phone_country` (ISO
 * 3166-1 alpha-2, checked by the schema with libphonenumber-js) is how national numbers are read from
 * then on (lib/phone.ts); `postal_address` (the schema trims it, NFC, at most 300 characters, no
 * control characters; "" or null clears it) is shown in the footer of every campaign email (CAN-SPAM,
 * 15 U.S.C. 7704(a)(5)(A)(iii)). Returns the settings as toWorkspaceJson shows them.
 * @throws AppError FORBIDDEN for a member; PAYMENT_REQUIRED for hide_branding below Enterprise.
 */
export async function updateWorkspaceSettings(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  input: WorkspaceSettingsInput,
) {
  assertCan(tenant, "manageWorkspace");
  if (input.hide_branding) assertPlanFeature(tenant.workspace, "whiteLabel");
  const updated = await q.updateWorkspace(ctx.db, tenant.workspaceId, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.logo_url !== undefined ? { logoUrl: input.logo_url || null } : {}),
    ...(input.brand_color !== undefined ? { brandColor: input.brand_color || null } : {}),
    ...(input.sender_name !== undefined ? { senderName: input.sender_name || null } : {}),
    ...(input.postal_address !== undefined ? { postalAddress: input.postal_address || null } : {}),
    ...(input.hide_branding !== undefined ? { hideBranding: input.hide_branding } : {}),
    ...(input.phone_country !== undefined ? { phoneCountry: input.phone_country } : {}),
  });
  return toWorkspaceJson(updated!, tenant.role);
}

/**
 * The workspace's default country for phone numbers typed without `+country` (ISO 3166-1 alpha-2,
 * 'US' unless chosen in Settings > Workspace): the second argument of lib/phone.ts's toE164 for
 * contacts, imports and campaign recipients of this workspace (issue 14).
 * @throws AppError NOT_FOUND 'Workspace not found.'
 */
export async function phoneCountryOf(ctx: Pick<AppContext, "db">, workspaceId: string): Promise<string> {
  const w = await q.findWorkspace(ctx.db, workspaceId);
  if (!w) throw new AppError("NOT_FOUND", "Workspace not found.");
  return w.phoneCountry;
}

/** Branding and sender details of a workspace, as recipients see them (emails, landing pages, calls). */
export interface SenderProfile {
  /** the owner's name (the person signing messages) */
  name: string;
  /** the business recipients hear from: the workspace's sender name, else its name */
  businessName: string;
  /** the owner's email (reply-to) */
  email: string;
  phone: string | null;
  brandColor: string | null;
  logoUrl: string | null;
  /**
   * the business's physical postal address (Settings > Workspace; free text, may hold line breaks),
   * null when not set: campaign emails show it in their footer (CAN-SPAM, 15 U.S.C. 7704(a)(5)(A)(iii))
   */
  postalAddress: string | null;
  /** true only when the plan includes white-label and the workspace chose it */
  hideBranding: boolean;
  /** the owner's preferences (notification emails, signature) */
  ownerPreferences: UserPreferences | null;
  ownerId: string;
}

/**
 * Sender details of a workspace for campaigns and landing pages.
 * @throws AppError NOT_FOUND when the workspace does not exist.
 */
export async function getSenderProfile(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<SenderProfile> {
  const w = await q.findWorkspace(ctx.db, workspaceId);
  if (!w) throw new AppError("NOT_FOUND", "Workspace not found.");
  const owner = (await getUserProfiles(ctx, [w.ownerId])).get(w.ownerId);
  return {
    name: owner?.name ?? w.name,
    businessName: w.senderName?.trim() || w.name,
    email: owner?.email ?? "",
    phone: owner?.phone ?? null,
    brandColor: w.brandColor,
    logoUrl: w.logoUrl,
    postalAddress: w.postalAddress?.trim() || null,
    // white label only while the plan that includes it is in force (effectivePlan)
    hideBranding: w.hideBranding && PLANS[effectivePlan(w)].features.whiteLabel,
    ownerPreferences: owner?.preferences ?? null,
    ownerId: w.ownerId,
  };
}

/** The workspace's plan and billing fields (for features that gate on the plan). */
export async function getWorkspace(ctx: Pick<AppContext, "db">, workspaceId: string) {
  const w = await q.findWorkspace(ctx.db, workspaceId);
  if (!w) throw new AppError("NOT_FOUND", "Workspace not found.");
  return w;
}

/**
 * Seats in use (issue 10/12): members plus pending invites, as the seat check counts them. Used by
 * an invitation's seat check (inviteSeatRefusal's callers; `db` may be the accept's transaction).
 */
export async function countWorkspaceSeats(ctx: { db: DbOrTx }, workspaceId: string): Promise<number> {
  const { members, pending } = await workspaceSeatsOf(ctx, workspaceId);
  return members + pending;
}

/**
 * The seats a workspace holds, split as its plan's sentences name them (billing.plans SeatsHeld):
 * `members` (owner included) and `pending` invitations (not accepted, revoked or expired). Read by
 * billing's usage report (the seats meter and an over-seats notice) and its plan changes (a change to
 * a plan with fewer seats is refused: billing.plans assertSeatsFitPlan).
 */
export async function workspaceSeatsOf(
  ctx: { db: DbOrTx },
  workspaceId: string,
): Promise<{ members: number; pending: number }> {
  return {
    members: await q.countMembers(ctx.db, workspaceId),
    pending: await q.countPendingInvites(ctx.db, workspaceId),
  };
}
