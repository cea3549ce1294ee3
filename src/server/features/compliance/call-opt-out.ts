import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import { isUuid } from "../../lib/ids";
import { sign, verifySignature } from "../../lib/signing";

/*
 * The keypress opt-out of AI voice calls. Every AI call (campaign, contact page or landing-page demo)
 * starts by naming the business ("This is a message from <business>.") and offering the key ("To stop
 * calls from us, press 9 at any time."), and ends with the offer again and the callback number ("To
 * stop calls and voicemails from <business>, call <number> and press 9."), the sentences a voicemail
 * speaks (callNotice, voicemailNotice); it listens for the key throughout (Twilio
 * <Gather input="dtmf">; the local provider records the same offer in the outbox). A press posts to
 * the call's signed opt-out URL, which puts the number on the workspace's suppression list for calls
 * and ringless voicemail. Source of the rule: 47 CFR 64.1200(b)(3) (an artificial or prerecorded-voice
 * call must offer an automated, interactive key-press opt-out, announced at the start of the message),
 * 64.1200(b)(1) (the identity of the business at the beginning of the message), (b)(2) (its telephone
 * number during or after the message) and 64.1200(d)(3) (a do-not-call request is honoured for that
 * caller from then on).
 * Ringless voicemail cannot take a keypress (the person hears it later in their mailbox; Drop
 * Cowboy's RVM API has no DTMF), so every voicemail drop starts by naming the business and ends by
 * giving the number to call back to opt out (voicemailNotice): 47 CFR 64.1200(b)(1) (identity at the
 * start) and (b)(2)/(b)(3) (a telephone number during or after the message; when the message is left on
 * an answering machine or voicemail, a number the person can call to reach the automated opt-out).
 * A call to that number (the voice provider's number, which every workspace sends from) answers with
 * a menu, "press 9 to stop calls and voicemail from <business>" (callbackOptOutOffer), whose key
 * opts the caller out the same way as a key pressed during a call.
 */

/** The DTMF key that opts the called person out. */
export const CALL_OPT_OUT_DIGIT = "9";
/** The key-press offer a call says after the business's name and again after the script. */
export const CALL_OPT_OUT_PROMPT = `To stop calls from us, press ${CALL_OPT_OUT_DIGIT} at any time.`;
/** What the call says after the opt-out key was pressed, before hanging up. */
export const CALL_OPT_OUT_CONFIRMATION =
  "You will not receive any more calls or voicemails from us. Goodbye.";
/** What the call says when another key was pressed, before hanging up. */
export const CALL_OTHER_KEY_GOODBYE = "Thank you. Goodbye.";
/** The path the keypress is posted to (the campaigns feature serves it). */
export const CALL_OPT_OUT_PATH = "/api/webhooks/voice/opt-out";
/** The path an inbound call to the callback number is answered at (voice webhook). */
export const INBOUND_CALL_PATH = "/api/webhooks/voice/inbound";
/** The path the key pressed in the callback number's menu is posted to. */
export const CALLBACK_OPT_OUT_PATH = "/api/webhooks/voice/callback-opt-out";
/** The path the key pressed during a landing-page demo call is posted to. */
export const DEMO_CALL_OPT_OUT_PATH = "/api/webhooks/voice/demo-opt-out";
/** What a demo call's opt-out key answers, before hanging up. */
export const DEMO_OPT_OUT_CONFIRMATION =
  "You will not receive any more demo calls or texts from Pitchwise. Goodbye.";
/** Suppression reason of a keypress opt-out (calls and ringless voicemail). */
export const KEYPRESS_OPT_OUT_REASON = "keypress_opt_out";

const PURPOSE = "call-opt-out";

/** Who a keypress opts out: the workspace that called, the number called, and (when known) its contact and campaign recipient. */
export interface CallOptOutTarget {
  workspaceId: string;
  /** E.164, the number the call went to */
  phone: string;
  contactId: number | null;
  recipientId: number | null;
}

