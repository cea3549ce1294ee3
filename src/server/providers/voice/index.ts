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
   * The keypress opt-out the call offers (compliance call-opt-out.ts): `prompt` is spoken before and
   * after the script while the call listens for `digit`; a press is POSTed to `actionUrl` with the
   * form fields Twilio's <Gather> action sends (Digits, CallSid, From, To).
   */
  optOut?: { digit: string; prompt: string; actionUrl: string };
}

/** Places AI voice calls. Implementations: `local` (outbox) and `twilio`. */
export interface VoiceProvider {
  readonly name: string;
  /** @throws ProviderError */
  call(call: VoiceCall): Promise<{ providerMessageId: string }>;
  /** The id of a call already placed for `idempotencyKey`, or null. */
  findSent?(idempotencyKey: string, hint: { to: string; since: Date }): Promise<string | null>;
}
