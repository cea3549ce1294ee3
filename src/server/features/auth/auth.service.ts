import { randomBytes } from "node:crypto";
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import type { z } from "zod";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import type { Session, User, Workspace, WorkspaceRole } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { randomToken, uuidFromKey } from "../../lib/ids";
import { maskEmail } from "../../lib/mask-email";
import { hashPassword, verifyPassword } from "../../lib/passwords";
import { consumeOrThrow, pointsUsed, slowDownMs } from "../../lib/rate-limit";
import { revokeKeysCreatedBySince } from "../api/api.service";
import { queueCustomerEmailSync } from "../billing/billing.jobs";
import type { passwordInput, profileInput } from "../user/user.schemas";
import { changePassword, updateProfile } from "../user/user.service";
import { disableEndpointsCreatedBySince } from "../webhooks/webhooks.service";
import {
  createWorkspace,
  getWorkspace,
  listUserWorkspaces,
  revokeInvitesSentBySince,
  revokeInvitesToMemberAddress,
  type Tenant,
  toWorkspaceSummary,
} from "../workspaces/workspaces.service";
import {
  type AccountLinkPurpose,
  EMAIL_RECOVERY_PURPOSE,
  STRANDED_NOTICE_MINUTES,
  sendAccountLinkJob,
  sendEmailChangedNoticeJob,
  sendPasswordResetJob,
} from "./auth.jobs";
import * as q from "./auth.queries";
import type { ForgotPasswordInput, LoginInput, RegisterInput, ResetPasswordInput } from "./auth.schemas";

/** What a session or account-link token looks like (randomToken: base32 lower case); anything else is never looked up. */
const AUTH_TOKEN_FORM = /^[a-z2-7]{16,64}$/;
/** Session lifetime and the sliding-refresh threshold (the Lucia recipe): 30 days, refreshed past half-life. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const SESSION_REFRESH_MS = 15 * 24 * 60 * 60 * 1000;
export const SESSION_COOKIE = "pw_session";

let dummyHash: Promise<string> | null = null;

/** The user as the API shows it (spec section 3: User). */
export interface PublicUser {
  id: string;
  name: string;
  email: string;
  business_name: string | null;
  phone: string | null;
  plan: string;
  subscription_status: string | null;
  subscription_tier: string | null;
  theme: string;
  preferences: User["preferences"];
  created_at: string;
  /** false until the address is confirmed through the emailed link (issue 11) */
  email_verified: boolean;
}

/**
 * The spec's User shape; `plan`, `subscription_status` and `subscription_tier` are the active
 * workspace's (issue 10: plan and billing belong to the workspace).
 */
export function toPublicUser(
  u: User,
  w?: Pick<Workspace, "plan" | "subscriptionStatus" | "subscriptionTier"> | null,
): PublicUser {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    business_name: u.businessName,
    phone: u.phone,
    plan: w?.plan ?? "free",
    subscription_status: w?.subscriptionStatus ?? null,
    subscription_tier: w?.subscriptionTier ?? null,
    theme: u.theme,
    preferences: u.preferences,
    created_at: u.createdAt.toISOString(),
    email_verified: u.emailVerifiedAt !== null,
  };
}

export { hashPassword, verifyPassword };

function sessionIdFromToken(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

/**
 * Creates a session on `workspaceId` (null: the user's first workspace, resolved on first use);
 * returns the raw token for the cookie (only its SHA-256 is stored). `ctx.db` may be a transaction
 * (signIn stores the session in the one that re-reads the password).
 */
export async function createSession(ctx: { db: DbOrTx }, userId: string, workspaceId: string | null = null) {
  const token = randomToken(20);
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await q.insertSession(ctx.db, { id: sessionIdFromToken(token), userId, workspaceId, expiresAt });
  return { token, expiresAt };
}

/**
 * Resolves a cookie token to its session, user and (same query) the user's membership of the
 * session's active workspace: `{session, user, membership: {role, workspace} | null}`, for
 * resolveTenant. Expired sessions are deleted; sessions past half their life are extended to 30
 * days (sliding expiry). Returns null when invalid.
 */
export async function validateSessionToken(
  ctx: Pick<AppContext, "db">,
  token: string,
): Promise<{
  session: Session;
  user: User;
  membership: { role: WorkspaceRole; workspace: Workspace } | null;
} | null> {
  if (!AUTH_TOKEN_FORM.test(token)) return null;
  const id = sessionIdFromToken(token);
  const row = await q.findSessionWithUser(ctx.db, id);
  if (!row) return null;
  const now = Date.now();
  if (row.session.expiresAt.getTime() <= now) {
    await q.deleteSession(ctx.db, id);
    return null;
  }
  if (row.session.expiresAt.getTime() - now < SESSION_REFRESH_MS) {
    row.session.expiresAt = new Date(now + SESSION_TTL_MS);
    await q.updateSessionExpiry(ctx.db, id, row.session.expiresAt);
  }
  return row;
}

export async function invalidateSession(ctx: Pick<AppContext, "db">, sessionId: string) {
  await q.deleteSession(ctx.db, sessionId);
}

/**
 * Registers a user. Rate-limited per IP and per email.
 * @throws AppError CONFLICT when the email (case-insensitive) is taken, or held for another
 *   account's recovery (emailHeldForRecovery); TOO_MANY_REQUESTS.
 */
export async function register(ctx: AppContext, input: RegisterInput, meta: { ip: string }) {
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "attempts");
  await consumeOrThrow(ctx.limiters.registerEmail, input.email.toLowerCase(), "attempts");
  // an address just moved away from is held for its owner's recovery link (emailHeldForRecovery)
  if (await emailHeldForRecovery(ctx, input.email, null))
    throw new AppError("CONFLICT", "An account with this email already exists");
  const passwordHash = await hashPassword(input.password);
  const created = await ctx.db.transaction(async (tx) => {
    const user = await q.insertUser(tx, {
      name: input.name,
      email: input.email,
      businessName: input.business_name || null,
      passwordHash,
    });
    if (!user) return null;
    // every account starts with its personal workspace (same uuid as the user)
    const workspace = await createWorkspace({ db: tx }, user, { sameIdAsUser: true });
    return { user, workspace };
  });
  if (!created) throw new AppError("CONFLICT", "An account with this email already exists");
  // issue 11: every new account is asked to confirm its address (a link valid 7 days)
  await ctx.jobs.send(sendAccountLinkJob, { userId: created.user.id, purpose: "email_verification" });
  return created;
}

