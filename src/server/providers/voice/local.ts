import type { Db } from "../../db/client";
import { findOutboxByKey, findOutboxMetadata, writeOutbox } from "../outbox";
import { type InboundVoiceCall, spokenParts, type VoiceCall, type VoiceProvider } from "./index";
import { inboundMenuTwiml } from "./twilio";

/**
 * The local provider's number (a fictional 555-01xx number, never a real line): what voicemails give
 * as their callback number outside production.
 */
export const LOCAL_CALLBACK_NUMBER = "+12025550100";

/**
 * Test numbers of the local voice provider, in the spirit of Twilio's magic test numbers: a call to one
 * of them is acted out with that outcome, deterministically, so busy lines, unanswered calls, failed
 * calls and answering machines can be seen offline (the campaign report, the recipients CSV). They are
 * US numbers in the 555-0100..0199 range reserved for fiction (NANPA), area code 201, which no real
 * line has and the app's demo data does not use:
 *
 * | number          | outcome (Twilio status callback)                                           |
 * |-----------------|----------------------------------------------------------------------------|
 * | +1 201 555 0101 | busy: `CallStatus=busy`                                                    |
 * | +1 201 555 0102 | no answer: `CallStatus=no-answer`                                          |
 * | +1 201 555 0103 | failed: `CallStatus=failed` (the local voicemail provider refuses drops to it) |
 * | +1 201 555 0104 | answered by a machine: `CallStatus=completed`, `AnsweredBy=machine_start`  |
 * | any other       | answered by a person: `CallStatus=completed`, `AnsweredBy=human`           |
 *
 * `AnsweredBy` is sent only when the call asked for machine detection (as Twilio's AMD). README
 * "Providers" lists the same numbers.
 */
export const LOCAL_TEST_NUMBERS = {
  busy: "+12015550101",
  noAnswer: "+12015550102",
  failed: "+12015550103",
  machine: "+12015550104",
} as const;

/** How a local call to `to` ends: Twilio's status callback fields (LOCAL_TEST_NUMBERS), without the CallSid. */
export function localCallStatus(to: string, machineDetection: boolean): Record<string, string> {
  if (to === LOCAL_TEST_NUMBERS.busy) return { CallStatus: "busy" };
  if (to === LOCAL_TEST_NUMBERS.noAnswer) return { CallStatus: "no-answer" };
  if (to === LOCAL_TEST_NUMBERS.failed) return { CallStatus: "failed" };
  const machine = to === LOCAL_TEST_NUMBERS.machine;
  return {
    CallStatus: "completed",
    // a machine's greeting is shorter than a conversation; whole seconds, as Twilio's CallDuration
    CallDuration: machine ? "18" : "42",
    ...(machineDetection ? { AnsweredBy: machine ? "machine_start" : "human" } : {}),
  };
}

/**
 * Offline voice provider: the call lands in the outbox as the recipient would hear it (with the
 * keypress opt-out offer: prompt, script, closing, one per line, spokenParts, like the Twilio TwiML).
 * The offer is kept in the row's metadata as `keypad: {digit, prompt, closing, actionUrl}`: pressing the key is a POST of
 * `Digits={digit}` (form-encoded, as Twilio's <Gather> posts it) to `actionUrl`, which the dev outbox
 * page's "Press 9" button and tests do. An inbound call to the callback number (the dev outbox's
 * "Call back" button posts what Twilio would to `/api/webhooks/voice/inbound`) is recorded the same
 * way: a `voice` row to the caller, `metadata.direction: "inbound"`, its menu and keypad.
 * `callbackNumber`: LOCAL_CALLBACK_NUMBER outside production, null in production (nobody can call it).
 * How each call ends is decided by its number (LOCAL_TEST_NUMBERS: busy, no answer, failed, machine,
 * else a person) and kept in the row's `metadata.callStatus`; a call placed with a `statusCallback`
 * (campaign calls) hands those fields out through `simulatedStatusCallback`, which the campaigns'
 * simulation applies with the Twilio status webhook's handler.
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
          // how the call ends (LOCAL_TEST_NUMBERS), and whether the caller asked to be told
          callStatus: localCallStatus(c.to, c.machineDetection ?? false),
          statusCallback: !!c.statusCallback,
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
  /**
   * The status callback Twilio would post for the call `providerMessageId` to `to` (VoiceProvider
   * simulatedStatusCallback): the outcome its number got when it was placed (localCallStatus) with
   * `CallSid` and `To`. null for an unknown call or one placed without a `statusCallback`.
   */
  async simulatedStatusCallback(call: { providerMessageId: string; to: string }) {
    const meta = await findOutboxMetadata(this.db, call.providerMessageId, call.to);
    const status = meta?.callStatus as Record<string, string> | undefined;
    if (!meta?.statusCallback || !status) return null;
    return { CallSid: call.providerMessageId, To: call.to, ...status };
  }
}
