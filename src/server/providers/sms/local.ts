import type { Db } from "../../db/client";
import { findOutboxByKey, writeOutbox } from "../outbox";
import type { SmsMessage, SmsProvider } from "./index";

/** Offline SMS provider: messages land in the outbox. */
export class LocalSmsProvider implements SmsProvider {
  readonly name = "local";
  constructor(private readonly db: Db) {}
  async send(m: SmsMessage) {
    const [id] = await writeOutbox(this.db, [
      {
        workspaceId: m.workspaceId,
        channel: "sms",
        to: m.to,
        from: "Pitchwise",
        body: m.body,
        metadata: { ...(m.metadata ?? {}), idempotencyKey: m.idempotencyKey },
      },
    ]);
    return { providerMessageId: id };
  }
  /** One multi-row outbox insert: all or nothing. */
  async sendBatch(messages: SmsMessage[]) {
    const ids = await writeOutbox(
      this.db,
      messages.map((m) => ({
        workspaceId: m.workspaceId,
        channel: "sms" as const,
        to: m.to,
        from: "Pitchwise",
        body: m.body,
        metadata: { ...(m.metadata ?? {}), idempotencyKey: m.idempotencyKey },
      })),
    );
    return ids.map((providerMessageId) => ({ providerMessageId }));
  }
  async findSent(key: string, hint: { to: string }) {
    return findOutboxByKey(this.db, key, hint.to);
  }
}