/**
 * What recoverEmail puts before the stored password hash (auth.queries restoreUserEmail): no argon2
 * hash starts with "!", so verifyPassword fails on it everywhere (sign-in, the current-password
 * checks of user), and the hash it replaced stays after it so a sign-in with that password can be
 * told what to do (login). A new password (resetPassword) replaces the whole value.
 */
export const RECOVERY_LOCK_PREFIX = "!recovered:";

/** The sentence of a sign-in with the password an email recovery made unusable. */
export const PASSWORD_RETIRED_MESSAGE =
  "This password no longer works: the account was secured after its email address was changed. Choose a new password with the link from the recovery page, or use Forgot password with this address.";

/** The hash an email recovery retired (the part after RECOVERY_LOCK_PREFIX), or null for a usable one. */
function retiredPasswordHash(passwordHash: string): string | null {
  return passwordHash.startsWith(RECOVERY_LOCK_PREFIX)
    ? passwordHash.slice(RECOVERY_LOCK_PREFIX.length)
    : null;
}

/**
 * Checks credentials. The error never says whether the email exists, and an unknown email still
 * costs one argon2 verification so timing does not tell either.
 *
 * Throttling (issue 11, finding 4): hard limits per client IP (AUTH_RATE_LIMIT_PER_IP) and per
 * (client IP, email) (AUTH_RATE_LIMIT_PER_IP_EMAIL, cleared by a success); per email across all
 * clients only a slow-down: past AUTH_RATE_LIMIT_PER_EMAIL failures in 15 minutes each attempt waits
 * `slowDownMs` (at most AUTH_SLOWDOWN_MAX_MS) before the password is checked, so someone guessing
 * from many addresses is slowed while the owner can still sign in.
 *
 * A password an email recovery made unusable (RECOVERY_LOCK_PREFIX) never signs in: the password
 * it replaced is still checked, and when it matches the answer is PASSWORD_RETIRED_MESSAGE (choose
 * a new one through the recovery's link or Forgot password), else the usual sentence, so the
 * account's state is told only to whoever knows that password. Either counts as a failure.
 * @throws AppError UNAUTHORIZED "Invalid email or password" or PASSWORD_RETIRED_MESSAGE;
 *   TOO_MANY_REQUESTS.
 */
export async function login(ctx: AppContext, input: LoginInput, meta: { ip: string }) {
  const email = input.email.toLowerCase();
  const ipEmail = `${meta.ip}|${email}`;
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "login attempts");
  await consumeOrThrow(ctx.limiters.authIpEmail, ipEmail, "login attempts");
  const failures = await pointsUsed(ctx.limiters.authEmailFailures, email);
  const wait = slowDownMs(failures, ctx.env.AUTH_RATE_LIMIT_PER_EMAIL, ctx.env.AUTH_SLOWDOWN_MAX_MS);
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const user = await q.findUserByEmail(ctx.db, input.email);
  dummyHash ??= hashPassword("not-a-real-password");
  // an unknown email still costs one argon2 verification, so timing does not tell
  const retired = user ? retiredPasswordHash(user.passwordHash) : null;
  const ok = user
    ? await verifyPassword(retired ?? user.passwordHash, input.password)
    : await verifyPassword(await dummyHash, input.password).then(() => false);
  if (!user || !ok || retired !== null) {
    await ctx.limiters.authEmailFailures.consume(email).catch(() => {});
    if (ok && retired !== null) throw new AppError("UNAUTHORIZED", PASSWORD_RETIRED_MESSAGE);
    throw new AppError("UNAUTHORIZED", "Invalid email or password");
  }
  await ctx.limiters.authIpEmail.delete(ipEmail).catch(() => {});
  return user;
}

