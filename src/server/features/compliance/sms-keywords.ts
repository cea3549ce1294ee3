/**
 * What an inbound SMS reply asks for: an opt-out (STOP), an opt-in again (START) or help (HELP).
 *
 * Sources of the rules:
 * - 47 CFR 64.1200(a)(10) (FCC 24-24, in force April 2025): consent may be revoked "by any reasonable
 *   means"; words such as "stop", "quit", "end", "revoke", "opt out", "cancel" or "unsubscribe" sent in
 *   reply to a text are a valid revocation, so a sender may not insist on the bare keyword.
 * - CTIA Messaging Principles and Best Practices and Twilio's default Advanced Opt-Out keywords:
 *   opt-out STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT; opt-in START, UNSTOP, YES;
 *   help HELP, INFO. Canadian carriers (CWTA) add ARRET; Spanish-speaking recipients use ALTO / PARAR.
 *
 * Matching is case-, accent-, punctuation- and emoji-insensitive ("Stop.", "STOP ALL", "opt-out",
 * "Arrêt", "STOP 🛑"). A STOP is also read inside a short reply ("stop please", "please stop texting
 * me") and an unambiguous revocation anywhere in a longer one ("unsubscribe", "opt out", "remove me",
 * "stop texting", "don't text me"): a wrong opt-out costs a text, a missed one is a TCPA violation.
 */

/** English revocation words, also read inside a short reply (FCC's list, 47 CFR 64.1200(a)(10)). */
const FCC_STOP_WORDS = [
  "STOP",
  "STOPALL",
  "UNSUBSCRIBE",
  "CANCEL",
  "END",
  "QUIT",
  "REVOKE",
  "OPTOUT",
] as const;

/** Whole-reply opt-out keywords (after normalisation: letters only, upper case, no accents). */
export const STOP_KEYWORDS = [...FCC_STOP_WORDS, "REMOVE", "ARRET", "ALTO", "PARAR"] as const;

/** Whole-reply opt-in keywords. YES counts only for a number whose latest decision was STOP. */
export const START_KEYWORDS = ["START", "UNSTOP", "YES"] as const;

/** Whole-reply help keywords. */
export const HELP_KEYWORDS = ["HELP", "INFO", "AYUDA"] as const;

/** FCC_STOP_WORDS as a set, for the short-reply test. */
const CORE_STOP_WORDS = new Set<string>(FCC_STOP_WORDS);

/** A reply of at most this many words that contains a CORE_STOP_WORDS word is a STOP. */
const SHORT_REPLY_WORDS = 4;

/** Phrases (space-separated words) that revoke consent wherever they appear in a reply. */
const STOP_PHRASES = [
  "UNSUBSCRIBE",
  "REVOKE",
  "OPTOUT",
  "OPT OUT",
  "REMOVE ME",
  "STOP TEXTING",
  "STOP MESSAGING",
  "STOP SENDING",
  "STOP CONTACTING",
  "DONT TEXT",
  "DO NOT TEXT",
  "DONT MESSAGE",
  "DO NOT MESSAGE",
  "DONT CONTACT",
  "DO NOT CONTACT",
  "NO MORE TEXTS",
  "NO MORE MESSAGES",
];

export type SmsKeyword = "stop" | "start" | "help";

/**
 * The words of `body`: accents removed (NFKD), apostrophes dropped ("don't" -> "DONT"), upper case,
 * split on anything that is not a letter (punctuation, digits, emoji, whitespace).
 */
