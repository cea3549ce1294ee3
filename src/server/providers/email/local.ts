import type { Db } from "../../db/client";
import { emailSubjectLine } from "../../lib/email-subject";
import { findOutboxByKey, writeOutbox } from "../outbox";
import type { BatchSendResult, EmailMessage, EmailProvider } from "./index";

/** Offline email provider: each message becomes a row in the outbox, shown at /dev/outbox. */
export class LocalEmailProvider implements EmailProvider {
  readonly name = "local";
  constructor(
    private readonly db: Db,
    private readonly defaultFrom: string,
  ) {}

  private entry(m: EmailMessage) {
    return {
      workspaceId: m.workspaceId,
      channel: "email" as const,
      to: m.to,
      from: m.from ?? this.defaultFrom,
      // one header line, as a vendor is sent it (EmailProvider)
      subject: emailSubjectLine(m.subject),
      body: m.text,
      html: m.html ?? null,
      metadata: {
        headers: m.headers ?? {},
        stream: m.stream ?? "transactional",
        tag: m.tag,
        ...(m.metadata ?? {}),
        idempotencyKey: m.idempotencyKey,
      },
    };
  }

  async send(m: EmailMessage) {
    const [id] = await writeOutbox(this.db, [this.entry(m)]);
    return { providerMessageId: id };
  }

  async sendBatch(messages: EmailMessage[]): Promise<BatchSendResult[]> {
    const ids = await writeOutbox(
      this.db,
      messages.map((m) => this.entry(m)),
    );
    return ids.map((providerMessageId) => ({ providerMessageId }));
  }

  async findSent(key: string, hint: { to: string }) {
    return findOutboxByKey(this.db, key, hint.to);
  }
}
