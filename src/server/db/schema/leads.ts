import { sql } from "drizzle-orm";
import {
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
import { workspaces } from "./workspaces";

/**
 * A saved business search (spec section 3 "Saved search"): the inputs to run again, the result count
 * of its last run and the place ids it found then (to mark results that are new on a re-run).
 */
export const leadSavedSearches = pgTable(
  "lead_saved_searches",
  {
    id: uuid().primaryKey().defaultRandom(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    searchName: text().notNull(),
    location: text().notNull(),
    businessType: text().notNull(),
    /** total radius, miles */
    radius: doublePrecision().notNull(),
    /** circle size, miles */
    circleSize: doublePrecision().notNull(),
    filters: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    preset: text(),
    resultCount: integer().notNull().default(0),
    /** provider place ids found by the last run */
    lastPlaceIds: text().array().notNull().default(sql`'{}'::text[]`),
    lastRunAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("lead_saved_searches_ws_idx").on(t.workspaceId, t.createdAt),
    uniqueIndex("lead_saved_searches_ws_name_uq").on(t.workspaceId, sql`lower(${t.searchName})`),
  ],
);

/** One run of the business search; counts are the real ones (spec section 3 "Search response"). */
export const leadSearches = pgTable(
  "lead_searches",
  {
    id: uuid().primaryKey().defaultRandom(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    savedSearchId: uuid().references(() => leadSavedSearches.id, { onDelete: "set null" }),
    location: text().notNull(),
    businessType: text().notNull(),
    radius: doublePrecision().notNull(),
    circleSize: doublePrecision().notNull(),
    filters: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    preset: text(),
    provider: text().notNull(),
    latitude: doublePrecision(),
    longitude: doublePrecision(),
    /** running | completed | failed */
    status: text().notNull().default("running"),
    circlesDone: integer().notNull().default(0),
    circlesTotal: integer().notNull().default(0),
    apiCalls: integer().notNull().default(0),
    totalResults: integer().notNull().default(0),
    capped: boolean().notNull().default(false),
    error: text(),
    /** website enrichment asked for (emails, social profiles, contact form) */
    enrich: boolean().notNull().default(false),
    /** none | queued | running | completed | failed */
    enrichStatus: text().notNull().default("none"),
    enrichDone: integer().notNull().default(0),
    enrichTotal: integer().notNull().default(0),
    /** filter keys applied after enrichment (they need what enrichment finds) */
    deferredFilters: text().array().notNull().default(sql`'{}'::text[]`),
    /** when Google content other than place ids was removed from the results (Google's terms) */
    contentPurgedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index("lead_searches_ws_created_idx").on(t.workspaceId, t.createdAt),
    index("lead_searches_google_unpurged_idx")
      .on(t.finishedAt)
      .where(sql`${t.provider} = 'google' and ${t.contentPurgedAt} is null`),
  ],
);

/** The businesses a search returned (after filters), in result order. */
export const leadResults = pgTable(
  "lead_results",
  {
    searchId: uuid()
      .notNull()
      .references(() => leadSearches.id, { onDelete: "cascade" }),
    placeId: text().notNull(),
    position: integer().notNull(),
    /** the business as the search response shows it (spec section 3 "Business search result") */
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    /** not found by the saved search's previous run */
    isNew: boolean().notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.searchId, t.placeId] })],
);

export type LeadSearch = typeof leadSearches.$inferSelect;
export type LeadSavedSearch = typeof leadSavedSearches.$inferSelect;
