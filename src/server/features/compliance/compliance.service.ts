import type { DbOrTx } from "../../db/client";
import { normaliseContactEmail } from "../../lib/email";
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

export { contactNumberFor } from "./contact-number";

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

/** A contact's opt-in flags by channel: email_opt_in, sms_opt_in, call_opt_in (calls and voicemail). */
export type OptInChannel = "email" | "sms" | "call";

/** What keeps one opt-in flag off: the suppression's reason and source (null when unrecorded). */
export interface OptOutCause {
  reason: string;
  source: string | null;
}

/** A contact (or a row about to become one) as optOutsOf reads it: its email and its numbers (E.164). */
export interface OptOutSubject {
  email?: string | null;
  numbers?: (string | null | undefined)[];
}

/**
 * Which of each subject's opt-in flags must stay off because the person opted out (or the address
 * cannot be sent to), the suppression list deciding exactly as the send paths do:
 * - `email`: the email (trimmed, lower-cased, NFC; a stored NFD form found too) is suppressed for
 *   "email" or "all" (an unsubscribe, one-click, a Postmark bounce, complaint or unsubscribe);
 * - `sms`: any of its numbers is suppressed for "sms" or "all" in this workspace, or last replied STOP
 *   to the shared sending number (smsStoppedNumbers: in every workspace, as findSuppressed);
 * - `call`: any of its numbers is suppressed for "voice", "voicemail" or "all" (a keypress opt-out,
 *   the owner's Do Not Call mark), last replied STOP to the sending number, or is on this workspace's
 *   SMS list for a STOP ("stop_reply": a STOP revokes the sender's calls too, FCC 24-24, as
 *   contactsWhoRepliedStop and findSuppressed read it).
 * "Any of its numbers": a STOP or keypress is the person's, not one number's (contactsWhoRepliedStop).
 * Two queries whatever the number of subjects (values passed as array parameters), so an import batch
 * of 10,000 rows costs two round trips. Returns one entry per subject, in order, holding only the
 * `channels` asked for that are opted out (empty object: none).
 */
export async function optOutsOf(
  db: DbOrTx,
  workspaceId: string,
  subjects: OptOutSubject[],
  channels: readonly OptInChannel[] = ["email", "sms", "call"],
): Promise<Partial<Record<OptInChannel, OptOutCause>>[]> {
  const wantEmail = channels.includes("email");
  const wantPhones = channels.includes("sms") || channels.includes("call");
  const emailOf = (s: OptOutSubject) =>
    wantEmail && s.email?.trim() ? normaliseSuppressionValue("email", s.email) : null;
  const numbersOf = (s: OptOutSubject) =>
    wantPhones ? [...new Set((s.numbers ?? []).map((n) => n?.trim()).filter((n): n is string => !!n))] : [];
  const emails = [...new Set(subjects.map(emailOf).filter((e): e is string => !!e))];
  const numbers = [...new Set(subjects.flatMap(numbersOf))];
  if (emails.length === 0 && numbers.length === 0) return subjects.map(() => ({}));
  const [rows, stopped] = await Promise.all([
    q.selectSuppressions(
      db,
      workspaceId,
      ["email", "sms", "voice", "voicemail", "all"],
      [...lookupForms(emails), ...numbers],
    ),
    q.selectStoppedPhones(db, numbers),
  ]);
  const email = new Map<string, OptOutCause>();
  const sms = new Map<string, OptOutCause>();
  const call = new Map<string, OptOutCause>();
  const STOP: OptOutCause = { reason: "stop_reply", source: null };
  for (const r of rows) {
    const cause = { reason: r.reason, source: r.source };
    if (r.value.includes("@")) {
      if (r.channel === "email" || r.channel === "all")
        email.set(normaliseSuppressionValue("email", r.value), cause);
      continue;
    }
    const v = normaliseSuppressionValue("sms", r.value);
    if (r.channel === "sms" || r.channel === "all") sms.set(v, cause);
    if (r.channel !== "sms" || r.reason === "stop_reply") if (!call.has(v)) call.set(v, cause);
  }
  for (const p of stopped) {
    if (!sms.has(p)) sms.set(p, STOP);
    if (!call.has(p)) call.set(p, STOP);
  }
  return subjects.map((s) => {
    const out: Partial<Record<OptInChannel, OptOutCause>> = {};
    const e = emailOf(s);
    const byEmail = e ? email.get(e) : undefined;
    if (byEmail) out.email = byEmail;
    const nums = numbersOf(s);
    for (const [channel, map] of [
      ["sms", sms],
      ["call", call],
    ] as const) {
      if (!channels.includes(channel)) continue;
      const hit = nums.map((n) => map.get(n)).find(Boolean);
      if (hit) out[channel] = hit;
    }
    return out;
  });
}

/**
 * Which opt-in channels optOutsOf could find anything for in this workspace now: `email` when it has
 * an email (or "all") suppression, `phones` (SMS and calls) when it has a number suppression or any
 * number ever replied STOP to the sending number. One query of two index probes, so that a bulk
 * writer (crm.import) skips looking up 10,000 addresses in a workspace nobody opted out of.
 */
export async function optOutChannelsInUse(
  db: DbOrTx,
  workspaceId: string,
): Promise<{ email: boolean; phones: boolean }> {
  const [email, phones] = await Promise.all([
    q.selectSuppressionsInUse(db, workspaceId, ["email", "all"]),
    q.selectSuppressionsInUse(db, workspaceId, ["sms", "voice", "voicemail", "all"]),
  ]);
  return { email: email.any, phones: phones.any || phones.anyStop };
}

