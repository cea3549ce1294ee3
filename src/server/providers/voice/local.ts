import type { Db } from "../../db/client";
import { findOutboxByKey, writeOutbox } from "../outbox";
import { type InboundVoiceCall, spokenParts, type VoiceCall, type VoiceProvider } from "./index";
import { inboundMenuTwiml } from "./twilio";

/**
 * The local provider's number (a fictional 555-01xx number, never a real line): what voicemails give
 * as their callback number outside production.
 */
export const LOCAL_CALLBACK_NUMBER = "+12025550100";

/**
 * Offline voice provider: the call lands in the outbox as the recipient would hear it (with the
 * keypress opt-out offer: prompt, script, closing, one per line, spokenParts, like the Twilio TwiML).
 * The offer is kept in the row's metadata as `keypad: {digit, prompt, closing, actionUrl}`: pressing the key is a POST of
 * `Digits={digit}` (form-encoded, as Twilio's <Gather> posts it) to `actionUrl`, which the dev outbox
 * page's "Press 9" button and tests do. An inbound call to the callback number (the dev outbox's
 * "Call back" button posts what Twilio would to `/api/webhooks/voice/inbound`) is recorded the same
 * way: a `voice` row to the caller, `metadata.direction: "inbound"`, its menu and keypad.
 * `callbackNumber`: LOCAL_CALLBACK_NUMBER outside production, null in production (nobody can call it).
 */
export class LocalVoiceProvider implements VoiceProvider {
  readonly name = "local";
  constructor(
    private readonly db: Db,
    readonly callbackNumber: string | null = LOCAL_CALLBACK_NUMBER,
  ) {}
  async call(c: VoiceCall) {
    const [id] = await writeOutbox(this.db, [
      {
        workspaceId: c.workspaceId,
        channel: "voice",
        to: c.to,
        from: "Pitchwise AI voice",
        body: spokenParts(c).join("\n"),
        metadata: {
          ...(c.metadata ?? {}),
          idempotencyKey: c.idempotencyKey,
          ...(c.optOut ? { keypad: c.optOut } : {}),
        },
      },
    ]);
    return { providerMessageId: id };
  }
  async answerInbound(call: InboundVoiceCall): Promise<string> {
    await writeOutbox(this.db, [
      {
        channel: "voice",
        to: call.from,
        from: `Callback number ${call.to}`,
        body: call.say,
        metadata: {
          direction: "inbound",
          callSid: call.callSid ?? null,
          ...(call.optOut ? { keypad: call.optOut } : {}),
        },
      },
    ]);
    return inboundMenuTwiml(call);
  }
  async findSent(key: string, hint: { to: string }) {
    return findOutboxByKey(this.db, key, hint.to);
  }
}