/** The keypress offer handed to the voice provider (VoiceCall.optOut). */
export interface KeypadOptOut {
  /** the DTMF key, "9" */
  digit: string;
  /**
   * spoken before the script: an AI call's "This is a message from <business>. To stop calls from us,
   * press 9 at any time." (callSpeech); the callback number's menu sentence (callbackOptOutOffer)
   */
  prompt: string;
  /**
   * spoken after the script: "To stop calls from us, press 9 at any time. To stop calls and voicemails
   * from <business>, call <number> and press 9." (callSpeech); absent: `prompt` again
   */
  closing?: string;
  /** where the key press is POSTed (Twilio <Gather action>; form fields Digits, CallSid, To, From) */
  actionUrl: string;
}

/**
 * The business an AI call names and the number it gives (callNotice): what the call says besides its
 * script and the key-press offer.
 */
export interface CallNotice {
  /** said first: "This is a message from <business>." (47 CFR 64.1200(b)(1)) */
  identity: string;
  /**
   * said last: "To stop calls and voicemails from <business>, call <number> and press 9." (47 CFR
   * 64.1200(b)(2)); null when the voice provider has no callback number (the local provider in
   * production; Twilio without TWILIO_FROM_NUMBER, which places no call either)
   */
  callback: string | null;
}

/**
 * What an AI call from `business` (the workspace's sender name, else its name; "Pitchwise" for the
 * landing-page demo) says besides its script: a ringless voicemail's identity and callback sentences
 * (voicemailNotice), the callback sentence only with a `callbackNumber` (E.164: the voice provider's
 * number, TWILIO_FROM_NUMBER, whose inbound menu takes the opt-out; null: none).
 */
export function callNotice(business: string, callbackNumber: string | null): CallNotice {
  const v = voicemailNotice(business, callbackNumber ?? "");
  return { identity: v.identity, callback: callbackNumber ? v.optOut : null };
}

/**
 * The sentences an AI call speaks around its script (KeypadOptOut `prompt` and `closing`): first the
 * business's name and the key-press offer, last the offer again and the callback number:
 * `{prompt: "This is a message from Acme. To stop calls from us, press 9 at any time.", closing: "To
 * stop calls from us, press 9 at any time. To stop calls and voicemails from Acme, call (202)
 * 555-0100 and press 9."}`. Source: 47 CFR 64.1200(b)(1)-(3).
 */
export function callSpeech(notice: CallNotice): { prompt: string; closing: string } {
  return {
    prompt: `${notice.identity} ${CALL_OPT_OUT_PROMPT}`,
    closing: [CALL_OPT_OUT_PROMPT, notice.callback].filter(Boolean).join(" "),
  };
}

const parts = (t: CallOptOutTarget) => [t.workspaceId, t.phone, t.contactId ?? "", t.recipientId ?? ""];

/**
 * The keypress opt-out offer of one call: `{APP_URL}/api/webhooks/voice/opt-out?w=&n=&c=&r=&s=`,
 * where `s` is an HMAC (APP_SECRET, lib/signing) over the workspace, number, contact and recipient,
 * so the URL cannot be altered to opt out another number or workspace; spoken with `notice`'s
 * business and callback number around the script (callSpeech).
 */
export function callOptOutOffer(
  env: { APP_URL: string; APP_SECRET: string },
  target: CallOptOutTarget,
  notice: CallNotice,
): KeypadOptOut {
  const q = new URLSearchParams({
    w: target.workspaceId,
    n: target.phone,
    c: target.contactId === null ? "" : String(target.contactId),
    r: target.recipientId === null ? "" : String(target.recipientId),
    s: sign(env.APP_SECRET, PURPOSE, parts(target)),
  });
  return {
    digit: CALL_OPT_OUT_DIGIT,
    ...callSpeech(notice),
    actionUrl: `${env.APP_URL}${CALL_OPT_OUT_PATH}?${q.toString()}`,
  };
}

/**
 * The target of a posted opt-out URL's query (`w`, `n`, `c`, `r`, `s` as callOptOutOffer wrote them),
 * or null when a field is missing or malformed or the signature does not match.
 */