/** The reasons the Opt-outs screen names, by suppression reason (anything else is shown as stored). */
const OPT_OUT_REASON_WORDS: Record<string, string> = {
  unsubscribed: "unsubscribed",
  stop_reply: "replied STOP",
  keypress_opt_out: "pressed 9",
  hard_bounce: "bounced",
  spam_complaint: "marked as spam",
  do_not_call: "Do Not Call mark",
  manual: "added by hand",
};

/** The sources the Opt-outs screen names, by stored `source` (anything else is shown as stored). */
const OPT_OUT_SOURCE_WORDS: Record<string, string> = {
  "unsubscribe page": "unsubscribe page",
  "one-click": "one-click unsubscribe",
  "postmark unsubscribe request": "their mail app's unsubscribe button",
  "twilio inbound": "reply to a text",
  "call keypress": "during a call",
  "contact page": "contact page",
};

/**
 * How an opt-out came, in words for people: "unsubscribed (unsubscribe page)", "replied STOP",
 * "pressed 9 (during a call)", "bounced (postmark webhook)". The Opt-outs screen, its CSV and the
 * refusal of a re-opt-in (crm) say it so.
 */
export function describeOptOut(reason: string, source: string | null): string {
  const r = OPT_OUT_REASON_WORDS[reason] ?? reason.replaceAll("_", " ");
  const s = source ? (OPT_OUT_SOURCE_WORDS[source] ?? source) : null;
  return s && s !== r && !(reason === "stop_reply" && source === "twilio inbound") ? `${r} (${s})` : r;
}

/** A campaign recipient's skip reason by suppression reason (skipReasonOfSuppression). */
const SKIP_REASON_WORDS: Record<string, string> = {
  unsubscribed: "opted out: unsubscribed",
  stop_reply: "opted out: replied STOP",
  keypress_opt_out: "opted out: pressed 9 during a call",
  spam_complaint: "opted out: marked as spam",
  do_not_call: "opted out: Do Not Call mark",
  manual: "opted out: added by hand",
  hard_bounce: "email bounced before",
};

/**
 * Why a campaign skips a recipient whose address is on the suppression list with `reason`, in words
 * the launch, its preflight and the report show as they are ("opted out: replied STOP", "email
 * bounced before"); a reason without words is "suppressed: <reason with spaces>". Before, the
 * stored code showed ("suppressed: stop_reply"; a QA pass).
 */
export function skipReasonOfSuppression(reason: string): string {
  return SKIP_REASON_WORDS[reason] ?? `suppressed: ${reason.replaceAll("_", " ")}`;
}

/** The channels the suppression list holds, as the Opt-outs screen filters them. */
export const SUPPRESSION_CHANNELS = ["email", "sms", "voice", "voicemail", "all"] as const;

/** One suppression as listed (listSuppressions): `created_at` ISO 8601 UTC. */
export interface SuppressionListEntry {
  id: number;
  channel: string;
  value: string;
  reason: string;
  source: string | null;
  /** describeOptOut(reason, source) */
  how: string;
  created_at: string;
}

/**
 * A page of the workspace's suppression list, newest first: `channel` one of SUPPRESSION_CHANNELS
 * (undefined: all; "voice" also lists "voicemail", calls and voicemail being one opt-in, and both list
 * the SMS list's STOP replies, which revoke calls too: their `how` says so), `search`
 * matched inside the address or number, reason or source (case-insensitive) or the words the screen
 * shows for them (describeOptOut: "replied STOP", "pressed 9"), or, with a search, being one of
 * `alsoMatching` (addresses and numbers the caller found the search names: its contacts' by name);
 * `page` from 1 and `limit` rows (the caller bounds both). Never another workspace's rows. Returns
 * `{entries, total}`.
 */
export async function listSuppressions(
  db: DbOrTx,
  workspaceId: string,
  opts: {
    channel?: (typeof SUPPRESSION_CHANNELS)[number];
    search?: string;
    alsoMatching?: string[];
    page: number;
    limit: number;
  },
): Promise<{ entries: SuppressionListEntry[]; total: number }> {
  const search = opts.search?.trim() || undefined;
  // the words the screen shows ("replied STOP", "pressed 9", "one-click unsubscribe") find their rows too
  const wordsMatch = (words: Record<string, string>) =>
    search
      ? Object.entries(words)
          .filter(([, w]) => w.toLowerCase().includes(search.toLowerCase()))
          .map(([k]) => k)
      : [];
  const { rows, total } = await q.selectSuppressionPage(db, workspaceId, {
    channels: opts.channel ? (opts.channel === "voice" ? ["voice", "voicemail"] : [opts.channel]) : undefined,
    // a STOP revokes calls and voicemail too (optOutsOf): the calls filter lists it
    withSmsStops: opts.channel === "voice" || opts.channel === "voicemail",
    search,
    alsoReasons: wordsMatch(OPT_OUT_REASON_WORDS),
    alsoSources: wordsMatch(OPT_OUT_SOURCE_WORDS),
    alsoValues: search
      ? lookupForms((opts.alsoMatching ?? []).map((v) => normaliseSuppressionValue("all", v)))
      : [],
    offset: (opts.page - 1) * opts.limit,
    limit: opts.limit,
  });
  return {
    total,
    entries: rows.map((r) => ({
      id: r.id,
      channel: r.channel,
      value: r.value,
      reason: r.reason,
      source: r.source,
      how:
        r.reason === "stop_reply"
          ? `${describeOptOut(r.reason, r.source)}: no texts, calls or voicemail`
          : describeOptOut(r.reason, r.source),
      created_at: r.createdAt.toISOString(),
    })),
  };
}