/**
 * `GET /api/auth/me`: `{user, workspace: {id, name, role, plan}, workspaces: [{id, name, role, plan}]}`;
 * the user's plan fields are the active workspace's.
 */
export async function describeSession(ctx: Pick<AppContext, "db">, user: User, tenant: Tenant) {
  return {
    user: toPublicUser(user, tenant.workspace),
    workspace: toWorkspaceSummary(tenant.workspace, tenant.role),
    workspaces: await listUserWorkspaces(ctx, user.id),
  };
}

/**
 * Registers and opens a session on the new personal workspace.
 * Shape: `{user, workspace, token, expiresAt}` (token goes in the cookie).
 * @throws as `register`.
 */
export async function signUp(ctx: AppContext, input: RegisterInput, meta: { ip: string }) {
  const { user, workspace } = await register(ctx, input, meta);
  const s = await createSession(ctx, user.id, workspace.id);
  return { user, workspace, ...s };
}

/**
 * Checks credentials and opens a session on the user's first workspace (owned first).
 * Shape: `{user, workspace, token, expiresAt}`. The session is stored only while the account's
 * password is still the one checked (read under a share lock in the session's transaction): a
 * recovery or a reset that changed it and ended every session while the check ran (argon2 takes
 * tens of milliseconds) would otherwise leave this sign-in a session opened after theirs ended.
 * @throws as `login`; AppError UNAUTHORIZED when the password changed meanwhile
 *   (PASSWORD_RETIRED_MESSAGE when a recovery retired it, else "Invalid email or password").
 */
export async function signIn(ctx: AppContext, input: LoginInput, meta: { ip: string }) {
  const user = await login(ctx, input, meta);
  const [first] = await listUserWorkspaces(ctx, user.id);
  const workspace = first ? await getWorkspace(ctx, first.id) : null;
  const { current, session } = await ctx.db.transaction(async (tx) => {
    const hash = await q.passwordHashForShare(tx, user.id);
    return {
      current: hash,
      session:
        hash === user.passwordHash ? await createSession({ db: tx }, user.id, workspace?.id ?? null) : null,
    };
  });
  if (!session)
    throw new AppError(
      "UNAUTHORIZED",
      current === `${RECOVERY_LOCK_PREFIX}${user.passwordHash}`
        ? PASSWORD_RETIRED_MESSAGE
        : "Invalid email or password",
    );
  return { user, workspace, ...session };
}

/** A password-reset link works for 1 hour; a verification link for 7 days (issue 11). */
export const LINK_TTL_MS: Record<AccountLinkPurpose, number> = {
  password_reset: 60 * 60 * 1000,
  email_verification: 7 * 24 * 60 * 60 * 1000,
};

/** The one answer of POST /api/auth/forgot-password, whether or not the address has an account. */
export const FORGOT_PASSWORD_MESSAGE =
  "If an account exists for that email, we have sent it a link to reset the password. The link works once, for 1 hour.";

const RESET_LINK_INVALID =
  "This password reset link is invalid, already used or expired. Please request a new one.";
const VERIFY_LINK_INVALID =
  "This verification link is invalid, already used or expired. Please ask for a new one from the banner in the app.";

/** Text made safe inside the account emails' HTML (& < > " ' as numeric character references). */
const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function linkEmail(purpose: AccountLinkPurpose, name: string, link: string) {
  if (purpose === "password_reset")
    return {
      subject: "Reset your Pitchwise password",
      text: `Hi ${name},\n\nSomeone (hopefully you) asked to reset the password of your Pitchwise account.\n\nChoose a new password: ${link}\n\nThe link works once and expires in 1 hour. Resetting signs you out everywhere else. If you did not ask for this, ignore this email: your password stays as it is.`,
      html: `<p>Hi ${esc(name)},</p><p>Someone (hopefully you) asked to reset the password of your Pitchwise account.</p><p><a href="${esc(link)}">Choose a new password</a></p><p>The link works once and expires in 1 hour. Resetting signs you out everywhere else. If you did not ask for this, ignore this email: your password stays as it is.</p>`,
    };
  return {
    subject: "Confirm your email for Pitchwise",
    text: `Hi ${name},\n\nConfirm that this is your email address to launch campaigns with Pitchwise: ${link}\n\nThe link works once and expires in 7 days. If you did not create a Pitchwise account, ignore this email.`,
    html: `<p>Hi ${esc(name)},</p><p>Confirm that this is your email address to launch campaigns with Pitchwise.</p><p><a href="${esc(link)}">Confirm my email</a></p><p>The link works once and expires in 7 days. If you did not create a Pitchwise account, ignore this email.</p>`,
  };
}

/**
 * Makes a single-use account link for the user and emails it to their current address (the job
 * `sendAccountLinkJob`'s work): a random 160-bit token, only its SHA-256 stored in `auth_tokens`
 * with the address and the expiry (`LINK_TTL_MS`); earlier unused links of the same purpose stop
 * working. Links: `APP_URL/reset-password?token=...`, `APP_URL/verify-email?token=...`. Does nothing
 * for an unknown user, or for a verification when the address is already verified.
 */
