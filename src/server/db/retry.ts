// Retrying work that Postgres aborted because it raced another transaction.
import { pgErrorCode } from "./errors";

/** SQLSTATEs of a transaction Postgres aborted over a race: deadlock_detected, serialization_failure. */
const RACE_CODES = new Set(["40P01", "40001"]);

/**
 * True when `e` is Postgres aborting the statement over a race with another transaction: a deadlock
 * (40P01) or a serialization failure (40001), as thrown by postgres.js or wrapped by drizzle (`cause`).
 * Such work can be run again as it was.
 */
export function isRetryableRace(e: unknown): boolean {
  const code = pgErrorCode(e);
  return code !== undefined && RACE_CODES.has(code);
}

/** Tries of `retryOnRace` by default (the first and three more). */
export const RACE_ATTEMPTS = 4;

/**
 * Runs `work` and runs it again, up to `attempts` times in all, when it fails with a deadlock or a
 * serialization failure (isRetryableRace), or with what `opts.retryable` names instead (another race
 * a fresh run resolves: a row deleted meanwhile refused by a foreign key); any other error, or the
 * last attempt's, is thrown as is.
 * `work` must be safe to repeat: one statement, or one transaction that rolled back as a whole. Waits
 * 10-60 ms times the attempt number (random, so the two sides of a deadlock do not meet again) before
 * a retry; `onRetry` hears each retried error (for a log line).
 * The backstop behind the lock ordering of contact writes (crm: upserts in email order, bulk updates
 * and deletes in the same order): Postgres breaks a deadlock the ordering did not prevent by aborting
 * one side after deadlock_timeout (1 s by default).
 */
export async function retryOnRace<T>(
  work: (attempt: number) => Promise<T>,
  opts: {
    attempts?: number;
    retryable?: (err: unknown) => boolean;
    onRetry?: (err: unknown, attempt: number) => void;
  } = {},
): Promise<T> {
  const attempts = Math.max(1, opts.attempts ?? RACE_ATTEMPTS);
  const retryable = opts.retryable ?? isRetryableRace;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (e) {
      if (attempt >= attempts || !retryable(e)) throw e;
      opts.onRetry?.(e, attempt);
      await new Promise((resolve) => setTimeout(resolve, attempt * (10 + Math.random() * 50)));
    }
  }
}
