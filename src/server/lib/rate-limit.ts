import ipaddr from "ipaddr.js";
import {
  type RateLimiterAbstract,
  RateLimiterDrizzle,
  RateLimiterMemory,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { Env } from "../../env";
import type { Db } from "../db/client";
import { rateLimits } from "../db/schema";
import { AppError } from "./errors";

/** A limiter of createRateLimiters (memory or Postgres store; same interface). */
export type RateLimiter = RateLimiterAbstract;

/**
 * How many times one workspace invitation may be resent per day (and at most once a minute): the
 * invitee needs the link once or twice; more only mails the same address again and again.
 */
export const INVITE_RESENDS_PER_DAY = 5;

/**
 * Invitation emails (new invitations and resends) one workspace may send per day. Generous for a team
 * (Enterprise has unlimited seats) while bounding what one workspace can mail to strangers with a
 * workspace name and sender name of its choosing.
 */
export const INVITE_EMAILS_PER_WORKSPACE_PER_DAY = 50;

/**
 * Test emails ("Send test", POST /api/campaigns/email/test) an account that has not verified its
 * address may send per hour. A test goes to the account's own address, which such an account may not
 * own: anyone can sign up with a stranger's address and, without a limit, mail them the draft of their
 * choosing (any text and links) again and again, unmetered, from the app's sending domain. A verified
 * account is not limited (campaigns.service sendTestEmail).
 */
export const TEST_EMAILS_PER_HOUR = 10;

/**
 * The key a client address counts under in the per-IP limits: an IPv6 address by its /64 prefix,
 * written `2001:db8:1:2::/64` (a single host, home or VPS is given a whole /64, RFC 6177 and RIPE-690,
 * so keying by the full address gave one client 2^64 buckets); an IPv4-mapped IPv6 address
 * (`::ffff:203.0.113.7`, what a dual-stack socket reports for an IPv4 peer) as its IPv4 address; an
 * IPv4 address as itself (normalised, e.g. without leading zeros). Any other text is returned as it
 * is (req.clientIp is always an address; this never throws).
 */
export function ipRateKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv4") return addr.toString();
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/** The limiter methods whose first argument is the key (rate-limiter-flexible's public API). */
const KEYED_METHODS = new Set(["consume", "penalty", "reward", "block", "get", "set", "delete"]);

/**
 * `limiter` with every key passed through `toKey` first (consume, penalty, reward, block, get, set,
 * delete), so callers keep passing the client's address and the limiter counts by ipRateKey.
 */
function keyedBy(limiter: RateLimiter, toKey: (key: string) => string): RateLimiter {
  return new Proxy(limiter, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && KEYED_METHODS.has(prop))
        return (key: string | number, ...rest: unknown[]) => value.call(target, toKey(String(key)), ...rest);
      return value.bind(target);
    },
  });
}

/** A key `address|rest` (the login limit per address and email) with its address part by ipRateKey. */
function ipPrefixedKey(key: string): string {
  const bar = key.indexOf("|");
  return bar < 0 ? ipRateKey(key) : ipRateKey(key.slice(0, bar)) + key.slice(bar);
}

/**
 * Fixed-window limiters (rate-limiter-flexible). Where the windows live is `env.RATE_LIMIT_STORE`:
 * - `postgres` (the production default): the table rate_limits through RateLimiterDrizzle, so every
 *   `app` machine counts against the same window (with two machines a per-process window would let
 *   an attacker through twice as often, and an API key's X-RateLimit-Remaining would depend on which
 *   machine answered). Each limiter has an in-memory insurance limiter with the same points: while
 *   Postgres errors, the machine still limits on its own. One of them deletes windows that ended
 *   more than an hour ago, every 5 minutes.
 * - `memory` (development and tests): per process.
 * The per-IP limiters (authIp, authIpEmail, demoIp) take the client's address as callers pass it
 * (req.clientIp) and count it by ipRateKey: an IPv6 client per /64.
 * `db`: the app's Drizzle client (used only by the postgres store).
 */
