import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

export interface UserPreferences {
  emailSignature: string;
  emailNotifications: boolean;
  campaignNotifications: boolean;
  weeklyReports: boolean;
  /** app navigation: the sectioned sidebar or the spec's top-bar variant (issue 14); missing = sidebar */
  navLayout?: "sidebar" | "topbar";
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
    /** when the account's email was confirmed through its verification link (null: not yet) */
    emailVerifiedAt: timestamp({ withTimezone: true }),
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

/**
 * Single-use account links: password reset (1 hour) and email verification. `id` is the hex SHA-256 of
 * the random token sent by email (only the hash is stored, like sessions); `email` is the address the
 * link was sent to (a verification link proves that address only).
 */
export const authTokens = pgTable(
  "auth_tokens",
  {
    id: text().primaryKey(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** password_reset | email_verification | email_recovery */
    purpose: text().notNull(),
    email: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("auth_tokens_user_purpose_idx").on(t.userId, t.purpose),
    // an address waiting for its owner's recovery link (auth emailHeldForRecovery; migration 0043)
    index("auth_tokens_recovery_email_idx")
      .on(sql`lower(${t.email})`)
      .where(sql`purpose = 'email_recovery' and used_at is null`),
  ],
);

export type User = typeof users.$inferSelect;
export type AuthToken = typeof authTokens.$inferSelect;
export type Session = typeof sessions.$inferSelect;

/**
 * Rate-limit windows shared by every app machine (rate-limiter-flexible's RateLimiterDrizzle, used
 * when RATE_LIMIT_STORE is postgres: lib/rate-limit.ts). One row per limiter and key; rows whose
 * window ended more than an hour ago are deleted every 5 minutes.
 */
export const rateLimits = pgTable(
  "rate_limits",
  {
    /** `<limiter>:<key>`: the limiter's prefix and its key (client IP, email, API key id...) */
    key: text().primaryKey(),
    /** points consumed in the current window */
    points: integer().notNull(),
    /** when the current window ends (null: never) */
    expire: timestamp({ withTimezone: true }),
  },
  (t) => [index("rate_limits_expire_idx").on(t.expire)],
);
