import { z } from "zod";

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/**
 * The earliest instant a date from a user may name: the Unix epoch (1970-01-01T00:00:00Z). Nothing
 * a user schedules or expires lies before it; an earlier one is a broken client (a negative epoch
 * number), and years before 1 are not dates Postgres can store.
 */
export const EARLIEST_USER_DATE_MS = 0;

/**
 * The bounds of one date field a user fills in. Every message is a sentence starting with the field's
 * key as the API spells it (parseInput turns `scheduled_at must ...` into "Scheduled at must ...").
 */
export interface UserDateRule {
  /** the message for something that is not a date and time (wrong type, format or calendar day) */
  invalid: string;
  /** the furthest ahead of now the date may lie, in days */
  maxAheadDays: number;
  /** the message for a date further ahead than `maxAheadDays` */
  tooLate: string;
  /** when set, the date must lie after now, and this is the message for one that does not */
  notFuture?: string;
  /** the message for a date before EARLIEST_USER_DATE_MS (when past dates are allowed at all) */
  tooEarly?: string;
}

/**
 * The problem with the instant `ms` under `rule`, or null when it is within range. Now is read at
 * each call, so a schema built once checks against the time of each request.
 */
export function userDateProblem(ms: number, rule: UserDateRule, now = Date.now()): string | null {
  if (!Number.isFinite(ms)) return rule.invalid;
  if (rule.notFuture !== undefined && ms <= now) return rule.notFuture;
  if (ms < EARLIEST_USER_DATE_MS) return rule.tooEarly ?? rule.invalid;
  if (ms > now + rule.maxAheadDays * DAY_MS) return rule.tooLate;
  return null;
}

/**
 * A date and time from a user as an ISO 8601 string with `Z` or an offset
 * (`2026-01-31T09:00:00Z`, `2026-01-31T09:00:00+02:00`; zod checks the calendar, so 30 February is
 * refused), within the bounds of `rule` after conversion to UTC. The output stays the string. Used
 * where an API documents an ISO string (/api/v1, API keys).
 * Why bounded: Postgres refuses timestamps past year 9999 as the driver sends them
 * (`9999-12-31T23:59:59-14:00` is year 10000 in UTC), which was a 500.
 */
export function isoUserDateTime(rule: UserDateRule) {
  return z.iso.datetime({ offset: true, error: rule.invalid, abort: true }).superRefine((s, ctx) => {
    const problem = userDateProblem(Date.parse(s), rule);
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: s });
  });
}

/**
 * A date and time from a user given as an ISO 8601 string with `Z` or an offset, as epoch
 * milliseconds (a whole number) or as a Date (tRPC's superjson), within the bounds of `rule`; the
 * output is a Date. Strings in any other form (`03/12/2026`, `2026-02-30T00:00:00Z`, expanded years
 * like `+010000-01-01T00:00:00Z`) are refused with `rule.invalid` rather than guessed by
 * `new Date()`, which rolls 30 February over to 2 March.
 */
export function userDateTime(rule: UserDateRule) {
  return z
    .union([
      z.iso.datetime({ offset: true, error: rule.invalid }),
      z.number({ error: rule.invalid }).int({ error: rule.invalid }),
      z.date({ error: rule.invalid }),
    ])
    .transform((v, ctx) => {
      const d = v instanceof Date ? v : new Date(v);
      const problem = userDateProblem(d.getTime(), rule);
      if (problem) {
        ctx.addIssue({ code: "custom", message: problem, input: v });
        return z.NEVER;
      }
      return d;
    });
}