export async function sendAccountLink(
  deps: Pick<AppContext, "db" | "env" | "providers">,
  userId: string,
  purpose: AccountLinkPurpose,
): Promise<void> {
  const user = await q.findUserById(deps.db, userId);
  if (!user || (purpose === "email_verification" && user.emailVerifiedAt)) return;
  const token = randomToken(20);
  await deps.db.transaction(async (tx) => {
    await q.retireAuthTokens(tx, user.id, purpose);
    await q.insertAuthToken(tx, {
      id: sessionIdFromToken(token),
      userId: user.id,
      purpose,
      email: user.email,
      expiresAt: new Date(Date.now() + LINK_TTL_MS[purpose]),
    });
  });
  const path = purpose === "password_reset" ? "reset-password" : "verify-email";
  const mail = linkEmail(purpose, user.name, `${deps.env.APP_URL}/${path}?token=${token}`);
  await deps.providers.email.send({ to: user.email, ...mail, tag: purpose.replace("_", "-") });
}

/**
 * `POST /api/auth/forgot-password`: queues sendPasswordResetJob for `email`, which sends a reset link
 * to its account if there is one. The answer (`FORGOT_PASSWORD_MESSAGE`) and the request's work are
 * the same either way (the account is looked up in the job). Limits: the per-IP auth limit (429),
 * and at most 5 links per address per hour (past that nothing more is sent, same answer).
 * @throws AppError TOO_MANY_REQUESTS.
 */
export async function requestPasswordReset(
  ctx: AppContext,
  input: ForgotPasswordInput,
  meta: { ip: string },
): Promise<{ message: string }> {
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "attempts");
  const email = input.email.toLowerCase();
  const allowed = await ctx.limiters.accountEmail.consume(`reset|${email}`).then(
    () => true,
    () => false,
  );
  // the account is looked up by the job: the request costs the same whether or not it exists
  if (allowed) await ctx.jobs.send(sendPasswordResetJob, { email });
  return { message: FORGOT_PASSWORD_MESSAGE };
}

/**
 * The sendPasswordResetJob's work: sendAccountLink(password_reset) to the account whose address is
 * `email` (case-insensitive); nothing for an unknown address.
 */
export async function sendPasswordResetTo(
  deps: Pick<AppContext, "db" | "env" | "providers">,
  email: string,
): Promise<void> {
  const user = await q.findUserByEmail(deps.db, email.toLowerCase());
  if (user) await sendAccountLink(deps, user.id, "password_reset");
}

/**
 * `POST /api/auth/reset-password`: with an unused, unexpired reset link sets the new password,
 * ends every session of the account, retires its other reset links, marks the address verified
 * (the link proved it) and opens a new session. Shape: `{user, workspace, token, expiresAt}`.
 * @throws AppError BAD_REQUEST (invalid, used or expired link; the address changed since it was
 *   sent); TOO_MANY_REQUESTS (per-IP auth limit).
 */
export async function resetPassword(ctx: AppContext, input: ResetPasswordInput, meta: { ip: string }) {
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "attempts");
  if (!AUTH_TOKEN_FORM.test(input.token)) throw new AppError("BAD_REQUEST", RESET_LINK_INVALID);
  const passwordHash = await hashPassword(input.password);
  const user = await ctx.db.transaction(async (tx) => {
    const link = await q.consumeAuthToken(tx, sessionIdFromToken(input.token), "password_reset");
    if (!link) return null;
    const u = await q.findUserById(tx, link.userId);
    if (!u || u.email.toLowerCase() !== link.email.toLowerCase()) return null;
    await q.updateUserPassword(tx, u.id, passwordHash);
    await q.deleteUserSessions(tx, u.id);
    await q.retireAuthTokens(tx, u.id, "password_reset");
    return (await q.markEmailVerified(tx, u.id, link.email)) ?? u;
  });
  if (!user) throw new AppError("BAD_REQUEST", RESET_LINK_INVALID);
  await ctx.limiters.authEmailFailures.delete(user.email.toLowerCase()).catch(() => {});
  const [first] = await listUserWorkspaces(ctx, user.id);
  const workspace = first ? await getWorkspace(ctx, first.id) : null;
  const s = await createSession(ctx, user.id, workspace?.id ?? null);
  return { user, workspace, ...s };
}

/**
 * `POST /api/auth/verify-email`: confirms the address with an unused, unexpired verification link
 * (signed in or not). Returns the user.
 * @throws AppError BAD_REQUEST (invalid, used or expired link, or the address changed since).
 */
export async function verifyEmail(ctx: AppContext, token: string): Promise<User> {
  if (!AUTH_TOKEN_FORM.test(token)) throw new AppError("BAD_REQUEST", VERIFY_LINK_INVALID);
  const user = await ctx.db.transaction(async (tx) => {
    const link = await q.consumeAuthToken(tx, sessionIdFromToken(token), "email_verification");
    return link ? q.markEmailVerified(tx, link.userId, link.email) : null;
  });
  if (!user) throw new AppError("BAD_REQUEST", VERIFY_LINK_INVALID);
  return user;
}

/**
 * `POST /api/auth/resend-verification`: emails a new verification link to the signed-in user
 * (at most 5 per hour). Returns the sentence to show.
 * @throws AppError TOO_MANY_REQUESTS.
 */
