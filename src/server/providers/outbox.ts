import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { outboxMessages } from "../db/schema";

export interface OutboxEntry {
  workspaceId?: string | null;
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
    workspaceId: e.workspaceId ?? null,
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
  if (rows.length < 20) {
    await db.insert(outboxMessages).values(rows);
  } else {
    // bulk (campaign batches): one jsonb parameter instead of 11 per row, about twice as fast
    await db.execute(sql`
      insert into outbox_messages (workspace_id, channel, "to", "from", subject, body, html, status, provider_message_id, metadata)
      select v."workspaceId", v.channel, v."to", v."from", v.subject, v.body, v.html, v.status, v."providerMessageId", v.metadata
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v("workspaceId" uuid, channel text, "to" text, "from" text,
        subject text, body text, html text, status text, "providerMessageId" text, metadata jsonb)`);
  }
  return rows.map((r) => r.providerMessageId);
}

/**
 * The outbox row written for `idempotencyKey` to `to` (the local providers' findSent); `to` lets the
 * lookup use the outbox "to" index instead of scanning every message's metadata.
 */
export async function findOutboxByKey(db: Db, key: string, to: string): Promise<string | null> {
  const [row] = await db
    .select({ id: outboxMessages.providerMessageId })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), sql`${outboxMessages.metadata}->>'idempotencyKey' = ${key}`))
    .limit(1);
  return row?.id ?? null;
}

/**
 * The metadata of the outbox row with provider message id `id` sent to `to` (the local providers'
 * own record of a message, e.g. how a local call ended), or null when there is none; `to` lets the
 * lookup use the outbox "to" index.
 */
export async function findOutboxMetadata(
  db: Db,
  id: string,
  to: string,
): Promise<Record<string, unknown> | null> {
  const [row] = await db
    .select({ metadata: outboxMessages.metadata })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.providerMessageId, id)))
    .limit(1);
  return (row?.metadata as Record<string, unknown> | undefined) ?? null;
}