export function readCallOptOut(
  env: { APP_SECRET: string },
  query: Record<string, unknown>,
): CallOptOutTarget | null {
  const str = (k: string) => (typeof query[k] === "string" ? (query[k] as string) : null);
  const [w, n, c, r, s] = [str("w"), str("n"), str("c"), str("r"), str("s")];
  if (!w || !n || c === null || r === null || !s) return null;
  if (!isUuid(w) || !/^\+\d{6,15}$/.test(n)) return null;
  if ((c && !/^\d{1,15}$/.test(c)) || (r && !/^\d{1,15}$/.test(r))) return null;
  const target = {
    workspaceId: w,
    phone: n,
    contactId: c ? Number(c) : null,
    recipientId: r ? Number(r) : null,
  };
  return verifySignature(env.APP_SECRET, PURPOSE, parts(target), s) ? target : null;
}

/**
 * A phone number as a voicemail says it and a person dials it: the national format for a number of
 * the number's own country ("(202) 555-0100" for +12025550100), else the international format
 * ("+44 20 7946 0958"); the E.164 text when libphonenumber-js cannot read it.
 */
export function spokenPhoneNumber(e164: string): string {
  const p = parsePhoneNumberFromString(e164);
  if (!p) return e164;
  return p.country === "US" || p.countryCallingCode === "1" ? p.formatNational() : p.formatInternational();
}

/** The sentences a ringless voicemail starts and ends with (voicemailNotice). */
export interface VoicemailNotice {
  /** said first: "This is a message from <business>." (47 CFR 64.1200(b)(1)) */
  identity: string;
  /**
   * said last: "To stop calls and voicemails from <business>, call <number> and press 9."
   * (47 CFR 64.1200(b)(2), (b)(3))
   */
  optOut: string;
  /** E.164, the number the opt-out sentence gives */
  callbackNumber: string;
}

/**
 * The identity and opt-out sentences of a ringless voicemail from `business` (the workspace's sender
 * name, else its name) whose callback number is `callbackNumber` (E.164: the voice provider's number,
 * where an inbound call reaches the opt-out menu).
 */
export function voicemailNotice(business: string, callbackNumber: string): VoicemailNotice {
  const name = business.trim() || "us";
  return {
    identity: `This is a message from ${name}.`,
    optOut: `To stop calls and voicemails from ${name}, call ${spokenPhoneNumber(callbackNumber)} and press ${CALL_OPT_OUT_DIGIT}.`,
    callbackNumber,
  };
}

/** A voicemail's text-to-speech script as it is spoken: the identity sentence, the script, the opt-out sentence. */
export function withVoicemailNotice(script: string, notice: VoicemailNotice): string {
  return [notice.identity, script.trim(), notice.optOut].filter(Boolean).join(" ");
}

/**
 * Why a voicemail launch is refused (and a drop fails) when the voice provider has no number people
 * can call back to opt out.
 */
export const NO_CALLBACK_NUMBER_MESSAGE =
  "Ringless voicemail cannot be sent yet: every voicemail must give a number people can call back to opt out, and no calling number is set up for this server (TWILIO_FROM_NUMBER with the Twilio voice provider).";
/** The failure reason of a drop without a callback number. */
export const NO_CALLBACK_NUMBER_REASON = "no callback number for the opt-out";

/**
 * What the callback number's menu says to a caller who got calls or voicemail from `businesses`
 * (newest first, at most three named) and `others` more: "To stop calls and voicemail from Acme,
 * press 9."; "... from Acme, Bo's Bakery and 2 other businesses, press 9."
 */
export function callbackMenuPrompt(businesses: string[], others = 0): string {
  const names = [...new Set(businesses.map((b) => b.trim()).filter(Boolean))].slice(0, 3);
  const rest = Math.max(0, others) + (businesses.length > 0 && names.length === 0 ? 1 : 0);
  const parts = rest > 0 ? [...names, `${rest} other ${rest === 1 ? "business" : "businesses"}`] : names;
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "us");
  return `To stop calls and voicemail from ${list}, press ${CALL_OPT_OUT_DIGIT}.`;
}

/** What the callback number says to a caller no workspace has called or left a voicemail. */
export const CALLBACK_NOTHING_ON_RECORD =
  "This number takes opt-out requests for calls and voicemails sent through Pitchwise. We have no call or voicemail to your number on record. Goodbye.";

