import { sha256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import type { AppContext } from "../../context";
import type { Session, User, Workspace } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { hashPassword, verifyPassword } from "../../lib/passwords";
import { consumeOrThrow, pointsUsed, slowDownMs } from "../../lib/rate-limit";
import {
  createWorkspace,
  getWorkspace,
  listUserWorkspaces,
  type Tenant,
  toWorkspaceSummary,
} from "../workspaces/workspaces.service";
import * as q from "./auth.queries";
import type { LoginInput, RegisterInput } from "./auth.schemas";

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
  };
}

export { hashPassword, verifyPassword };

function sessionIdFromToken(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

/**
 * Creates a session on `workspaceId` (null: the user's first workspace, resolved on first use);
 * returns the raw token for the cookie (only its SHA-256 is stored).
 */
export async function createSession(
  ctx: Pick<AppContext, "db">,
  userId: string,
  workspaceId: string | null = null,
) {
  const token = randomToken(20);
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await q.insertSession(ctx.db, { id: sessionIdFromToken(token), userId, workspaceId, expiresAt });
  return { token, expiresAt };
}

/**
 * Resolves a cookie token to its session and user. Expired sessions are deleted; sessions past
 * half their life are extended to 30 days (sliding expiry). Returns null when invalid.
 */
export async function validateSessionToken(
  ctx: Pick<AppContext, "db">,
  token: string,
): Promise<{ session: Session; user: User } | null> {
  if (!/^[a-z2-7]{16,64}$/.test(token)) return null;
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
 * @throws AppError CONFLICT when the email (case-insensitive) is taken; TOO_MANY_REQUESTS.
 */
export async function register(ctx: AppContext, input: RegisterInput, meta: { ip: string }) {
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "attempts");
  await consumeOrThrow(ctx.limiters.registerEmail, input.email.toLowerCase(), "attempts");
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
  return created;
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
 * @throws AppError UNAUTHORIZED "Invalid email or password"; TOO_MANY_REQUESTS.
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
  const ok = user
    ? await verifyPassword(user.passwordHash, input.password)
    : await verifyPassword(await dummyHash, input.password).then(() => false);
  if (!user || !ok) {
    await ctx.limiters.authEmailFailures.consume(email).catch(() => {});
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
 * Shape: `{user, workspace, token, expiresAt}`.
 * @throws as `login`.
 */
export async function signIn(ctx: AppContext, input: LoginInput, meta: { ip: string }) {
  const user = await login(ctx, input, meta);
  const [first] = await listUserWorkspaces(ctx, user.id);
  const workspace = first ? await getWorkspace(ctx, first.id) : null;
  const s = await createSession(ctx, user.id, workspace?.id ?? null);
  return { user, workspace, ...s };
}
