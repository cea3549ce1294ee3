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
import { apiKeys } from "./api";
import { users } from "./auth";
import { workspaces } from "./workspaces";

/** Lifecycle stages and lead statuses (spec section 4). */
export const LIFECYCLE_STAGES = ["subscriber", "lead", "prospect", "customer", "advocate"] as const;
export const LEAD_STATUSES = ["new", "contacted", "qualified", "unqualified"] as const;
export type LifecycleStage = (typeof LIFECYCLE_STAGES)[number];
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/**
 * A person or business the workspace reaches (spec section 3: Contact). Scoped by workspace_id.
 * The table has no parallel workers (`parallel_workers = 0`, migration 0032, which drizzle's table
 * definition does not express): its reads are many small requests, see crm.queries
 * selectBroadSearchPage.
 */
export const contacts = pgTable(
  "contacts",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
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
    /** custom fields (crm.schemas customFieldsSchema): name -> text, number or true/false */
    customFields: jsonb().$type<Record<string, string | number | boolean>>().notNull().default({}),
    /**
     * The import run that created the contact (a contact_imports id for a CSV file, a fresh id per
     * JSON import call), null otherwise. The contact's timeline shows it as its "imported" activity
     * (no activities row per imported contact: that doubled the cost of an import).
     */
    importId: uuid(),
    /**
     * who added the contact by hand (Add Contact, POST /api/contacts, tRPC crm.create; migration 0064);
     * null for older contacts, the public API, imports (contact_imports.created_by says who imported),
     * campaign lists, and once that account is deleted
     */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    /**
     * the API key the contact was added through (POST /api/v1/contacts, the v1 bulk upsert; migration
     * 0066), shown as "Added through API key 'Zapier'" (a revoked key's row stays, so does its name);
     * null for contacts added otherwise and for older ones
     */
    createdByApiKeyId: uuid().references(() => apiKeys.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * Whether the contact is in the trigram search index (`contacts_ws_search_keys_idx` is partial on
     * it). A CSV import creates its contacts with false, which spares the import the trigram index
     * (about 60% of its database time), and its follow-up job (`crm.index-import-search`) sets it to
     * true in chunks. Search finds the contacts meanwhile through `contacts_search_pending_idx`.
     */
    searchIndexed: boolean().notNull().default(true),
    /**
     * Name, email, company and phones in one string, accents folded and lower-cased (migration 0053,
     * `contact_search_fold`; crm.queries normaliseSearch folds a term the same way), maintained by
     * Postgres; a GIN index over its pg_trgm trigrams keyed by the workspace (`contact_search_keys`,
     * migration 0044) serves substring search (spec: Contacts list search).
     */
    searchText: text().generatedAlwaysAs(
      sql`lower(contact_search_fold(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(company, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(phone_raw, '') || ' ' || coalesce(mobile, '')))`,
    ),
  },
  (t) => [
    uniqueIndex("contacts_user_email_uq").on(t.workspaceId, sql`lower(${t.email})`),
    // list pages are ordered newest first by (created_at, id) (crm.queries contactOrder); one index per
    // list shape, so page 1 is a backward scan that stops after one page (migration 0023). The first
    // also INCLUDEs search_text, lifecycle_stage and lead_status (migration 0067; drizzle cannot
    // declare INCLUDE), so a broad search's walk reads only the index (crm.queries selectBroadSearchPage)
    index("contacts_ws_created_id_idx").on(t.workspaceId, t.createdAt, t.id),
    index("contacts_ws_stage_created_id_idx").on(t.workspaceId, t.lifecycleStage, t.createdAt, t.id),
    index("contacts_ws_status_created_id_idx").on(t.workspaceId, t.leadStatus, t.createdAt, t.id),
    index("contacts_user_phone_idx").on(t.workspaceId, t.phone),
    // an inbound SMS's number across workspaces (crm.queries selectContactsReachedAt; migration 0042)
    index("contacts_phone_idx").on(t.phone).where(sql`phone is not null`),
    index("contacts_mobile_idx").on(t.mobile).where(sql`mobile is not null`),
    index("contacts_user_geo_idx").on(t.workspaceId, t.latitude, t.longitude),
    // the search text's trigrams keyed by the workspace, so a search reads only the workspace's own
    // contacts with its trigrams (migration 0044; crm.queries searchArms)
    index("contacts_ws_search_keys_idx")
      .using("gin", sql`(contact_search_keys(${t.workspaceId}, ${t.searchText})) collate "C"`)
      .where(sql`search_indexed`),
    index("contacts_search_pending_idx").on(t.workspaceId).where(sql`not search_indexed`),
    // the foreign key's ON DELETE SET NULL of a deleted API key row (migration 0066)
    index("contacts_created_by_api_key_idx")
      .on(t.createdByApiKeyId)
      .where(sql`${t.createdByApiKeyId} is not null`),
  ],
);

/**
 * Exact contact counts per (user, lifecycle stage, lead status), kept by statement-level triggers on
 * `contacts` (migration `crm_counts_triggers`), so the list's total is O(1) even at millions of rows.
 * No foreign key: the triggers may still decrement while a user is being deleted.
 */
export const contactCounts = pgTable(
  "contact_counts",
  {
    workspaceId: uuid().notNull(),
    lifecycleStage: text().notNull(),
    leadStatus: text().notNull(),
    n: bigint({ mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.lifecycleStage, t.leadStatus] })],
);

