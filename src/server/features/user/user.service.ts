import type { z } from "zod";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { isConstraintViolation, isUniqueViolation } from "../../db/errors";
import type { User } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { hashPassword, verifyPassword } from "../../lib/passwords";
import { INVALID_PHONE_MESSAGE, toE164 } from "../../lib/phone";
import { consumeOrThrow } from "../../lib/rate-limit";
import * as q from "./user.queries";
import type { passwordInput, profileInput, settingsInput } from "./user.schemas";

/** The sentence of a profile update that changes the email without the current password. */
export const EMAIL_CHANGE_NEEDS_PASSWORD = "Enter your current password to change your email.";
/** The sentence of a profile update that changes the email with a wrong current password. */
export const EMAIL_CHANGE_WRONG_PASSWORD =
  "That is not your current password. Enter your current password to change your email.";

/**
 * Checks the account's current password before a sensitive change, with the same limits as
 * changePassword: per client IP (authIp) and per account (passwordCheck, cleared by a success), so a
 * stolen session cannot guess it.
 * @throws AppError BAD_REQUEST `missing` when no password was given; FORBIDDEN `wrong` when it does
 *   not match; TOO_MANY_REQUESTS past a limit.
 */
async function assertCurrentPassword(
  ctx: AppContext,
  user: User,
  password: string | null | undefined,
  meta: { ip: string },
  sentences: { missing: string; wrong: string },
) {
  if (!password) throw new AppError("BAD_REQUEST", sentences.missing);
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "password attempts");
  await consumeOrThrow(ctx.limiters.passwordCheck, user.id, "password attempts");
  if (!(await verifyPassword(user.passwordHash, password))) throw new AppError("FORBIDDEN", sentences.wrong);
  await ctx.limiters.passwordCheck.delete(user.id).catch(() => {});
}

/**
 * Updates name, email, business name and phone. Changing the email needs the account's current
 * password (`currentPassword`, checked and rate-limited like PUT /api/user/password): otherwise a
 * stolen session could move the account to an address the thief reads and then reset the password.
 * Other fields change without it. A changed email address is no longer verified
 * (`email_verified_at` cleared in the same update): verification proves one address, so sending
 * stays limited (assertCanSend) until the new address is confirmed through its own link; the
 * caller sends that link and the notice to the old address (auth's followEmailChange). Like a
 * password change, an email change signs out the account's other sessions (`meta.sessionId`, the
 * session making the change, stays): a session opened elsewhere, perhaps by whoever knew the
 * password, does not keep access to an account that has just moved to a new address.
 * `addressHeld(email, userId)` (auth's emailHeldForRecovery, given by the adapters: this feature
 * cannot import auth) says whether the new address waits for another account's recovery link; such
 * an address is refused like a taken one. `recordEmailChange(tx, before, after)` (auth's
 * recordEmailChange) runs in the same transaction as the update when the address changed, so what
 * auth must do after a change (the notice to the old address) is on record whenever the change is:
 * a process that dies right after the commit leaves it for auth's sweep, never lost.
 * @throws AppError BAD_REQUEST (EMAIL_CHANGE_NEEDS_PASSWORD) / FORBIDDEN (EMAIL_CHANGE_WRONG_PASSWORD)
 *   for a new email without the right current password; TOO_MANY_REQUESTS past the password-check
 *   limits; CONFLICT when the email belongs to another account or is held for its recovery; BAD_REQUEST for a phone number
 *   libphonenumber cannot parse (default country US).
 */
export async function updateProfile(
  ctx: AppContext,
  user: User,
  input: z.infer<typeof profileInput>,
  meta: { ip: string; sessionId: string },
  addressHeld: (email: string, userId: string) => Promise<boolean>,
  recordEmailChange?: (tx: DbOrTx, before: User, after: User) => Promise<void>,
) {
  let phone = input.phone || null;
  if (phone) {
    const e164 = toE164(phone);
    if (!e164) throw new AppError("BAD_REQUEST", INVALID_PHONE_MESSAGE);
    phone = e164;
  }
  const emailChanged = input.email.toLowerCase() !== user.email.toLowerCase();
  if (emailChanged) {
    await assertCurrentPassword(ctx, user, input.currentPassword, meta, {
      missing: EMAIL_CHANGE_NEEDS_PASSWORD,
      wrong: EMAIL_CHANGE_WRONG_PASSWORD,
    });
    const other = await q.findUserByEmail(ctx.db, input.email);
    if (other || (await addressHeld(input.email, user.id)))
      throw new AppError("CONFLICT", "That email is already used by another account");
  }
  try {
    return await ctx.db.transaction(async (tx) => {
      const updated = await q.updateUser(tx, user.id, {
        name: input.name,
        email: input.email,
        businessName: input.businessName || null,
        phone,
        ...(emailChanged ? { emailVerifiedAt: null } : {}),
      });
      if (!updated) throw new AppError("NOT_FOUND", "Account not found");
      if (emailChanged) {
        await q.deleteOtherSessions(tx, user.id, meta.sessionId);
        if (recordEmailChange) await recordEmailChange(tx, user, updated);
      }
      return updated;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "That email is already used by another account");
    throw e;
  }
}

/**
 * Changes the password after verifying the current one; signs out the user's other sessions.
 * The current-password check is limited per account (AUTH_RATE_LIMIT_PER_IP_EMAIL checks per 15 minutes)
 * and per client IP, so a stolen session cannot guess the password (issue 11, finding 4).
 * @throws AppError BAD_REQUEST "Current password is incorrect"; TOO_MANY_REQUESTS.
 */
export async function changePassword(
  ctx: AppContext,
  user: User,
  sessionId: string,
  input: z.infer<typeof passwordInput>,
  meta: { ip: string },
) {
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "password attempts");
  await consumeOrThrow(ctx.limiters.passwordCheck, user.id, "password attempts");
  if (!(await verifyPassword(user.passwordHash, input.currentPassword)))
    throw new AppError("BAD_REQUEST", "Current password is incorrect");
  await ctx.limiters.passwordCheck.delete(user.id).catch(() => {});
  await q.updateUser(ctx.db, user.id, { passwordHash: await hashPassword(input.newPassword) });
  await q.deleteOtherSessions(ctx.db, user.id, sessionId);
}