export async function resendVerification(ctx: AppContext, user: User): Promise<{ message: string }> {
  if (user.emailVerifiedAt) return { message: "Your email address is already verified." };
  await consumeOrThrow(ctx.limiters.accountEmail, `verify|${user.id}`, "verification emails");
  await ctx.jobs.send(sendAccountLinkJob, { userId: user.id, purpose: "email_verification" });
  return { message: `We sent a new verification link to ${user.email}. It works for 7 days.` };
}

/**
 * PUT /api/user/profile and tRPC `user.updateProfile`: the user feature's updateProfile, with an
 * address held for another account's recovery (emailHeldForRecovery) refused like a taken one and,
 * when the address changes, the recovery link's row stored in the change's own transaction
 * (recordEmailChange), and pending invitations to the new address in the account's own workspaces
 * revoked there too (workspaces revokeInvitesToMemberAddress: they would only hold seats); then followEmailChange (the notice to the old address, the new address's
 * verification link) and billing's queueCustomerEmailSync (the billing customer of each workspace the account
 * owns gets the new address). Returns the updated user. `meta.sessionId`: the session making the
 * change (it stays signed in).
 * @throws what updateProfile throws (BAD_REQUEST, FORBIDDEN, CONFLICT, TOO_MANY_REQUESTS, NOT_FOUND).
 */
export async function updateProfileAndFollow(
  ctx: AppContext,
  user: User,
  input: z.infer<typeof profileInput>,
  meta: { ip: string; sessionId: string },
): Promise<User> {
  let linkId: string | null = null;
  const updated = await updateProfile(
    ctx,
    user,
    input,
    meta,
    (email, userId) => emailHeldForRecovery(ctx, email, userId),
    async (tx, before, after) => {
      linkId = await recordEmailChange(tx, before, after);
      // an invitation to the new address in a workspace the person is in would only hold a seat
      await revokeInvitesToMemberAddress({ db: tx }, after.id, after.email);
    },
  );
  if (linkId) {
    await followEmailChange(ctx, user, updated, linkId);
    // the payments vendor's customer of every workspace the account owns gets the new address
    await queueCustomerEmailSync(ctx, { ownerId: updated.id }, "an email change");
  }
  return updated;
}

/**
 * PUT /api/user/password and tRPC `user.changePassword`: the user feature's changePassword (current
 * password checked, other sessions ended), then every still-unused password reset link of the
 * account is retired. A link asked for before the change would otherwise still set a password of
 * its holder's choosing and sign them in for the rest of its hour, undoing the change the owner just
 * made (OWASP Forgot Password Cheat Sheet: reset tokens stop working once the password changes).
 * @throws what changePassword throws (BAD_REQUEST wrong current password, TOO_MANY_REQUESTS).
 */
export async function changePasswordAndRetireLinks(
  ctx: AppContext,
  user: User,
  sessionId: string,
  input: z.infer<typeof passwordInput>,
  meta: { ip: string },
): Promise<void> {
  await changePassword(ctx, user, sessionId, input, meta);
  await q.retireAuthTokens(ctx.db, user.id, "password_reset");
}

/**
 * In the transaction that changes an account's email address (user's updateProfile): stores the
 * recovery link's row (id `pending-<40 hex>` until the notice job makes its token; `email` the
 * previous address, `created_at` the change's `after.updatedAt`, valid EMAIL_RECOVERY_TTL_MS). From
 * that commit on, the old address is held for its owner (emailHeldForRecovery) and the notice is on
 * record: followEmailChange queues it right after the commit, and a process that stops before that
 * leaves it to sendStrandedEmailChangeNotices. Returns the row's id.
 */
export async function recordEmailChange(
  tx: DbOrTx,
  before: Pick<User, "email">,
  after: Pick<User, "id" | "updatedAt">,
): Promise<string> {
  const linkId = `pending-${randomBytes(20).toString("hex")}`;
  await q.insertAuthToken(tx, {
    id: linkId,
    userId: after.id,
    purpose: EMAIL_RECOVERY_PURPOSE,
    email: before.email,
    createdAt: after.updatedAt,
    expiresAt: new Date(after.updatedAt.getTime() + EMAIL_RECOVERY_TTL_MS),
  });
  return linkId;
}

/** The notice job's id for the recovery row `linkId`: the same for the first send and the sweep's. */
const noticeJobId = (linkId: string) => uuidFromKey(`email-changed-notice:${linkId}`);

/**
 * After a committed change of the email address (user's updateProfile, which clears the
 * verification of the old address; recordEmailChange stored `linkId`): queues the notice to the
 * previous address (sendEmailChangedNotice: the change needed the password, but an owner who did
 * not make it must hear of it), with `after.updatedAt` as the moment of the change (its recovery
 * link revokes API keys made since), and a verification link to the new address. The link is
 * limited like resendVerification (5 links per hour per account); past the limit no link is sent
 * (the change itself stands, and the banner's resend answers with the wait). Never throws: the
 * change is saved, so a queue failure is logged and the notice left to the sweep
 * (sendStrandedEmailChangeNotices), the link to the banner's resend.
 */
