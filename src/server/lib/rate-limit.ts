import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Env } from "../../env";
import { AppError } from "./errors";

/**
 * Fixed-window limiters (rate-limiter-flexible). In memory per process: with several `app`
 * machines each enforces its own window, which still bounds abuse per machine.
 */
export function createRateLimiters(env: Env) {
  return {
    /** login + register (+ forgot-password) attempts per client IP, per 15 minutes: 429 past it */
    authIp: new RateLimiterMemory({ points: env.AUTH_RATE_LIMIT_PER_IP, duration: 15 * 60 }),
    /** login attempts per (client IP, email), per 15 minutes: 429 past it; cleared by a success */
    authIpEmail: new RateLimiterMemory({ points: env.AUTH_RATE_LIMIT_PER_IP_EMAIL, duration: 15 * 60 }),
    /**
     * failed logins per email from all clients, per 15 minutes: never refuses, only counts; past
     * AUTH_RATE_LIMIT_PER_EMAIL each attempt waits (`slowDownMs`), so the owner is slowed, not locked out
     */
    authEmailFailures: new RateLimiterMemory({ points: 1_000_000, duration: 15 * 60 }),
    /** current-password checks (PUT /api/user/password) per account, per 15 minutes */
    passwordCheck: new RateLimiterMemory({ points: env.AUTH_RATE_LIMIT_PER_IP_EMAIL, duration: 15 * 60 }),
    /** registrations per email address, per 15 minutes */
    registerEmail: new RateLimiterMemory({ points: env.AUTH_RATE_LIMIT_PER_IP_EMAIL, duration: 15 * 60 }),
    /** password-reset and verification emails per address, per hour */
    accountEmail: new RateLimiterMemory({ points: 5, duration: 60 * 60 }),
    /** demo requests per client IP, per hour */
    demoIp: new RateLimiterMemory({ points: env.DEMO_RATE_LIMIT_PER_IP, duration: 60 * 60 }),
    /** demo requests per phone number or email address, per day */
    demoTarget: new RateLimiterMemory({ points: env.DEMO_RATE_LIMIT_PER_TARGET, duration: 24 * 60 * 60 }),
    /** /api/v1 requests per API key, per minute (issue 15) */
    apiKey: new RateLimiterMemory({ points: env.API_RATE_LIMIT_PER_MINUTE, duration: 60 }),
  };
}
export type RateLimiters = ReturnType<typeof createRateLimiters>;

/**
 * Consumes one point for `key`.
 * @throws AppError TOO_MANY_REQUESTS ("Too many attempts. Please try again in N minutes.")
 */
export async function consumeOrThrow(
  limiter: RateLimiterMemory,
  key: string,
  what = "attempts",
): Promise<void> {
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
export async function pointsUsed(limiter: RateLimiterMemory, key: string): Promise<number> {
  const res = await limiter.get(key);
  return res?.consumedPoints ?? 0;
}
