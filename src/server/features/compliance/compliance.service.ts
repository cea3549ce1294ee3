import type { DbOrTx } from "../../db/client";
import { KEYPRESS_OPT_OUT_REASON } from "./call-opt-out";
import * as q from "./compliance.queries";

export type SuppressionChannel = "email" | "sms" | "voice" | "voicemail";

/** Normalises a suppression value: emails lower-cased and trimmed, numbers as given (E.164). */
export function normaliseSuppressionValue(channel: SuppressionChannel | "all", value: string): string {
  return channel === "email" || value.includes("@") ? value.trim().toLowerCase() : value.trim();
}

/**
 * Adds `value` to the user's suppression list for `channel` (idempotent).
 * Sources of rules: CAN-SPAM / RFC 8058 (email unsubscribe), CTIA + Twilio STOP keywords (SMS).
 * `ownOptOut`: the person opted out themselves (the unsubscribe page, one-click POST); when the value
 * is already suppressed for another reason (a bounce or complaint a provider reported), this record
 * replaces it, so a provider lifting its own suppression cannot lift the person's opt-out.
 */
export async function suppress(
  db: DbOrTx,
  workspaceId: string,
  channel: SuppressionChannel | "all",
  value: string,
  reason: string,
  source?: string,
  ownOptOut = false,
): Promise<void> {
  await q.insertSuppression(
    db,
    { workspaceId, channel, value: normaliseSuppressionValue(channel, value), reason, source },
    ownOptOut,
  );
}

/**
 * Removes a suppression (e.g. START/UNSTOP re-subscribes an SMS number). With `onlySource`, only a
 * suppression that came from that source is removed (a Postmark reactivation lifts what Postmark
 * reported, never the person's own unsubscribe through the page or one-click).
 */
export async function unsuppress(
  db: DbOrTx,
  workspaceId: string,
  channel: SuppressionChannel | "all",
  value: string,
  onlySource?: string,
) {
  await q.deleteSuppression(db, workspaceId, channel, normaliseSuppressionValue(channel, value), onlySource);
}

/**
 * Which of `values` are suppressed for `channel` (or for "all") for this workspace.
 * Returns the normalised suppressed values and their reasons. For "sms", "voice" and "voicemail" a
 * number whose latest STOP/START reply to the sending number was STOP counts as suppressed
 * ("stop_reply") in every workspace (smsStoppedNumbers), whether or not this workspace has a
 * suppression row for it.
 *
 * Why an SMS STOP also stops AI calls and ringless voicemail: consent to automated calls and texts
 * may be revoked "by any reasonable means", and a STOP reply to a text is named as one (FCC 24-24,
 * 47 CFR 64.1200(a)(10)); the AI calls go out from the same Pitchwise number the person told to stop,
 * and nothing in "STOP" limits it to texts. Treating it as an opt-out of the sender's calls and
 * voicemail too is the conservative reading (a wrong call is a TCPA violation, a skipped one is not).
 * A START reply lifts it again for all three. A keypress opt-out during a call
 * (suppressCallsByKeypress) is the reverse case and covers calls and voicemail only: the person
 * asked to stop calls.
 */
export async function findSuppressed(
  db: DbOrTx,
  workspaceId: string,
  channel: SuppressionChannel,
  values: string[],
): Promise<Map<string, string>> {
  const norm = [...new Set(values.filter(Boolean).map((v) => normaliseSuppressionValue(channel, v)))];
  if (norm.length === 0) return new Map();
  const [rows, stopped] = await Promise.all([
    q.selectSuppressions(db, workspaceId, [channel, "all"], norm),
    channel === "email" ? Promise.resolve(new Set<string>()) : smsStoppedNumbers(db, norm),
  ]);
  const out = new Map(rows.map((r) => [normaliseSuppressionValue(channel, r.value), r.reason]));
  for (const phone of stopped) if (!out.has(phone)) out.set(phone, "stop_reply");
  return out;
}

/**
 * Which of `phones` (E.164) have opted out of SMS by replying STOP (and not START since, by the
 * provider's time) to Pitchwise's sending number. Every workspace and the public demo text from that
 * one number (TWILIO_FROM_NUMBER / TWILIO_MESSAGING_SERVICE_SID), and a STOP opts the person out of
 * that sender (CTIA Messaging Principles; Twilio Advanced Opt-Out blocks the sender, error 21610), so
 * the STOP holds for every workspace, not only those that had texted the number before it.
 */
export async function smsStoppedNumbers(db: DbOrTx, phones: string[]): Promise<Set<string>> {
  const list = [...new Set(phones.map((p) => p.trim()).filter(Boolean))];
  return new Set(await q.selectStoppedPhones(db, list));
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

/**
 * The called person pressed the opt-out key during an AI call (call-opt-out.ts): `phone` (E.164) goes
 * on the workspace's suppression list for "voice" and "voicemail" with reason "keypress_opt_out"
 * (the person's own opt-out: it replaces another reason, see suppress). Idempotent. Source:
 * 47 CFR 64.1200(b)(3) and (d)(3).
 */
export async function suppressCallsByKeypress(
  db: DbOrTx,
  workspaceId: string,
  phone: string,
  source = "call keypress",
): Promise<void> {
  for (const channel of ["voice", "voicemail"] as const)
    await suppress(db, workspaceId, channel, phone, KEYPRESS_OPT_OUT_REASON, source, true);
}

/** Suppression reason and source of a number the owner marked "do not call" on the contact page. */
export const DO_NOT_CALL_REASON = "do_not_call";
const DO_NOT_CALL_SOURCE = "contact page";

/**
 * The owner marks `phones` (E.164) "do not call" (`on`: suppressed for "voice" and "voicemail", reason
 * "do_not_call") or lifts that mark (`on` false: removes only suppressions the owner's mark made, never
 * the person's own opt-out: a keypress, an SMS STOP). Idempotent.
 */
export async function setDoNotCallNumbers(
  db: DbOrTx,
  workspaceId: string,
  phones: string[],
  on: boolean,
): Promise<void> {
  for (const phone of phones)
    for (const channel of ["voice", "voicemail"] as const) {
      if (on) await suppress(db, workspaceId, channel, phone, DO_NOT_CALL_REASON, DO_NOT_CALL_SOURCE);
      else await unsuppress(db, workspaceId, channel, phone, DO_NOT_CALL_SOURCE);
    }
}
