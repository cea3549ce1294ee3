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

/**
 * Numbers that pressed the opt-out key during a landing-page demo call (compliance call-opt-out.ts
 * demoCallOptOutOffer): the demo neither calls nor texts them again. Owned by the demo feature.
 */
export const demoOptOuts = pgTable("demo_opt_outs", {
  /** E.164 */
  phone: text().primaryKey(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * TwiML the Twilio voice provider hands Twilio by URL (`Url` on Calls create) because it is longer
 * than the 4,000 characters the inline `Twiml` parameter takes. `id` is a random 160-bit token;
 * served at `/api/webhooks/voice/twiml/{id}` to requests carrying Twilio's signature. Rows older than
 * 7 days are removed when new ones are written.
 */
export const voiceTwimlDocuments = pgTable(
  "voice_twiml_documents",
  {
    id: text().primaryKey(),
    twiml: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("voice_twiml_documents_created_idx").on(t.createdAt)],
);
