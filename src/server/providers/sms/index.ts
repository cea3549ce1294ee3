/**
 * The most characters one text may hold, its segments joined: Twilio refuses a longer body (error
 * 21617, "The concatenated message body exceeds the 1600 character limit"). Campaigns (the builder's
 * message as typed, each recipient's filled text) and the contact page's one-off texts hold to it.
 */
export const SMS_MAX_CHARACTERS = 1600;

export interface SmsMessage {
  /** E.164 */
  to: string;
  body: string;
  /** where the vendor posts delivery status */
  statusCallback?: string;
  workspaceId?: string | null;
  metadata?: Record<string, unknown>;
  /** our key for this message (campaign recipient id), for `findSent` */
  idempotencyKey?: string;
}

/** Sends SMS. Implementations: `local` (outbox) and `twilio`. */
export interface SmsProvider {
  readonly name: string;
  /** @throws ProviderError */
  send(message: SmsMessage): Promise<{ providerMessageId: string }>;
  /** Optional bulk send (one call for many messages); when absent callers use `send` per message. */
  sendBatch?(messages: SmsMessage[]): Promise<{ providerMessageId: string }[]>;
  /** The id of a message already accepted for `idempotencyKey` (see EmailProvider.findSent), or null. */
  findSent?(idempotencyKey: string, hint: { to: string; body: string; since: Date }): Promise<string | null>;
  /**
   * When the vendor received or created message `providerMessageId` (its own clock), or null when it
   * cannot tell. Used to order STOP/START replies, whose webhooks carry no timestamp.
   */
  messageTime?(providerMessageId: string): Promise<Date | null>;
}
