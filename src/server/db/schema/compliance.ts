import { sql } from "drizzle-orm";
import { bigint, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * The suppression list: addresses and numbers a user must never message again on a channel
 * (opt-outs: STOP replies, unsubscribe links, spam complaints, hard bounces, manual).
 * `value` is a lower-cased email for email, E.164 for sms/voice/voicemail.
 */
export const suppressions = pgTable(
  "suppressions",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** email | sms | voice | voicemail | all */
    channel: text().notNull(),
    value: text().notNull(),
    /** unsubscribed | stop_reply | keypress_opt_out | spam_complaint | hard_bounce | manual */
    reason: text().notNull(),
    /** where it came from: postmark webhook, twilio inbound, call keypress, unsubscribe page, user */
    source: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("suppressions_user_channel_value_uq").on(t.workspaceId, t.channel, sql`lower(${t.value})`),
    index("suppressions_value_idx").on(sql`lower(${t.value})`),
  ],
);
