import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * Every message the `local` providers "send": what the recipient would have received.
 * Shown at /dev/outbox outside production.
 */
export const outboxMessages = pgTable(
  "outbox_messages",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid().references(() => workspaces.id, { onDelete: "set null" }),
    /** email | sms | voice | voicemail */
    channel: text().notNull(),
    to: text().notNull(),
    from: text(),
    subject: text(),
    body: text().notNull().default(""),
    html: text(),
    /** queued | sent | delivered | opened | clicked | failed */
    status: text().notNull().default("sent"),
    providerMessageId: text().notNull(),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("outbox_created_idx").on(t.createdAt), index("outbox_to_idx").on(t.to)],
);

export const demoRequests = pgTable("demo_requests", {
  id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  name: text().notNull(),
  phone: text(),
  email: text(),
  ip: text(),
  /** queued | sent | failed */
  status: text().notNull().default("queued"),
  error: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
