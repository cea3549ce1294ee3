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
