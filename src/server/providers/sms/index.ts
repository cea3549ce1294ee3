export interface SmsMessage {
  /** E.164 */
  to: string;
  body: string;
  /** where the vendor posts delivery status */
  statusCallback?: string;
  userId?: string | null;
  metadata?: Record<string, unknown>;
}

/** Sends SMS. Implementations: `local` (outbox) and `twilio`. */
export interface SmsProvider {
  readonly name: string;
  /** @throws ProviderError */
  send(message: SmsMessage): Promise<{ providerMessageId: string }>;
}