/**
 * The sentences of a deletion's password check (confirmPasswordForDeletion), by what is deleted: the
 * account (Settings > Profile) or a workspace (Settings > Workspace).
 */
export const DELETION_PASSWORD_SENTENCES = {
  account: {
    missing: "Enter your current password to delete your account.",
    wrong: "That is not your current password. Enter your current password to delete your account.",
  },
  workspace: {
    missing: "Enter your current password to delete this workspace.",
    wrong: "That is not your current password. Enter your current password to delete this workspace.",
  },
} as const;

/**
 * Checks the account's current password before a deletion (features/account deleteAccount and
 * deleteWorkspace: `what` is deleted), with the limits of a password change (per client IP and per
 * account), so a stolen session can neither delete the account or a workspace nor guess the password
 * by trying (GitHub asks for it again before deleting an organisation or an account).
 * @throws AppError BAD_REQUEST (DELETION_PASSWORD_SENTENCES[what].missing), FORBIDDEN (`.wrong`),
 *   TOO_MANY_REQUESTS past a limit.
 */
export async function confirmPasswordForDeletion(
  ctx: AppContext,
  user: User,
  password: string,
  meta: { ip: string },
  what: keyof typeof DELETION_PASSWORD_SENTENCES,
): Promise<void> {
  await assertCurrentPassword(ctx, user, password, meta, DELETION_PASSWORD_SENTENCES[what]);
}

/**
 * The last step of an account's deletion (features/account deleteAccount, once the workspaces it
 * owned are deleted and the others left): deletes the user with their sessions, links and
 * memberships; what they wrote in workspaces they leave keeps a null author.
 * @throws AppError CONFLICT when the account owns a workspace again (an ownership transfer to it
 *   since the check): nothing is deleted then.
 */
export async function deleteUserAccount(ctx: Pick<AppContext, "db">, userId: string): Promise<void> {
  try {
    await q.deleteUser(ctx.db, userId);
  } catch (e) {
    if (isConstraintViolation(e, "23503", "workspaces_owner_id_fkey"))
      throw new AppError(
        "CONFLICT",
        "Your account was just made the owner of a workspace. Transfer its ownership or delete it first, then try again.",
      );
    throw e;
  }
}

/** Saves the theme and/or merges preferences into the stored ones. */
export async function updateSettings(ctx: AppContext, user: User, input: z.infer<typeof settingsInput>) {
  const updated = await q.updateUser(ctx.db, user.id, {
    ...(input.theme ? { theme: input.theme } : {}),
    ...(input.preferences ? { preferences: { ...user.preferences, ...input.preferences } } : {}),
  });
  if (!updated) throw new AppError("NOT_FOUND", "Account not found");
  return updated;
}

/** Public profile fields of a user, as teammates see them. */
export interface UserProfile {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  businessName: string | null;
  preferences: User["preferences"];
  /** whether the account verified its email address (users.email_verified_at set) */
  emailVerified: boolean;
}

/**
 * Profiles of the given users (for member lists, invites and sender details). Unknown ids are
 * left out. Shape: Map id -> UserProfile.
 */
export async function getUserProfiles(ctx: { db: DbOrTx }, ids: string[]): Promise<Map<string, UserProfile>> {
  const rows = ids.length ? await q.findUsersByIds(ctx.db, [...new Set(ids)]) : [];
  return new Map(
    rows.map((u) => [
      u.id,
      {
        id: u.id,
        name: u.name,
        email: u.email,
        phone: u.phone,
        businessName: u.businessName,
        preferences: u.preferences,
        emailVerified: u.emailVerifiedAt !== null,
      },
    ]),
  );
}

/** What displayNames says for an id no user has any more (the account was deleted meanwhile). */
export const FORMER_MEMBER_NAME = "A former member";

/**
 * The names the app shows for the people who did something (who launched a campaign, wrote a note,
 * added a contact, created an API key or a webhook endpoint), in one read of the users: for each
 * distinct non-null id of `ids`, the user's name (trimmed), else their email when the name is blank,
 * else FORMER_MEMBER_NAME when no user has that id any more. The one fallback every "by <name>" line
 * of the app uses (a name is kept after its person leaves the workspace, as a CRM keeps a former
 * colleague's work signed). Nulls are skipped: a caller shows nothing (or its own wording) for "nobody
 * recorded". Shape: Map id -> display name; no query when there is no id.
 */
export async function displayNames(
  ctx: { db: DbOrTx },
  ids: readonly (string | null | undefined)[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === "string" && id !== ""))];
  const profiles = await getUserProfiles(ctx, wanted);
  return new Map(
    wanted.map((id) => {
      const p = profiles.get(id);
      return [id, p ? p.name.trim() || p.email : FORMER_MEMBER_NAME];
    }),
  );
}

/**
 * Ids of the users who turned Weekly Reports on (Settings > Preferences, spec: weeklyReports,
 * default off), for the weekly report job (dashboard.handlers).
 */
export async function listWeeklyReportUserIds(ctx: { db: DbOrTx }): Promise<string[]> {
  return q.selectUserIdsWithPreference(ctx.db, "weeklyReports");
}
