import twilio from "twilio";
import { createTwilioClient, type TwilioOptions, twilioError } from "../sms/twilio";
import type { VoiceCall, VoiceProvider } from "./index";

const VOICE = { voice: "Polly.Joanna-Neural" } as const;

/**
 * TwiML that speaks `script` with Amazon Polly's neural voice via <Say> (Twilio TwiML docs). With an
 * `optOut` offer, the prompt, the script and the prompt again are spoken inside
 * `<Gather input="dtmf" numDigits="1" action=… method="POST">`: a key pressed at any time stops the
 * speech and Twilio POSTs `Digits` (with CallSid, From, To) to the action URL, whose TwiML answer
 * continues the call (https://www.twilio.com/docs/voice/twiml/gather). No key: the call ends after
 * the speech (no verb follows the Gather).
 */
export function sayTwiml(script: string, optOut?: VoiceCall["optOut"]): string {
  const r = new twilio.twiml.VoiceResponse();
  if (!optOut) {
    r.say(VOICE, script);
    return r.toString();
  }
  const g = r.gather({
    input: ["dtmf"],
    numDigits: 1,
    action: optOut.actionUrl,
    method: "POST",
    timeout: 5,
  });
  g.say(VOICE, optOut.prompt);
  g.say(VOICE, script);
  g.say(VOICE, optOut.prompt);
  return r.toString();
}

/**
 * AI voice calls through Twilio Programmable Voice (POST Calls.json) with the official SDK: inline
 * TwiML `<Say>` speaking the merged script (inside a DTMF `<Gather>` when the call offers the keypress
 * opt-out), answering-machine detection (`MachineDetection=Enable`) and a status callback for
 * initiated/ringing/answered/completed.
 */
export class TwilioVoiceProvider implements VoiceProvider {
  readonly name = "twilio";
  readonly client: ReturnType<typeof createTwilioClient>;
  constructor(private readonly opts: TwilioOptions) {
    this.client = createTwilioClient(opts);
  }

  async call(c: VoiceCall) {
    try {
      const call = await this.client.calls.create({
        to: c.to,
        from: this.opts.fromNumber ?? "",
        twiml: sayTwiml(c.script, c.optOut),
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
