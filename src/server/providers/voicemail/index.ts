export interface VoicemailDrop {
  /** E.164 */
  to: string;
  /** a public audio URL (media library); when absent `ttsText` is spoken */
  audioUrl?: string | null;
  /** text-to-speech script used when there is no audio */
  ttsText?: string;
  /** our key for this drop (campaign recipient id); Drop Cowboy's `foreign_id` */
  idempotencyKey?: string;
  /** where the vendor posts the drop's outcome */
  statusCallback?: string;
  workspaceId?: string | null;
  /**
   * The business identity and opt-out sentences the drop carries (47 CFR 64.1200(b); compliance
   * voicemailNotice): already part of `ttsText`, and spoken around the recording in the file at
   * `audioUrl` (campaigns voicemailAudioWithNotice); `callbackNumber` is the number they give.
   */
  notice?: { identity: string; optOut: string; callbackNumber: string };
  metadata?: Record<string, unknown>;
}

/** Ringless voicemail drops. Implementations: `local` (outbox) and `dropcowboy`. */
export interface VoicemailProvider {
  readonly name: string;
  /** @throws ProviderError */
  drop(drop: VoicemailDrop): Promise<{ providerMessageId: string }>;
  /** The id of a drop already accepted for `idempotencyKey`, or null. */
  findSent?(idempotencyKey: string, hint: { to: string; since: Date }): Promise<string | null>;
}