export async function followEmailChange(
  ctx: Pick<AppContext, "jobs" | "limiters" | "log">,
  before: Pick<User, "email">,
  after: Pick<User, "id" | "email" | "emailVerifiedAt" | "updatedAt">,
  linkId: string,
): Promise<void> {
  try {
    await ctx.jobs.send(
      sendEmailChangedNoticeJob,
      {
        userId: after.id,
        oldEmail: before.email,
        newEmail: after.email,
        changedAt: after.updatedAt.toISOString(),
        linkId,
      },
      { id: noticeJobId(linkId) },
    );
  } catch (err) {
    ctx.log.warn(
      { err, userId: after.id },
      "email-changed notice not queued; the stranded-notice sweep queues it",
    );
  }
  if (after.emailVerifiedAt) return;
  const allowed = await ctx.limiters.accountEmail.consume(`verify|${after.id}`).then(
    () => true,
    () => false,
  );
  if (!allowed) return;
  try {
    await ctx.jobs.send(sendAccountLinkJob, { userId: after.id, purpose: "email_verification" });
  } catch (err) {
    ctx.log.warn({ err, userId: after.id }, "verification link not queued; the banner's resend sends one");
  }
}

/** Stranded notices one sweep queues at most (the next sweep, 5 minutes later, takes the rest). */
export const STRANDED_NOTICE_SWEEP_LIMIT = 1_000;

/**
 * The stranded-notice sweep (job auth.send-stranded-email-change-notices): an email change's
 * recovery row commits with the change (recordEmailChange) and its notice is queued after the
 * commit, so a process that stops in between would leave the old address unwarned. Queues the
 * notice of every recovery row still pending STRANDED_NOTICE_MINUTES after its change (unused,
 * unexpired), at most STRANDED_NOTICE_SWEEP_LIMIT per run, telling the old address the account's
 * current one; a notice whose job exists is not queued twice (noticeJobId). A row whose account is
 * back on that very address (changed back since) has nothing to warn of: it is retired. Returns how
 * many notices were queued (jobs that already existed included).
 */
export async function sendStrandedEmailChangeNotices(ctx: Pick<AppContext, "db" | "jobs">): Promise<number> {
  const rows = await q.pendingRecoveryRows(
    ctx.db,
    EMAIL_RECOVERY_PURPOSE,
    STRANDED_NOTICE_MINUTES,
    STRANDED_NOTICE_SWEEP_LIMIT,
  );
  let queued = 0;
  for (const r of rows) {
    if (r.currentEmail.toLowerCase() === r.email.toLowerCase()) {
      await q.consumeAuthToken(ctx.db, r.id, EMAIL_RECOVERY_PURPOSE);
      continue;
    }
    await ctx.jobs.send(
      sendEmailChangedNoticeJob,
      {
        userId: r.userId,
        oldEmail: r.email,
        newEmail: r.currentEmail,
        changedAt: r.createdAt.toISOString(),
        linkId: r.id,
      },
      { id: noticeJobId(r.id) },
    );
    queued++;
  }
  return queued;
}

/** A recovery link ("this wasn't me" in the email-changed notice) works for 7 days. */
export const EMAIL_RECOVERY_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The path of the recovery page the notice links to (client route, public). */
const RECOVERY_PATH = "/account/recover-email";

/**
 * The sendEmailChangedNoticeJob's work: emails `oldEmail` that the account's address is now
 * `newEmail` (masked, "n•••@example.com": the old mailbox may no longer be the owner's), with a
 * single-use recovery link `APP_URL/account/recover-email?token=...` valid 7 days
 * (EMAIL_RECOVERY_TTL_MS): a random 160-bit token of which only the SHA-256 is stored in
 * `auth_tokens` (purpose EMAIL_RECOVERY_PURPOSE, `email` the old address, `created_at` the change's
 * `changedAt`), as for password-reset links; the row is the one followEmailChange stored (`linkId`),
 * now keyed by the token's hash. Earlier recovery links stay valid (after two changes the first
 * owner's link must still work); a recovery retires the links of its own and later changes, never an
 * earlier one. Nothing for an unknown user.
 */