export function createRateLimiters(env: Env, db: Db) {
  let first = true;
  const limiter = (name: string, points: number, duration: number): RateLimiter => {
    const memory = new RateLimiterMemory({ keyPrefix: name, points, duration });
    if (env.RATE_LIMIT_STORE !== "postgres") return memory;
    const r = new RateLimiterDrizzle({
      storeClient: db,
      schema: rateLimits,
      keyPrefix: name,
      points,
      duration,
      insuranceLimiter: memory,
      // one cleanup timer for the shared table (it deletes every limiter's ended windows)
      clearExpiredByTimeout: first,
    });
    first = false;
    return r;
  };
  return {
    /** login + register (+ forgot-password) attempts per client IP (IPv6: /64), per 15 minutes: 429 past it */
    authIp: keyedBy(limiter("auth-ip", env.AUTH_RATE_LIMIT_PER_IP, 15 * 60), ipRateKey),
    /** login attempts per `${client IP}|${email}` (IPv6: /64), per 15 minutes: 429 past it; cleared by a success */
    authIpEmail: keyedBy(limiter("auth-ip-email", env.AUTH_RATE_LIMIT_PER_IP_EMAIL, 15 * 60), ipPrefixedKey),
    /**
     * failed logins per email from all clients, per 15 minutes: never refuses, only counts; past
     * AUTH_RATE_LIMIT_PER_EMAIL each attempt waits (`slowDownMs`), so the owner is slowed, not locked out
     */
    authEmailFailures: limiter("auth-email-failures", 1_000_000, 15 * 60),
    /** current-password checks (PUT /api/user/password) per account, per 15 minutes */
    passwordCheck: limiter("password-check", env.AUTH_RATE_LIMIT_PER_IP_EMAIL, 15 * 60),
    /** registrations per email address, per 15 minutes */
    registerEmail: limiter("register-email", env.AUTH_RATE_LIMIT_PER_IP_EMAIL, 15 * 60),
    /** password-reset and verification emails per address, per hour */
    accountEmail: limiter("account-email", 5, 60 * 60),
    /** demo requests per client IP (IPv6: /64), per hour */
    demoIp: keyedBy(limiter("demo-ip", env.DEMO_RATE_LIMIT_PER_IP, 60 * 60), ipRateKey),
    /** demo requests per phone number or email address, per day */
    demoTarget: limiter("demo-target", env.DEMO_RATE_LIMIT_PER_TARGET, 24 * 60 * 60),
    /** /api/v1 requests per API key, per minute (issue 15) */
    apiKey: limiter("api-key", env.API_RATE_LIMIT_PER_MINUTE, 60),
    /** resends per workspace invitation (key: the invite id), per minute: one */
    inviteResendMinute: limiter("invite-resend-minute", 1, 60),
    /** resends per workspace invitation (key: the invite id), per day */
    inviteResendDay: limiter("invite-resend-day", INVITE_RESENDS_PER_DAY, 24 * 60 * 60),
    /** test emails per unverified account (key: the user id), per hour (TEST_EMAILS_PER_HOUR) */
    testEmailUser: limiter("test-email-user", TEST_EMAILS_PER_HOUR, 60 * 60),
    /** invitation emails, new and resent, per workspace (key: the workspace id), per day */
    inviteEmailsWorkspace: limiter(
      "invite-emails-workspace",
      INVITE_EMAILS_PER_WORKSPACE_PER_DAY,
      24 * 60 * 60,
    ),
  };
}
export type RateLimiters = ReturnType<typeof createRateLimiters>;

/**
 * Consumes one point for `key`.
 * @throws AppError TOO_MANY_REQUESTS ("Too many attempts. Please try again in N minutes.")
 */
export async function consumeOrThrow(limiter: RateLimiter, key: string, what = "attempts"): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (e) {
    if (e instanceof RateLimiterRes) {
      const minutes = Math.max(1, Math.ceil(e.msBeforeNext / 60000));
      throw new AppError(
        "TOO_MANY_REQUESTS",
        `Too many ${what}. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      );
    }
    throw e;
  }
}

/**
 * The wait before checking a login for an email with `failures` recent failed attempts (from every
 * client): none up to `freeFailures`, then 250 ms doubling per further failure, capped at `maxMs`.
 * A slow-down instead of a lockout (OWASP Authentication Cheat Sheet, "Account Lockout": lockouts let
 * anyone deny the owner access).
 */
export function slowDownMs(failures: number, freeFailures: number, maxMs: number): number {
  if (failures < freeFailures) return 0;
  return Math.min(maxMs, 250 * 2 ** Math.min(16, failures - freeFailures));
}

/** Points consumed so far under `key` (0 when none). */
export async function pointsUsed(limiter: RateLimiter, key: string): Promise<number> {
  const res = await limiter.get(key);
  return res?.consumedPoints ?? 0;
}
