import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Env } from "../../env";
import { AppError } from "./errors";

/**
 * Fixed-window limiters (rate-limiter-flexible). In memory per process: with several `app`
 * machines each enforces its own window, which still bounds abuse per machine.
 */
export function createRateLimiters(env: Env) {
  return {
    /** login + register attempts per client IP, per 15 minutes */
    authIp: new RateLimiterMemory({ points: env.AUTH_RATE_LIMIT_PER_IP, duration: 15 * 60 }),
    /** login + register attempts per email address, per 15 minutes */
    authEmail: new RateLimiterMemory({ points: env.AUTH_RATE_LIMIT_PER_EMAIL, duration: 15 * 60 }),
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
