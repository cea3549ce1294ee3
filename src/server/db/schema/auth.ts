import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

export interface UserPreferences {
  emailSignature: string;
  emailNotifications: boolean;
  campaignNotifications: boolean;
  weeklyReports: boolean;
}

/** Defaults from the spec, section 3 (Preferences). */
export const DEFAULT_PREFERENCES: UserPreferences = {
  emailSignature: "",
  emailNotifications: true,
  campaignNotifications: true,
  weeklyReports: false,
};

export const users = pgTable(
  "users",
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull(),
    email: text().notNull(),
    passwordHash: text().notNull(),
    businessName: text(),
    phone: text(),
    theme: text().notNull().default("monochrome-elite"),
    preferences: jsonb().$type<UserPreferences>().notNull().default(DEFAULT_PREFERENCES),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("users_email_lower_uq").on(sql`lower(${t.email})`)],
);

export const sessions = pgTable(
  "sessions",
  {
    /** hex SHA-256 of the random token held in the cookie (the Lucia recipe) */
    id: text().primaryKey(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** the active workspace (FK to workspaces in SQL, set null on delete); null = the user's first membership */
    workspaceId: uuid(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export type User = typeof users.$inferSelect;
export type Session = typeof sessions.$inferSelect;
