import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "./auth";

/** Lifecycle stages and lead statuses (spec section 4). */
export const LIFECYCLE_STAGES = ["subscriber", "lead", "prospect", "customer", "advocate"] as const;
export const LEAD_STATUSES = ["new", "contacted", "qualified", "unqualified"] as const;
export type LifecycleStage = (typeof LIFECYCLE_STAGES)[number];
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** A person or business the user reaches (spec section 3: Contact). Scoped by user_id. */
export const contacts = pgTable(
  "contacts",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    firstName: text(),
    lastName: text(),
    email: text(),
    /** E.164 when parseable (libphonenumber-js, default country US), else null */
    phone: text(),
    /** the phone as the user typed or imported it, for display */
    phoneRaw: text(),
    mobile: text(),
    mobileRaw: text(),
    company: text(),
    jobTitle: text(),
    website: text(),
    streetAddress: text(),
    city: text(),
    state: text(),
    postalCode: text(),
    country: text(),
    lifecycleStage: text().$type<LifecycleStage>().notNull().default("lead"),
    leadStatus: text().$type<LeadStatus>().notNull().default("new"),
    leadSource: text(),
    leadScore: integer().notNull().default(0),
    engagementScore: integer().notNull().default(0),
    emailOptIn: boolean().notNull().default(true),
    smsOptIn: boolean().notNull().default(false),
    callOptIn: boolean().notNull().default(false),
    preferredLanguage: text(),
    /** IANA time zone, e.g. America/Detroit */
    timezone: text(),
    linkedinUrl: text(),
    twitterHandle: text(),
    facebookUrl: text(),
    instagramHandle: text(),
    latitude: doublePrecision(),
    longitude: doublePrecision(),
    geocodedAt: timestamp({ withTimezone: true }),
    customFields: jsonb().$type<Record<string, string>>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("contacts_user_email_uq").on(t.userId, sql`lower(${t.email})`),
    index("contacts_user_created_idx").on(t.userId, t.createdAt),
    index("contacts_user_stage_idx").on(t.userId, t.lifecycleStage),
    index("contacts_user_status_idx").on(t.userId, t.leadStatus),
    index("contacts_user_geo_idx").on(t.userId, t.latitude, t.longitude),
  ],
);

export const tags = pgTable(
  "tags",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** CSS colour, e.g. #6366f1 */
    color: text().notNull().default("#6366f1"),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("tags_user_name_uq").on(t.userId, sql`lower(${t.name})`)],
);

export const contactTags = pgTable(
  "contact_tags",
  {
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    tagId: bigint({ mode: "number" })
      .notNull()
      .references(() => tags.id, { onDelete: "cascade" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.contactId, t.tagId] }), index("contact_tags_tag_idx").on(t.tagId)],
);

export const notes = pgTable(
  "notes",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    noteText: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("notes_contact_idx").on(t.contactId, t.createdAt)],
);

/**
 * Typed timeline of a contact: email_sent, email_opened, email_clicked, email_bounced, sms_sent,
 * sms_received, call_made, voicemail_sent, note_added, imported, opted_out, opted_in, video_viewed,
 * video_progress, ... with metadata (campaign id, message id, url, percent, reason).
 */
export const activities = pgTable(
  "activities",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    activityType: text().notNull(),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("activities_contact_idx").on(t.contactId, t.createdAt),
    index("activities_user_type_created_idx").on(t.userId, t.activityType, t.createdAt),
  ],
);

/** Filter a segment saves (the same filter the contacts list uses). */
export interface SegmentFilter {
  search?: string;
  lifecycle_stage?: LifecycleStage;
  lead_status?: LeadStatus;
  tag_id?: number;
}

/** A saved segment ("list"): a name plus a filter; campaigns can target it. */
export const segments = pgTable(
  "segments",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    filter: jsonb().$type<SegmentFilter>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("segments_user_name_uq").on(t.userId, sql`lower(${t.name})`)],
);

export type Contact = typeof contacts.$inferSelect;
export type NewContact = typeof contacts.$inferInsert;
export type Tag = typeof tags.$inferSelect;
export type Activity = typeof activities.$inferSelect;