/**
 * Per-user search dictionary: the distinct words (3-40 characters, at least one letter) of contacts'
 * names and companies (not emails: mostly unique words, costly to index on import), kept by
 * statement-level triggers on `contacts` (migrations
 * `crm_search_words*`). A typo in a search term is corrected against it ("did you mean", pg_trgm
 * similarity on a small table) before the substring search runs. Words are never removed: a stale
 * word only costs a correction that finds nothing.
 */
export const contactWords = pgTable(
  "contact_words",
  {
    workspaceId: uuid().notNull(),
    word: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.word] }),
    // workspace first (btree_gin, migration 0030): a typo lookup reads only this workspace's words
    index("contact_words_ws_trgm_idx").using("gin", t.workspaceId, t.word.op("gin_trgm_ops")),
  ],
);

/** A CSV import run (streaming path): file on disk, processed by the `crm.import-contacts` job. */
export const contactImports = pgTable(
  "contact_imports",
  {
    id: uuid().primaryKey().defaultRandom(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** who did it (the acting user); null once that user is deleted */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    fileName: text().notNull(),
    /** bytes */
    fileSize: bigint({ mode: "number" }).notNull(),
    /** queued | processing | completed | failed */
    status: text().notNull().default("queued"),
    /** contact field -> CSV column index (0-based) */
    mapping: jsonb().$type<Record<string, number>>().notNull().default({}),
    /** "update" (overwrite existing contacts with the same email) or "skip" */
    onDuplicate: text().notNull().default("skip"),
    /** bytes read so far, for the progress bar */
    bytesProcessed: bigint({ mode: "number" }).notNull().default(0),
    rowsProcessed: integer().notNull().default(0),
    created: integer().notNull().default(0),
    updated: integer().notNull().default(0),
    skipped: integer().notNull().default(0),
    /** rejected rows: [{line, reason, raw}] (first 10,000), and kept rows (kind opted_out: crm.import keepOptOutsOff) */
    errors: jsonb()
      .$type<
        {
          line: number;
          reason: string;
          raw?: string;
          kept?: boolean;
          field?: string;
          kind?: "encoding" | "opted_out";
        }[]
      >()
      .notNull()
      .default([]),
    errorCount: integer().notNull().default(0),
    /**
     * The importer's counts of rows imported with an unusable phone, with a field left empty, and with
     * opt-ins kept off (ImportResult phoneInvalid, fieldsCleared, optOutsKept), whatever the number of
     * stored row reports (at most MAX_STORED_ERRORS); null for imports before migration 0062, whose
     * figures are counted from `errors`.
     */
    phoneInvalid: integer(),
    fieldsCleared: integer(),
    optOutsKept: integer(),
    failureReason: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [index("contact_imports_user_idx").on(t.workspaceId, t.createdAt)],
);

export const tags = pgTable(
  "tags",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** CSS colour, e.g. #6366f1 */
    color: text().notNull().default("#4f46e5"),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("tags_user_name_uq").on(t.workspaceId, sql`lower(${t.name})`)],
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
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /**
     * who wrote it (the acting user); null once that user is deleted, and for a note added through
     * the public API (createdByApiKeyId says which key)
     */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    /** the API key the note was added through (POST /api/v1/contacts/{id}/notes; migration 0066) */
    createdByApiKeyId: uuid().references(() => apiKeys.id, { onDelete: "set null" }),
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    noteText: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("notes_contact_idx").on(t.contactId, t.createdAt),
    index("notes_created_by_api_key_idx")
      .on(t.createdByApiKeyId)
      .where(sql`${t.createdByApiKeyId} is not null`),
  ],
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
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /**
     * The contact whose timeline shows the row. Null only for the message history of a deleted
     * contact (crm.queries deleteContactRow / deleteContactsWhere: their sent and engaged rows stay,
     * tied to no contact and with metadata emptied, so the dashboard's past figures do not change;
     * their other rows cascade). A timeline reads `contact_id = its id`, so it never shows them.
     */
    contactId: bigint({ mode: "number" }).references(() => contacts.id, { onDelete: "cascade" }),
    /**
     * The deleted contact's id, set with contact_id null above: only so the dashboard's engaged
     * figure still counts that person once (contact ids are never reused). No foreign key.
     */
    formerContactId: bigint({ mode: "number" }),
    activityType: text().notNull(),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    /**
     * the person who did it by hand (migration 0066): an email, SMS or call sent from the contact's
     * page, a note written, edited or deleted; the timeline says "Sent by Cara Member". Null for what
     * no person did there (campaign sends, replies, opens, opt-outs), for rows from before 0066, and
     * once that account is deleted.
     */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("activities_contact_idx").on(t.contactId, t.createdAt),
    index("activities_user_type_created_idx").on(t.workspaceId, t.activityType, t.createdAt),
    index("activities_created_by_idx").on(t.createdBy).where(sql`${t.createdBy} is not null`),
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
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    filter: jsonb().$type<SegmentFilter>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("segments_user_name_uq").on(t.workspaceId, sql`lower(${t.name})`)],
);

export type Contact = typeof contacts.$inferSelect;
export type NewContact = typeof contacts.$inferInsert;
export type Tag = typeof tags.$inferSelect;
export type Activity = typeof activities.$inferSelect;
export type ContactImport = typeof contactImports.$inferSelect;
