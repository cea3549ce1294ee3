import type { DbOrTx } from "../../db/client";
import * as q from "./compliance.queries";

export type SuppressionChannel = "email" | "sms" | "voice" | "voicemail";

/** Normalises a suppression value: emails lower-cased and trimmed, numbers as given (E.164). */
export function normaliseSuppressionValue(channel: SuppressionChannel | "all", value: string): string {
  return channel === "email" || value.includes("@") ? value.trim().toLowerCase() : value.trim();
}

/**
 * Adds `value` to the user's suppression list for `channel` (idempotent).
 * Sources of rules: CAN-SPAM / RFC 8058 (email unsubscribe), CTIA + Twilio STOP keywords (SMS).
 */
export async function suppress(
  db: DbOrTx,
  workspaceId: string,
  channel: SuppressionChannel | "all",
  value: string,
  reason: string,
  source?: string,
): Promise<void> {
  await q.insertSuppression(db, {
    workspaceId,
    channel,
    value: normaliseSuppressionValue(channel, value),
    reason,
    source,
  });
}

/** Removes a suppression (e.g. START/UNSTOP re-subscribes an SMS number). */
export async function unsuppress(
  db: DbOrTx,
  workspaceId: string,
  channel: SuppressionChannel | "all",
  value: string,
) {
  await q.deleteSuppression(db, workspaceId, channel, normaliseSuppressionValue(channel, value));
}

/**
 * Which of `values` are suppressed for `channel` (or for "all") for this user.
 * Returns the normalised suppressed values and their reasons.
 */
export async function findSuppressed(
  db: DbOrTx,
  workspaceId: string,
  channel: SuppressionChannel,
  values: string[],
): Promise<Map<string, string>> {
  const norm = [...new Set(values.filter(Boolean).map((v) => normaliseSuppressionValue(channel, v)))];
  if (norm.length === 0) return new Map();
  const rows = await q.selectSuppressions(db, workspaceId, [channel, "all"], norm);
  return new Map(rows.map((r) => [normaliseSuppressionValue(channel, r.value), r.reason]));
}

/** True when `value` is on the user's suppression list for `channel`. */
export async function isSuppressed(
  db: DbOrTx,
  workspaceId: string,
  channel: SuppressionChannel,
  value: string,
) {
  return (await findSuppressed(db, workspaceId, channel, [value])).size > 0;
}