export function replyWords(body: string): string[] {
  return body
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/['’`]/g, "")
    .toUpperCase()
    .split(/[^\p{L}]+/u)
    .filter(Boolean);
}

/**
 * Classifies an inbound SMS `body`: "stop" (an opt-out, see the module comment), "start" (the
 * whole reply is START, UNSTOP or YES), "help" (HELP, INFO, AYUDA), or null (an ordinary reply).
 * An opt-out wins over the others. `optOutType` is Twilio's Advanced Opt-Out classification
 * (`OptOutType` STOP/START/HELP), taken as given when present.
 */
export function classifySmsReply(body: string, optOutType?: string | null): SmsKeyword | null {
  const type = (optOutType ?? "").trim().toUpperCase();
  if (type === "STOP" || type === "START" || type === "HELP") return type.toLowerCase() as SmsKeyword;
  const words = replyWords(body);
  if (words.length === 0) return null;
  const joined = words.join("");
  const spaced = ` ${words.join(" ")} `;
  if ((STOP_KEYWORDS as readonly string[]).includes(joined)) return "stop";
  if (words.length <= SHORT_REPLY_WORDS && words.some((w) => CORE_STOP_WORDS.has(w))) return "stop";
  if (STOP_PHRASES.some((p) => spaced.includes(` ${p} `))) return "stop";
  if ((START_KEYWORDS as readonly string[]).includes(joined)) return "start";
  if ((HELP_KEYWORDS as readonly string[]).includes(joined)) return "help";
  return null;
}

/** True when `body` is exactly a START keyword other than YES (a YES alone re-subscribes only a stopped number). */
export function isExplicitStart(body: string): boolean {
  const joined = replyWords(body).join("");
  return joined === "START" || joined === "UNSTOP";
}

/**
 * How long after the person's STOP (by the provider's clock) the one confirmation text may go:
 * 47 CFR 64.1200(a)(11) allows one confirmation of a revocation "within five minutes"; later, none.
 */
export const OPT_OUT_CONFIRMATION_WINDOW_MS = 5 * 60_000;

/** The sender named when no workspace texted the number (the public demo, or a stray text). */
export const DEFAULT_SENDER_NAME = "Pitchwise";

/** "A", "A and B", "A, B and 2 others": at most `max` names, the rest counted. */
export function nameList(names: string[], max = 2): string {
  const unique = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  if (unique.length === 0) return DEFAULT_SENDER_NAME;
  const shown = unique.slice(0, max);
  const rest = unique.length - shown.length;
  if (rest > 0) return `${shown.join(", ")} and ${rest} other${rest === 1 ? "" : "s"}`;
  return shown.length === 1 ? (shown[0] as string) : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}

/**
 * The one opt-out confirmation (CTIA: names the sender, confirms no further messages, no marketing;
 * FCC: one text within five minutes). `businesses`: the senders that texted the number, newest first.
 */
export function stopConfirmation(businesses: string[]): string {
  return `You have been unsubscribed from ${nameList(businesses)} and will receive no further texts from this number. Reply START to resubscribe.`;
}

/**
 * The reply to START (or YES after a STOP), an opt-in confirmation (CTIA: the sender's name, how to
 * get help and opt out, that message and data rates may apply).
 */
export function startConfirmation(businesses: string[]): string {
  return `You have been resubscribed to texts from ${nameList(businesses)}. Reply HELP for help, STOP to unsubscribe. Msg&data rates may apply.`;
}

/**
 * The HELP reply (CTIA: the program or business name, how to reach it, how to opt out, that message
 * and data rates may apply). `business` is the latest sender that texted the number; `contact` its
 * phone or email, when known.
 */
export function helpReply(business: string | null, contact: string | null): string {
  const name = business?.trim() || DEFAULT_SENDER_NAME;
  const reach = contact?.trim() ? ` Questions: ${contact.trim()}.` : "";
  return `${name}: texts sent with Pitchwise.${reach} Reply STOP to unsubscribe. Msg&data rates may apply.`;
}

/**
 * True when `body` already tells the reader how to opt out by reply ("Reply STOP to opt out", "Text
 * END to quit", "reply with 'stop'"): then no notice is appended. A message that merely uses the word
 * ("Stop by our shop Saturday!") does not: CTIA expects the first message to say how to opt out.
 */
export function hasOptOutInstructions(body: string): boolean {
  return /\b(?:reply|text|txt|send|respond)\s+(?:with\s+)?["'“‘]?(?:stop|stopall|end|quit|cancel|unsubscribe|optout|opt[\s-]out)\b/i.test(
    body,
  );
}

/** Text appended to the first SMS a number receives from a workspace (CTIA: opt-out instructions). */
export const SMS_OPT_OUT_NOTICE = "Reply STOP to opt out";

/**
 * `body` with SMS_OPT_OUT_NOTICE on a new line, unless it already says how to opt out by reply
 * (hasOptOutInstructions). For the first text to a number (firstTextBody adds the sender's name too).
 */
export function withOptOutNotice(body: string): string {
  return hasOptOutInstructions(body) ? body : `${body}\n${SMS_OPT_OUT_NOTICE}`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * True when `body` names `business` (case-insensitive, spaces matched loosely, not inside a longer
 * word: "Acme" is named by "Thanks from ACME!" and "acme.com", not by "Acmeville"). An empty name
 * counts as named.
 */
export function namesBusiness(body: string, business: string): boolean {
  const words = business.trim().split(/\s+/).filter(Boolean).map(escapeRegExp);
  if (words.length === 0) return true;
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.join("\\s+")}(?![\\p{L}\\p{N}])`, "iu").test(body);
}

/**
 * The first text a number gets from a workspace: `body` led by "<business>: " unless it already names
 * the business (namesBusiness), and ending with SMS_OPT_OUT_NOTICE on a new line unless it already
 * says how to opt out (withOptOutNotice): "Acme: Hi Nina, big deals today only!\nReply STOP to opt
 * out". `business` is the workspace's sender name, else its name ("" adds no name). Every workspace
 * texts from the same number, so the name is how the person knows who texted. Source: CTIA
 * Messaging Principles and Best Practices (the first message identifies the sender and says how to
 * opt out).
 */
export function firstTextBody(body: string, business: string): string {
  const name = business.trim();
  return withOptOutNotice(!name || namesBusiness(body, name) ? body : `${name}: ${body}`);
}
