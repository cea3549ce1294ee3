import { hash, verify } from "@node-rs/argon2";
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import type { AppContext } from "../../context";
import type { Session, User } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { consumeOrThrow } from "../../lib/rate-limit";
import * as q from "./auth.queries";
import type { LoginInput, RegisterInput } from "./auth.schemas";

/** Session lifetime and the sliding-refresh threshold (the Lucia recipe): 30 days, refreshed past half-life. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const SESSION_REFRESH_MS = 15 * 24 * 60 * 60 * 1000;
export const SESSION_COOKIE = "pw_session";

// argon2id (the @node-rs/argon2 default) with OWASP's minimum: m=19 MiB, t=2, p=1.
const ARGON = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
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

export function toPublicUser(u: User): PublicUser {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    business_name: u.businessName,
    phone: u.phone,
    plan: u.plan,
    subscription_status: u.subscriptionStatus,
    subscription_tier: u.subscriptionTier,
    theme: u.theme,
    preferences: u.preferences,
    created_at: u.createdAt.toISOString(),
  };
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}

function sessionIdFromToken(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

/** Creates a session; returns the raw token for the cookie (only its SHA-256 is stored). */
export async function createSession(ctx: Pick<AppContext, "db">, userId: string) {
  const token = randomToken(20);
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await q.insertSession(ctx.db, { id: sessionIdFromToken(token), userId, expiresAt });
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
  await consumeOrThrow(ctx.limiters.authEmail, input.email.toLowerCase(), "attempts");
  const passwordHash = await hashPassword(input.password);
  const user = await q.insertUser(ctx.db, {
    name: input.name,
    email: input.email,
    businessName: input.business_name || null,
    passwordHash,
  });
  if (!user) throw new AppError("CONFLICT", "An account with this email already exists");
  return user;
}

/**
 * Checks credentials. The error never says whether the email exists, and an unknown email still
 * costs one argon2 verification so timing does not tell either.
 * @throws AppError UNAUTHORIZED "Invalid email or password"; TOO_MANY_REQUESTS.
 */
export async function login(ctx: AppContext, input: LoginInput, meta: { ip: string }) {
  await consumeOrThrow(ctx.limiters.authIp, meta.ip, "login attempts");
  await consumeOrThrow(ctx.limiters.authEmail, input.email.toLowerCase(), "login attempts");
  const user = await q.findUserByEmail(ctx.db, input.email);
  if (!user) {
    dummyHash ??= hashPassword("not-a-real-password");
    await verifyPassword(await dummyHash, input.password);
    throw new AppError("UNAUTHORIZED", "Invalid email or password");
  }
  if (!(await verifyPassword(user.passwordHash, input.password)))
    throw new AppError("UNAUTHORIZED", "Invalid email or password");
  return user;
}
