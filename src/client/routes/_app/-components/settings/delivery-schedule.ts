import type { inferRouterOutputs } from "@trpc/server";
import { formatDateTime, formatRelativeTime, plural } from "@/client/lib/format";
import type { AppRouter } from "@/server/trpc/router";

/** A delivery log entry as the server shapes it (tRPC `webhooks.deliveries`, webhooks.service toDeliveryJson). */
export type DeliveryLogEntry = inferRouterOutputs<AppRouter>["webhooks"]["deliveries"][number];

/**
 * The retry fields of a delivery log entry: `attempt` of `max_attempts`, `next_attempt_at` (ISO 8601:
 * when its waiting job may start its next attempt, as pg-boss scheduled it).
 */
export type DeliverySchedule = Pick<
  DeliveryLogEntry,
  "status" | "attempt" | "max_attempts" | "next_attempt_at"
>;

/**
 * Where a delivery stands in its retry schedule, in words (Stripe's "Next retry in 2 h", Svix's
 * "Attempt 3 of 8"), or null when there is nothing to say (succeeded, or not yet attempted with its
 * first attempt due now):
 * - waiting for a retry: "Attempt 1 of 12 · Next attempt in 4 minutes" (`nextAt`: the ISO time,
 *   `nextTitle`: it in full, for a tooltip); "... · Next attempt due now" once its time has come;
 * - queued for later before its first attempt: "Next attempt in 2 minutes";
 * - pending with no attempt scheduled (one in progress): "Attempt 2 of 12";
 * - failed: "Gave up after 12 attempts".
 * `now`: epoch ms.
 */
export function describeSchedule(
  d: DeliverySchedule,
  now: number,
): { text: string; nextAt?: string; nextTitle?: string } | null {
  const attempt = `Attempt ${d.attempt} of ${d.max_attempts}`;
  if (d.status === "failed") return { text: `Gave up after ${plural(d.attempt, "attempt")}` };
  if (d.status !== "pending") return null;
  if (d.next_attempt_at) {
    const at = Date.parse(d.next_attempt_at);
    if (d.attempt === 0 && at <= now) return null;
    const when = at <= now ? "due now" : formatRelativeTime(at, now);
    return {
      text: `${d.attempt > 0 ? `${attempt} · ` : ""}Next attempt ${when}`,
      nextAt: d.next_attempt_at,
      nextTitle: formatDateTime(d.next_attempt_at),
    };
  }
  return d.attempt > 0 ? { text: attempt } : null;
}

/**
 * A delivery log entry in words, counting its attempts once. `label`: its state for the badge;
 * `tone`: the badge's variant; `result`: the latest outcome worth telling, or "" when none;
 * `schedule`: describeSchedule's line (which counts the attempt of the current job), or null.
 * - pending, its job not yet started: "Queued"; result "No attempt yet", or "Resent" when attempts
 *   were recorded before (only a resend's new job starts over with earlier attempts recorded);
 * - pending, an attempt running: "Sending", schedule "Attempt 2 of 12", result the previous
 *   attempt's failure when this job had one ("Last failed: HTTP 500: down");
 * - pending, waiting for a retry: "Retrying", result "Last failed: ...", schedule "Attempt 1 of 12 ·
 *   Next attempt in 52 seconds";
 * - succeeded: "Delivered", result "200 · 34 ms", with " · 2 attempts" when it took more than one
 *   (`attempts`, a resend's included; nothing else counts them);
 * - failed: "Failed", result the last response ("500 · 34 ms") or error, schedule "Gave up after 12
 *   attempts" (the result carries no count: the schedule's and `attempts` differ after a resend).
 * The entry used to add "Retrying… · 1 attempt so far" or "500 · 34 ms · 2 attempts" beside the
 * schedule's own count. `now`: epoch ms.
 */
export function describeDelivery(
  d: DeliverySchedule & Pick<DeliveryLogEntry, "attempts" | "response_code" | "duration_ms" | "last_error">,
  now: number,
): {
  label: "Queued" | "Sending" | "Retrying" | "Delivered" | "Failed";
  tone: "default" | "secondary" | "destructive";
  result: string;
  schedule: ReturnType<typeof describeSchedule>;
} {
  const schedule = describeSchedule(d, now);
  const response = d.response_code ? `${d.response_code} · ${d.duration_ms ?? "-"} ms` : null;
  const lastFailed = d.last_error ? `Last failed: ${d.last_error.slice(0, 160)}` : "";
  if (d.status === "succeeded") {
    const more = d.attempts > 1 ? ` · ${plural(d.attempts, "attempt")}` : "";
    return { label: "Delivered", tone: "default", result: `${response ?? "Delivered"}${more}`, schedule };
  }
  if (d.status === "failed") {
    return {
      label: "Failed",
      tone: "destructive",
      result: response ?? d.last_error?.slice(0, 160) ?? "No response",
      schedule,
    };
  }
  if (d.attempt === 0) {
    return {
      label: "Queued",
      tone: "secondary",
      result: d.attempts === 0 ? "No attempt yet" : "Resent",
      schedule,
    };
  }
  if (d.next_attempt_at) return { label: "Retrying", tone: "secondary", result: lastFailed, schedule };
  // running: an earlier failure of this job is its attempt before; the first attempt has none
  return { label: "Sending", tone: "secondary", result: d.attempt > 1 ? lastFailed : "", schedule };
}

/** Milliseconds between reads of a log with a delivery pending, at the shortest. */
export const PENDING_REFETCH_MS = 2000;
/** Milliseconds between reads while every pending delivery waits for a later retry, at the longest. */
export const WAITING_REFETCH_MS = 60_000;

/**
 * How often the delivery log is read again (ms), or false when no delivery shown is pending. A
 * delivery queued, in progress or due (no next attempt, or one within PENDING_REFETCH_MS) is
 * followed every PENDING_REFETCH_MS, so a test event or resend turns to its result without a reload;
 * when all pending ones wait for a later retry (up to 12 hours apart), the log is read again when
 * the first comes due, at most WAITING_REFETCH_MS later. `now`: epoch ms.
 */
export function logRefetchMs(deliveries: readonly DeliverySchedule[], now: number): number | false {
  const pending = deliveries.filter((d) => d.status === "pending");
  if (pending.length === 0) return false;
  let wait = WAITING_REFETCH_MS;
  for (const d of pending) {
    const at = d.next_attempt_at ? Date.parse(d.next_attempt_at) : now;
    wait = Math.min(wait, at - now);
  }
  return Math.max(PENDING_REFETCH_MS, wait);
}