const CALLBACK_PURPOSE = "callback-opt-out";
const DEMO_PURPOSE = "demo-call-opt-out";

function phoneOptOutOffer(
  env: { APP_URL: string; APP_SECRET: string },
  path: string,
  purpose: string,
  phone: string,
  prompt: string,
): KeypadOptOut {
  const q = new URLSearchParams({ n: phone, s: sign(env.APP_SECRET, purpose, [phone]) });
  return {
    digit: CALL_OPT_OUT_DIGIT,
    prompt,
    actionUrl: `${env.APP_URL}${path}?${q.toString()}`,
  };
}

function readPhoneOptOut(
  env: { APP_SECRET: string },
  purpose: string,
  query: Record<string, unknown>,
): string | null {
  const n = typeof query.n === "string" ? query.n : null;
  const s = typeof query.s === "string" ? query.s : null;
  if (!n || !s || !/^\+\d{6,15}$/.test(n)) return null;
  return verifySignature(env.APP_SECRET, purpose, [n], s) ? n : null;
}

/**
 * The keypress offer of the callback number's menu for a caller from `phone` (E.164):
 * `{APP_URL}/api/webhooks/voice/callback-opt-out?n=&s=`, `s` an HMAC (APP_SECRET) of the number, so
 * the URL opts out only the number that called. `prompt` is callbackMenuPrompt's sentence.
 */
export function callbackOptOutOffer(
  env: { APP_URL: string; APP_SECRET: string },
  phone: string,
  prompt: string,
): KeypadOptOut {
  return phoneOptOutOffer(env, CALLBACK_OPT_OUT_PATH, CALLBACK_PURPOSE, phone, prompt);
}

/** The number of a posted callback-menu opt-out URL (`n`, `s`), or null when unsigned or altered. */
export function readCallbackOptOut(
  env: { APP_SECRET: string },
  query: Record<string, unknown>,
): string | null {
  return readPhoneOptOut(env, CALLBACK_PURPOSE, query);
}

/** The business a landing-page demo call and text come from. */
export const DEMO_BUSINESS = "Pitchwise";

/**
 * The keypress offer of a landing-page demo call to `phone` (E.164), spoken like every AI call's
 * (callSpeech): "This is a message from Pitchwise. To stop calls from us, press 9 at any time." before
 * the script, the offer and "To stop calls and voicemails from Pitchwise, call <callbackNumber> and
 * press 9." after it (`callbackNumber`: the voice provider's, null when it has none), posting to
 * `{APP_URL}/api/webhooks/voice/demo-opt-out?n=&s=` (signed like callbackOptOutOffer). The demo has
 * no workspace: a press stops the demo's calls and texts to the number (demo feature).
 */
export function demoCallOptOutOffer(
  env: { APP_URL: string; APP_SECRET: string },
  phone: string,
  callbackNumber: string | null,
): KeypadOptOut {
  const { prompt, closing } = callSpeech(callNotice(DEMO_BUSINESS, callbackNumber));
  return { ...phoneOptOutOffer(env, DEMO_CALL_OPT_OUT_PATH, DEMO_PURPOSE, phone, prompt), closing };
}

/**
 * The keypress offer the callback number's menu makes a caller from `phone` (E.164) whose only call
 * was a landing-page demo: `prompt` (callbackMenuPrompt(["Pitchwise"])) posting to the demo's signed
 * opt-out URL, so the key stops the demo's calls and texts as during the call.
 */
export function demoCallbackOptOutOffer(
  env: { APP_URL: string; APP_SECRET: string },
  phone: string,
  prompt: string,
): KeypadOptOut {
  return phoneOptOutOffer(env, DEMO_CALL_OPT_OUT_PATH, DEMO_PURPOSE, phone, prompt);
}

/** The number of a posted demo-call opt-out URL (`n`, `s`), or null when unsigned or altered. */
export function readDemoCallOptOut(
  env: { APP_SECRET: string },
  query: Record<string, unknown>,
): string | null {
  return readPhoneOptOut(env, DEMO_PURPOSE, query);
}
