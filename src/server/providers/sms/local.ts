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
        userId: m.userId,
        channel: "sms",
        to: m.to,
        from: "Pitchwise",
        body: m.body,
        metadata: { ...(m.metadata ?? {}), idempotencyKey: m.idempotencyKey },
      },
    ]);
    return { providerMessageId: id };
  }
  async findSent(key: string) {
    return findOutboxByKey(this.db, key);
  }
}
