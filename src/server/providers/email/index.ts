export interface EmailMessage {
  to: string;
  /** defaults to EMAIL_FROM */
  from?: string;
  replyTo?: string;
  /**
   * sent as one header line (lib/email-subject emailSubjectLine, applied by every provider): line
   * breaks and control characters become a space, past EMAIL_SUBJECT_MAX_LENGTH it is cut with an
   * ellipsis; callers whose subject is previewed apply it themselves, so the preview is what is sent
   */
  subject: string;
  html?: string;
  text: string;
  /** extra headers, e.g. List-Unsubscribe (RFC 8058) */
  headers?: Record<string, string>;
  /** Postmark message stream: transactional (default) or broadcast */
  stream?: "transactional" | "broadcast";
  tag?: string;
  trackOpens?: boolean;
  trackLinks?: boolean;
  /** string key/values echoed back by the vendor's webhooks */
  metadata?: Record<string, string>;
  /** owner, for the local outbox */
  workspaceId?: string | null;
  /** our key for this message (campaign recipient id); sent as metadata so `findSent` can look it up */
  idempotencyKey?: string;
}

export interface SendResult {
  providerMessageId: string;
}

export interface BatchSendResult {
  providerMessageId?: string;
  /** set when this one message was rejected */
  error?: { message: string; transient: boolean; vendorCode?: string | number };
}

/** Sends email. Implementations: `local` (outbox table) and `postmark`. */
export interface EmailProvider {
  readonly name: string;
  /** @throws ProviderError */
  send(message: EmailMessage): Promise<SendResult>;
  /** Up to 500 messages per call (Postmark batch limit). @throws ProviderError when the whole call fails */
  sendBatch(messages: EmailMessage[]): Promise<BatchSendResult[]>;
  /**
   * The provider message id of a message already accepted with `idempotencyKey`, or null. Used
   * after a crash to tell "sent but not recorded" from "never sent". @throws ProviderError
   */
  findSent?(idempotencyKey: string, hint: { to: string; since: Date }): Promise<string | null>;
}
