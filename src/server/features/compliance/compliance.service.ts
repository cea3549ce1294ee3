import type { DbOrTx } from "../../db/client";
import { normaliseContactEmail } from "../../lib/email";
import { isE164 } from "../../lib/phone";
import { KEYPRESS_OPT_OUT_REASON } from "./call-opt-out";
import * as q from "./compliance.queries";

export type SuppressionChannel = "email" | "sms" | "voice" | "voicemail";

/**
 * Normalises a suppression value: emails trimmed, lower-cased and in Unicode NFC (RFC 6532 section
 * 3.1: an address written with a precomposed "é" and with "e" + a combining accent is one mailbox,
 * and an opt-out made at one form covers the other; lib/email normaliseContactEmail, the form contacts
 * store), numbers as given (E.164). Campaigns address
 * email by the same rule (campaigns.audience addressFor).
 */
export function normaliseSuppressionValue(channel: SuppressionChannel | "all", value: string): string {
  return channel === "email" || value.includes("@") ? normaliseContactEmail(value) : value.trim();
}

/**
 * The normalised values to look up for `norm`: each one, and for an email its NFD form too when that
 * differs (a suppression stored before emails were kept in NFC), compared lower-cased.
 */
function lookupForms(norm: string[]): string[] {
  return [...new Set(norm.flatMap((v) => (v.includes("@") ? [v, v.normalize("NFD")] : [v])))];
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
    q.selectSuppressions(db, workspaceId, [channel, "all"], lookupForms(norm)),
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

/**
 * The skip reason (campaigns) of a contact who replied STOP from one of their numbers: the person's
 * own opt-out, which no consent confirmation (`includeNotOptedIn`) overrides.
 */
export const REPLIED_STOP_REASON = "opted out (replied STOP)";

/** A contact's numbers as the STOP screen reads them (E.164 or null). */
export interface ContactNumbers {
  id: number;
  phone?: string | null;
  mobile?: string | null;
}

/**
 * Which of `contacts` replied STOP from any of their numbers (phone or mobile, plus `extra` numbers
 * per contact id, e.g. a CSV row's phone): a number whose latest STOP/START reply to the sending
 * number is STOP (smsStoppedNumbers, every workspace), or that is on this workspace's SMS suppression
 * list with reason "stop_reply" (the inbound STOP, or Twilio's 21610 refusal). Returns contact id ->
 * the number that replied STOP. A STOP is the person's, not the number's: one person with two numbers
 * who told the sender to stop from one of them has told it to stop texting them, and (compliance
 * findSuppressed: a STOP also revokes consent to the sender's calls and voicemail, FCC 24-24, 47 CFR
 * 64.1200(a)(10)) calling them, on every number the contact holds. Only a START from that number
 * lifts it (it ends the number's STOP and removes the stop_reply suppression).
 */
export async function contactsWhoRepliedStop(
  db: DbOrTx,
  workspaceId: string,
  contacts: ContactNumbers[],
  extra?: Map<number, string>,
): Promise<Map<number, string>> {
  const numbersOf = (c: ContactNumbers) =>
    [c.phone, c.mobile, extra?.get(c.id)].filter((n): n is string => !!n?.trim()).map((n) => n.trim());
  const all = [...new Set(contacts.flatMap(numbersOf))];
  const out = new Map<number, string>();
  if (all.length === 0) return out;
  const [stopped, rows] = await Promise.all([
    smsStoppedNumbers(db, all),
    q.selectSuppressions(
      db,
      workspaceId,
      ["sms", "all"],
      all.map((n) => normaliseSuppressionValue("sms", n)),
    ),
  ]);
  for (const r of rows) if (r.reason === "stop_reply") stopped.add(normaliseSuppressionValue("sms", r.value));
  for (const c of contacts) {
    const hit = numbersOf(c).find((n) => stopped.has(n));
    if (hit) out.set(c.id, hit);
  }
  return out;
}

/**
 * The one rule for which of a contact's numbers a message goes to (campaigns and the contact page
 * alike): a text (`sms`) goes to the mobile, else the phone; a call or ringless voicemail to the
 * phone, else the mobile. Only E.164 numbers count. Returns the number, or null when neither is usable.
 */
export function contactNumberFor(
  kind: "sms" | "voice" | "voicemail",
  c: { phone?: string | null; mobile?: string | null },
): string | null {
  const order = kind === "sms" ? [c.mobile, c.phone] : [c.phone, c.mobile];
  return order.find(isE164) ?? null;
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