export async function sendEmailChangedNotice(
  deps: Pick<AppContext, "db" | "env" | "providers">,
  data: { userId: string; oldEmail: string; newEmail: string; changedAt?: string; linkId?: string },
): Promise<void> {
  const user = await q.findUserById(deps.db, data.userId);
  if (!user) return;
  const changedAt = data.changedAt ? new Date(data.changedAt) : new Date();
  const token = randomToken(20);
  // the row followEmailChange stored gets the token's hash (a retired row stays retired); a job
  // queued without it, or run again after that, stores a new row
  const rekeyed = data.linkId
    ? await q.rekeyAuthToken(deps.db, data.linkId, sessionIdFromToken(token))
    : false;
  if (!rekeyed)
    await q.insertAuthToken(deps.db, {
      id: sessionIdFromToken(token),
      userId: user.id,
      purpose: EMAIL_RECOVERY_PURPOSE,
      email: data.oldEmail,
      createdAt: changedAt,
      expiresAt: new Date(changedAt.getTime() + EMAIL_RECOVERY_TTL_MS),
    });
  const masked = maskEmail(data.newEmail);
  const link = `${deps.env.APP_URL}${RECOVERY_PATH}?token=${token}`;
  await deps.providers.email.send({
    to: data.oldEmail,
    subject: "Your Pitchwise email was changed",
    text: `Hi ${user.name},\n\nYour Pitchwise email was changed to ${masked}. From now on the account signs in with that address.\n\nIf this wasn't you, someone knows your password. Secure your account: ${link}\n\nThis moves the account back to this address, signs out every device and lets you choose a new password. The link works once, for 7 days. If you made this change, ignore this email.`,
    html: `<p>Hi ${esc(user.name)},</p><p>Your Pitchwise email was changed to <strong>${esc(masked)}</strong>. From now on the account signs in with that address.</p><p>If this wasn't you, someone knows your password. <a href="${esc(link)}">Secure your account</a>: this moves the account back to this address, signs out every device and lets you choose a new password.</p><p>The link works once, for 7 days. If you made this change, ignore this email.</p>`,
    tag: "email-changed",
  });
}

const RECOVERY_LINK_INVALID =
  "This recovery link is not valid. Please open the link from the email exactly as it is.";
const RECOVERY_LINK_USED =
  "This recovery link was already used: the account was moved back to this address and every device signed out. To get in, use Forgot password on the sign-in page with this address.";
const RECOVERY_LINK_EXPIRED =
  "This recovery link has expired (links work for 7 days). Use Forgot password on the sign-in page, or reply to the email we sent so we can help you get the account back.";

/**
 * True when `email` waits for another account's recovery: an unused, unexpired email-recovery link
 * (or the row followEmailChange stores before the notice is sent) of an account other than
 * `exceptUserId` restores it. Such an address cannot be registered or moved to by anyone else for
 * the link's 7 days: whoever moved an account away from its owner's address (they knew the
 * password) could otherwise take the freed address with another account and make the owner's
 * recovery link answer "that address now belongs to another Pitchwise account".
 */
export async function emailHeldForRecovery(
  ctx: Pick<AppContext, "db">,
  email: string,
  exceptUserId: string | null,
): Promise<boolean> {
  return q.pendingTokenForEmail(ctx.db, EMAIL_RECOVERY_PURPOSE, email, exceptUserId);
}

/** The sentence of a recovery whose old address now belongs to another account. */
export function recoveryAddressTakenMessage(email: string): string {
  return `We cannot move the account back to ${email}: that address now belongs to another Pitchwise account. Nothing was changed. Reply to the email we sent so we can help you get the account back.`;
}

/** The sentence after a recovery: where the account is now and what comes next. */
export function recoveredMessage(email: string): string {
  return `Your account is back on ${email} and every device was signed out. Now choose a new password.`;
}

/** The stored recovery link of `token` (used or not, expired or not), or null for an unknown one. */
async function recoveryLink(ctx: Pick<AppContext, "db">, token: string) {
  return AUTH_TOKEN_FORM.test(token)
    ? ((await q.findAuthToken(ctx.db, sessionIdFromToken(token), EMAIL_RECOVERY_PURPOSE)) ?? null)
    : null;
}

/** Why a recovery link (recoveryLink's row) cannot be used (invalid, used or expired), as an AppError. */
function recoveryLinkError(row: { usedAt: Date | null } | null): AppError {
  if (!row) return new AppError("BAD_REQUEST", RECOVERY_LINK_INVALID);
  if (row.usedAt) return new AppError("BAD_REQUEST", RECOVERY_LINK_USED);
  return new AppError("BAD_REQUEST", RECOVERY_LINK_EXPIRED);
}

/**
 * `GET /api/auth/recover-email?token=...` (tRPC `auth.checkEmailRecovery`): what the recovery link
 * would do, without using it: `{email, available}` with `email` the address it restores and
 * `available` false when another account has that address now.
 * @throws AppError BAD_REQUEST (invalid, used or expired link: one sentence each).
 */
export async function checkEmailRecovery(
  ctx: Pick<AppContext, "db">,
  token: string,
): Promise<{ email: string; available: boolean }> {
  const row = await recoveryLink(ctx, token);
  if (!row || row.usedAt || row.expiresAt.getTime() <= Date.now()) throw recoveryLinkError(row);
  const holder = await q.findUserByEmail(ctx.db, row.email);
  return { email: row.email, available: !holder || holder.id === row.userId };
}

