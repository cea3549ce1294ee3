import twilio from "twilio";
import type { Db } from "../../db/client";
import { createTwilioClient, type TwilioOptions, twilioError } from "../sms/twilio";
import { type InboundVoiceCall, spokenParts, type VoiceCall, type VoiceProvider } from "./index";
import { findTwimlDocument, storeTwimlDocument, TWIML_DOCUMENT_PATH } from "./twiml-documents";

const VOICE = { voice: "Polly.Joanna-Neural" } as const;

/**
 * Longest TwiML the Calls API takes inline in its `Twiml` parameter (characters): longer TwiML fails
 * the call with error 32018 "Twiml size exceeded maximum allowed value of 4000 characters"
 * (https://www.twilio.com/docs/api/errors/32018). Longer TwiML is handed over by `Url` instead.
 */
export const TWILIO_INLINE_TWIML_MAX = 4000;

/**
 * Longest text one Polly `<Say>` speaks (UTF-8 bytes; Twilio warning 13521: "Polly TTS Voices are
 * limited to 3000 UTF-8 single byte characters"). Longer text is spoken by consecutive `<Say>`s.
 */
export const POLLY_SAY_MAX_BYTES = 3000;

/**
 * `text` cut into pieces of at most `maxBytes` UTF-8 bytes, at a sentence end or else a space when
 * there is one in the piece's second half (a word longer than that is cut where the limit falls).
 */
export function splitForSay(text: string, maxBytes = POLLY_SAY_MAX_BYTES): string[] {
  const out: string[] = [];
  let rest = text.trim();
  while (Buffer.byteLength(rest) > maxBytes) {
    // the longest prefix within the byte limit (by code point)
    let end = 0;
    let bytes = 0;
    for (const ch of rest) {
      const b = Buffer.byteLength(ch);
      if (bytes + b > maxBytes) break;
      bytes += b;
      end += ch.length;
    }
    const head = rest.slice(0, end);
    const sentence = Math.max(head.lastIndexOf(". "), head.lastIndexOf("! "), head.lastIndexOf("? "));
    const space = head.lastIndexOf(" ");
    const cut = sentence >= end / 2 ? sentence + 1 : space >= end / 2 ? space : end;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

function say(target: { say: (attrs: typeof VOICE, text: string) => unknown }, text: string) {
  for (const part of splitForSay(text)) target.say(VOICE, part);
}

/**
 * TwiML that speaks `script` with Amazon Polly's neural voice via <Say> (Twilio TwiML docs; a script
 * longer than one <Say> takes is spoken by several, splitForSay). With an `optOut` offer, its prompt
 * (the business's name and the offer), the script and its closing (the offer and the callback number;
 * spokenParts, the lines the local provider records) are spoken inside
 * `<Gather input="dtmf" numDigits="1" action=… method="POST">`: a key pressed at any time stops the
 * speech and Twilio POSTs `Digits` (with CallSid, From, To) to the action URL, whose TwiML answer
 * continues the call (https://www.twilio.com/docs/voice/twiml/gather). No key: the call ends after
 * the speech (no verb follows the Gather).
 */
export function sayTwiml(script: string, optOut?: VoiceCall["optOut"]): string {
  const r = new twilio.twiml.VoiceResponse();
  if (!optOut) {
    say(r, script);
    return r.toString();
  }
  const g = r.gather({
    input: ["dtmf"],
    numDigits: 1,
    action: optOut.actionUrl,
    method: "POST",
    timeout: 5,
  });
  const [prompt, , closing] = spokenParts({ script, optOut });
  say(g, prompt ?? "");
  say(g, script);
  say(g, closing ?? "");
  return r.toString();
}

/**
 * TwiML answering an inbound call to the callback number: `say` inside a one-digit DTMF <Gather>
 * posting to the offer's action URL (waiting 8 s for the key), then "Goodbye." and <Hangup/> when no
 * key came; without an offer, `say` and <Hangup/>.
 */
export function inboundMenuTwiml(call: Pick<InboundVoiceCall, "say" | "optOut">): string {
  const r = new twilio.twiml.VoiceResponse();
  if (call.optOut) {
    const g = r.gather({
      input: ["dtmf"],
      numDigits: 1,
      action: call.optOut.actionUrl,
      method: "POST",
      timeout: 8,
    });
    g.say(VOICE, call.say);
    r.say(VOICE, "Goodbye.");
  } else {
    r.say(VOICE, call.say);
  }
  r.hangup();
  return r.toString();
}

/**
 * AI voice calls through Twilio Programmable Voice (POST Calls.json) with the official SDK: TwiML
 * `<Say>` speaking the merged script (inside a DTMF `<Gather>` when the call offers the keypress
 * opt-out), answering-machine detection (`MachineDetection=Enable`) and a status callback for
 * initiated/ringing/answered/completed. TwiML of at most 4,000 characters goes inline (`Twiml`);
 * longer TwiML (a long script) is stored and given as `Url`
 * (`{APP_URL}/api/webhooks/voice/twiml/{id}`, fetched by Twilio with `Method=GET` and served only to
 * requests carrying a valid X-Twilio-Signature). Inbound calls to TWILIO_FROM_NUMBER (configure the
 * number's voice webhook as `{APP_URL}/api/webhooks/voice/inbound`) get the opt-out menu.
 */
export class TwilioVoiceProvider implements VoiceProvider {
  readonly name = "twilio";
  readonly client: ReturnType<typeof createTwilioClient>;
  readonly callbackNumber: string | null;
  constructor(
    private readonly opts: TwilioOptions,
    private readonly deps: { db: Db; appUrl: string },
  ) {
    this.client = createTwilioClient(opts);
    this.callbackNumber = opts.fromNumber || null;
  }

  async call(c: VoiceCall) {
    const twiml = sayTwiml(c.script, c.optOut);
    const how =
      twiml.length <= TWILIO_INLINE_TWIML_MAX
        ? { twiml }
        : {
            url: `${this.deps.appUrl.replace(/\/+$/, "")}${TWIML_DOCUMENT_PATH}/${await storeTwimlDocument(this.deps.db, twiml)}`,
            method: "GET",
          };
    try {
      const call = await this.client.calls.create({
        to: c.to,
        from: this.opts.fromNumber ?? "",
        ...how,
        ...(c.machineDetection ? { machineDetection: "Enable" } : {}),
        ...(c.statusCallback
          ? {
              statusCallback: c.statusCallback,
              statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
            }
          : {}),
      });
      return { providerMessageId: call.sid };
    } catch (e) {
      throw twilioError(e);
    }
  }

  async answerInbound(call: InboundVoiceCall): Promise<string> {
    return inboundMenuTwiml(call);
  }

  async storedTwiml(id: string): Promise<string | null> {
    return findTwimlDocument(this.deps.db, id);
  }

  /** A call to `to` started since `since` is taken as ours (Twilio has no client idempotency key). */
  async findSent(_key: string, hint: { to: string; since: Date }): Promise<string | null> {
    try {
      const list = await this.client.calls.list({
        to: hint.to,
        startTimeAfter: new Date(hint.since.getTime() - 86_400_000),
        limit: 20,
      });
      const hit = list.find((c) => !c.dateCreated || c.dateCreated.getTime() >= hint.since.getTime() - 1000);
      return hit?.sid ?? null;
    } catch (e) {
      throw twilioError(e);
    }
  }
}
