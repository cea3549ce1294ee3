export interface VoiceCall {
  /** E.164 */
  to: string;
  /** text spoken by the AI voice (TwiML <Say>) */
  script: string;
  /** detect answering machines (Twilio AMD) */
  machineDetection?: boolean;
  statusCallback?: string;
  workspaceId?: string | null;
  metadata?: Record<string, unknown>;
  /** our key for this call (campaign recipient id), for `findSent` */
  idempotencyKey?: string;
  /**
   * The keypress opt-out the call offers (compliance call-opt-out.ts): `prompt` is spoken before the
   * script (the business's name and the offer) and `closing` after it (the offer and the callback
   * number; `prompt` again when absent) while the call listens for `digit`; a press is POSTed to
   * `actionUrl` with the form fields Twilio's <Gather> action sends (Digits, CallSid, From, To).
   */
  optOut?: { digit: string; prompt: string; closing?: string; actionUrl: string };
}

/**
 * What a call says, in order: with an opt-out offer its `prompt`, the script and its `closing` (the
 * prompt when there is none); else the script. The local outbox records these lines and Twilio speaks
 * them as consecutive <Say>s, so both providers say the same words.
 */
export function spokenParts(call: Pick<VoiceCall, "script" | "optOut">): string[] {
  if (!call.optOut) return [call.script];
  return [call.optOut.prompt, call.script, call.optOut.closing ?? call.optOut.prompt];
}

/**
 * An inbound call to the provider's number (the callback number voicemails give), to be answered
 * with `say`, inside a DTMF <Gather> listening for `optOut.digit` when there is something to opt out of.
 */
export interface InboundVoiceCall {
  /** E.164 of the caller */
  from: string;
  /** the number called */
  to: string;
  /** the provider's call id (Twilio CallSid) */
  callSid?: string;
  /** the menu's sentence ("To stop calls and voicemail from Acme, press 9."), or a goodbye */
  say: string;
  /** the keypress offer; absent: `say` is spoken and the call ends */
  optOut?: { digit: string; prompt: string; actionUrl: string };
}

/** Places AI voice calls. Implementations: `local` (outbox) and `twilio`. */
export interface VoiceProvider {
  readonly name: string;
  /**
   * E.164 of the number calls and voicemails come from and people can call back: an inbound call to
   * it reaches `/api/webhooks/voice/inbound` (answered by answerInbound). null when there is none
   * (Twilio without TWILIO_FROM_NUMBER; the local provider in production).
   */
  readonly callbackNumber: string | null;
  /**
   * The TwiML answering an inbound call to the callback number (the local provider also records the
   * call in the outbox, with the keypress offer in `metadata.keypad`, as it does for calls it places).
   */
  answerInbound(call: InboundVoiceCall): Promise<string>;
  /** TwiML this provider stored to hand out by URL (Twilio's `Url`), by id; null when unknown. */
  storedTwiml?(id: string): Promise<string | null>;
  /** @throws ProviderError */
  call(call: VoiceCall): Promise<{ providerMessageId: string }>;
  /** The id of a call already placed for `idempotencyKey`, or null. */
  findSent?(idempotencyKey: string, hint: { to: string; since: Date }): Promise<string | null>;
  /**
   * Offline providers only (`local`): the form fields Twilio's status callback would POST to the
   * call's `statusCallback` when the call ended (`CallSid`, `CallStatus` completed / busy / no-answer /
   * failed, `To`, and for a completed call `CallDuration` in seconds and, when the call asked for
   * machine detection, `AnsweredBy` human / machine_start), as the provider acted the call out. The
   * campaigns' simulation (CAMPAIGN_SIMULATE_ENGAGEMENT) hands them to the status webhook's handler.
   * null for an unknown call, or one placed without a `statusCallback` (Twilio posts none then).
   */
  simulatedStatusCallback?(call: {
    providerMessageId: string;
    to: string;
  }): Promise<Record<string, string> | null>;
}