/**
 * `POST /api/auth/recover-email {token}` (tRPC `auth.recoverEmail`), the "this wasn't me" link of
 * the email-changed notice. In one transaction: uses the link (once), moves the account back to the
 * address the notice went to, marked verified (the link proved it: only a reader of that mailbox
 * opens it), makes the password unusable (RECOVERY_LOCK_PREFIX: whoever made the change knows it,
 * and would otherwise sign in again and move the account away once more; a sign-in with it answers
 * PASSWORD_RETIRED_MESSAGE), ends every session of the account, retires the recovery links of this
 * change and later ones (an earlier change's link stays usable) and its reset and verification
 * links, revokes the API keys the account created since the change (in any workspace), disables
 * the webhook endpoints it created and revokes the pending invitations it sent since then (webhooks
 * disableEndpointsCreatedBySince, workspaces revokeInvitesSentBySince), and makes a password-reset
 * link (1 hour) whose token is returned so the page can lead the person to choose a new password
 * (the old one is known to whoever made the change); after the commit the billing customer of each
 * workspace the account owns gets the restored address (billing queueCustomerEmailSync). Nobody can sign in
 * until a new password is set, so nothing but its use, a recovery with an earlier change's link, or a Forgot password
 * request for the restored address (which emails a new link to that address) retires that token
 * before its hour is up. Shape: `{email, resetToken, revokedApiKeys, disabledWebhookEndpoints,
 * revokedInvites}` (counts).
 * @throws AppError BAD_REQUEST (invalid, used or expired link); CONFLICT when another account has
 *   the address now (nothing changed, the link stays usable); TOO_MANY_REQUESTS (per-IP auth limit).
 */
export async function recoverEmail(
  ctx: AppContext,
  token: string,
  meta: { ip: string },
): Promise<{
  email: string;
  resetToken: string;
  revokedApiKeys: number;
  disabledWebhookEndpoints: number;
  revokedInvites: number;
}> {
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "attempts");
  if (!AUTH_TOKEN_FORM.test(token)) throw new AppError("BAD_REQUEST", RECOVERY_LINK_INVALID);
  const resetToken = randomToken(20);
  const seen: { email?: string; userId?: string } = {};
  try {
    const done = await ctx.db.transaction(async (tx) => {
      const link = await q.consumeAuthToken(tx, sessionIdFromToken(token), EMAIL_RECOVERY_PURPOSE);
      if (!link) return null;
      seen.email = link.email;
      const holder = await q.findUserByEmail(tx, link.email);
      if (holder && holder.id !== link.userId)
        throw new AppError("CONFLICT", recoveryAddressTakenMessage(link.email));
      // the password is known to whoever made the change: unusable from now on (login), so only
      // whoever reads this address (the reset token below, or Forgot password) sets a new one
      const user = await q.restoreUserEmail(tx, link.userId, link.email, RECOVERY_LOCK_PREFIX);
      if (!user) return null;
      seen.userId = user.id;
      await q.deleteUserSessions(tx, user.id);
      // the links of this change and of later ones; an earlier change's link stays usable, so the
      // holder of a later address (who changed it again to get a link) cannot retire the owner's
      await q.retireRecoveryLinksSince(tx, user.id, EMAIL_RECOVERY_PURPOSE, link.createdAt);
      for (const purpose of ["password_reset", "email_verification"])
        await q.retireAuthTokens(tx, user.id, purpose);
      const revokedApiKeys = await revokeKeysCreatedBySince({ db: tx }, user.id, link.createdAt);
      // what else whoever made the change may have set up to keep a way in or a copy of the data
      const disabledWebhookEndpoints = await disableEndpointsCreatedBySince(
        { db: tx },
        user.id,
        link.createdAt,
      );
      const revokedInvites = await revokeInvitesSentBySince({ db: tx }, user.id, link.createdAt);
      // the address is the member's again: an invitation to it would only hold a seat
      await revokeInvitesToMemberAddress({ db: tx }, user.id, link.email);
      await q.insertAuthToken(tx, {
        id: sessionIdFromToken(resetToken),
        userId: user.id,
        purpose: "password_reset",
        email: link.email,
        expiresAt: new Date(Date.now() + LINK_TTL_MS.password_reset),
      });
      return { email: user.email, resetToken, revokedApiKeys, disabledWebhookEndpoints, revokedInvites };
    });
    if (!done) throw recoveryLinkError(await recoveryLink(ctx, token));
    // the account is on its old address again: so is the billing customer of what it owns
    if (seen.userId) await queueCustomerEmailSync(ctx, { ownerId: seen.userId }, "an email recovery");
    return done;
  } catch (e) {
    // two accounts raced for the address: the unique index refused this one
    if (isUniqueViolation(e) && seen.email)
      throw new AppError("CONFLICT", recoveryAddressTakenMessage(seen.email));
    throw e;
  }
}

/** The sentence of the 403 an unverified account gets when it tries to send (issue 11). */
export const UNVERIFIED_SEND_MESSAGE =
  "Please verify your email address before sending: open the link we emailed you, or resend it from the banner at the top of the app. Until then you can send only to your own address.";

/**
 * Refuses sending for a user whose email address is not verified, unless every recipient is the
 * user's own address (`to`, case-insensitive). Used by campaign launches and one-off sends.
 * @throws AppError FORBIDDEN (UNVERIFIED_SEND_MESSAGE).
 */
export async function assertCanSend(
  ctx: Pick<AppContext, "db">,
  userId: string,
  to: readonly string[] | null = null,
): Promise<void> {
  const user = await q.findUserById(ctx.db, userId);
  if (!user || user.emailVerifiedAt) return;
  const own = user.email.toLowerCase();
  if (to && to.length > 0 && to.every((a) => a.toLowerCase() === own)) return;
  throw new AppError("FORBIDDEN", UNVERIFIED_SEND_MESSAGE);
}
