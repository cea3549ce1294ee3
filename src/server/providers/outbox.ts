import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { outboxMessages } from "../db/schema";

export interface OutboxEntry {
  userId?: string | null;
  channel: "email" | "sms" | "voice" | "voicemail";
  to: string;
  from?: string | null;
  subject?: string | null;
  body: string;
  html?: string | null;
  status?: string;
  metadata?: Record<string, unknown>;
}

/** Writes messages the local providers "deliver"; returns their provider message ids (`local-<uuid>`). */
export async function writeOutbox(db: Db, entries: OutboxEntry[]): Promise<string[]> {
  if (entries.length === 0) return [];
  const rows = entries.map((e) => ({
    userId: e.userId ?? null,
    channel: e.channel,
    to: e.to,
    from: e.from ?? null,
    subject: e.subject ?? null,
    body: e.body,
    html: e.html ?? null,
    status: e.status ?? "sent",
    providerMessageId: `local-${randomUUID()}`,
    metadata: e.metadata ?? {},
  }));
  await db.insert(outboxMessages).values(rows);
  return rows.map((r) => r.providerMessageId);
}

/** The outbox row written for `idempotencyKey` (the local providers' findSent). */
export async function findOutboxByKey(db: Db, key: string): Promise<string | null> {
  const [row] = await db
    .select({ id: outboxMessages.providerMessageId })
    .from(outboxMessages)
    .where(sql`${outboxMessages.metadata}->>'idempotencyKey' = ${key}`)
    .limit(1);
  return row?.id ?? null;
}
