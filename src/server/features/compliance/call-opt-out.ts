import { sign, verifySignature } from "../../lib/signing";

/*
 * The keypress opt-out of AI voice calls. Every AI call (campaign or contact page) says, before and
 * after its script, "To stop calls from us, press 9 at any time." and listens for that key (Twilio
 * <Gather input="dtmf">; the local provider records the same offer in the outbox). A press posts to
 * the call's signed opt-out URL, which puts the number on the workspace's suppression list for calls
 * and ringless voicemail. Source of the rule: 47 CFR 64.1200(b)(3) (an artificial or prerecorded-voice
 * call must offer an automated, interactive key-press opt-out, announced at the start of the message)
 * and 64.1200(d)(3) (a do-not-call request is honoured for that caller from then on).
 * Ringless voicemail cannot take a keypress (the person hears it later in their mailbox; Drop
 * Cowboy's RVM API has no DTMF), so a voicemail drop carries no keypress offer.
 */

/** The DTMF key that opts the called person out. */
export const CALL_OPT_OUT_DIGIT = "9";
/** What the call says, before and after the script. */
export const CALL_OPT_OUT_PROMPT = `To stop calls from us, press ${CALL_OPT_OUT_DIGIT} at any time.`;
/** What the call says after the opt-out key was pressed, before hanging up. */
export const CALL_OPT_OUT_CONFIRMATION =
  "You will not receive any more calls or voicemails from us. Goodbye.";
/** What the call says when another key was pressed, before hanging up. */
export const CALL_OTHER_KEY_GOODBYE = "Thank you. Goodbye.";
/** The path the keypress is posted to (the campaigns feature serves it). */
export const CALL_OPT_OUT_PATH = "/api/webhooks/voice/opt-out";
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
  /** the sentence spoken before and after the script */
  prompt: string;
  /** where the key press is POSTed (Twilio <Gather action>; form fields Digits, CallSid, To, From) */
  actionUrl: string;
}

const parts = (t: CallOptOutTarget) => [t.workspaceId, t.phone, t.contactId ?? "", t.recipientId ?? ""];

/**
 * The keypress opt-out offer of one call: `{APP_URL}/api/webhooks/voice/opt-out?w=&n=&c=&r=&s=`,
 * where `s` is an HMAC (APP_SECRET, lib/signing) over the workspace, number, contact and recipient,
 * so the URL cannot be altered to opt out another number or workspace.
 */
export function callOptOutOffer(
  env: { APP_URL: string; APP_SECRET: string },
  target: CallOptOutTarget,
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
    prompt: CALL_OPT_OUT_PROMPT,
    actionUrl: `${env.APP_URL.replace(/\/+$/, "")}${CALL_OPT_OUT_PATH}?${q.toString()}`,
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
  if (!/^[0-9a-f-]{36}$/i.test(w) || !/^\+\d{6,15}$/.test(n)) return null;
  if ((c && !/^\d{1,15}$/.test(c)) || (r && !/^\d{1,15}$/.test(r))) return null;
  const target = {
    workspaceId: w,
    phone: n,
    contactId: c ? Number(c) : null,
    recipientId: r ? Number(r) : null,
  };
  return verifySignature(env.APP_SECRET, PURPOSE, parts(target), s) ? target : null;
}
