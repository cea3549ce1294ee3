import { and, count, eq, getTableColumns, inArray, lt, or, Placeholder, type SQL, sql } from "drizzle-orm";
import type { Db, DbOrTx, Sql } from "../../db/client";
import { ADVISORY_LOCK, advisoryXactLock } from "../../db/locks";
import { prepared } from "../../db/prepared";
import {
  type Contact,
  contactCounts,
  contacts,
  contactWords,
  type NewContact,
  type SegmentFilter,
} from "../../db/schema";
import { E164_PATTERN } from "../../lib/phone";
import {
  CONTACT_JSON_SOURCES,
  contactJsonWriter,
  dataRowColumns,
  JsonBytes,
  toContactJson,
} from "./crm.contact-json";
import { detachMessageHistory } from "./crm.notes.queries";
import type { ContactReach, ListFilter } from "./crm.schemas";

// The contacts table's SQL: the list filter (WHERE / ORDER BY builders) and every statement on
// contact rows. Functions take the database (or a transaction) first; the rules that call them live
// in crm.contacts.ts, crm.search.ts, crm.map.ts and crm.export.ts.

/** Minimum characters for which the search uses pg_trgm (trigrams need 3). */
export const TRGM_MIN = 3;

/** Escapes LIKE wildcards so user text matches literally. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Normalises a search term as `contacts.search_text` is stored (migration 0053): trimmed, accents
 * folded (canonical decomposition, the combining diacritical marks U+0300-U+036F removed, recomposed:
 * "Núñez" -> "Nunez"; ø, æ, ß stay), lower-cased, at most 100 characters. The same fold as Postgres's
 * `contact_search_fold`, so "jose" and "josé" both find "José" and "Jose".
 */
export function normaliseSearch(search: string | undefined | null): string {
  return foldAccents((search ?? "").trim())
    .toLowerCase()
    .slice(0, 100);
}

/** `text` without combining diacritical marks (NFD, U+0300-U+036F removed, NFC); ASCII as it is. */
function foldAccents(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, as contact_search_fold tests it
  if (!/[^\x01-\x7f]/.test(text)) return text;
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFC");
}

/**
 * Whether the search index can serve `term` (normalised): it holds three ASCII letters or digits in a
 * row, a trigram pg_trgm counts as word characters in every locale, so the term's index keys
 * (contact_search_query_keys) are never empty (an empty key set would match every indexed contact).
 * Other terms (one or two characters, or none such in a row, e.g. 'jo' or 'Øy') are tested on the
 * workspace's rows instead.
 */
export function searchKeyable(term: string): boolean {
  return /[a-z0-9]{3}/.test(term);
}

/**
 * Whether `term` (normalised) has search index keys (contact_search_query_keys is not empty), asked
 * of Postgres: which characters pg_trgm counts as word characters depends on the database's locale
 * (letters beyond ASCII are under a UTF-8 locale, not under C), so 'иван' or '王小明' may or may not be
 * keyable. One select that reads no table.
 */
export async function termHasSearchKeys(db: DbOrTx, term: string): Promise<boolean> {
  const rows = await db.execute<{ k: boolean }>(
    sql`select cardinality(contact_search_query_keys('00000000-0000-0000-0000-000000000000'::uuid, ${term}::text)) > 0 as k`,
  );
  return rows[0]?.k === true;
}

/**
 * The search condition, `search_text LIKE pattern` (`term` is the normalised term, `pattern` its
 * escaped `%term%`; values or placeholders, the prepared page statements'). Forms:
 * - "index" (a keyable term, see searchKeyable): two arms Postgres answers with a BitmapOr. The
 *   workspace-keyed trigram index (`contact_search_keys`, migration 0044) finds the indexed contacts
 *   holding the term's trigrams (`contact_search_query_keys`: the trigrams every text containing the
 *   term holds), the LIKE drops the rest; and a CSV import's contacts its follow-up job has not
 *   indexed yet (`search_indexed` false) come from the partial btree on workspace_id.
 * - "walk": the term tested on each row read (walkMatch), for a term the index cannot serve.
 * - "estimate": the LIKE on search_text alone, which the planner estimates from search_text's own
 *   statistics (the index expression has none), for the search strategy's estimate of the matches.
 */
function searchArms(
  workspaceId: unknown,
  pattern: unknown,
  term: unknown,
  form: "index" | "walk" | "estimate",
): SQL {
  if (form === "walk") return walkMatch(term);
  const pending = sql`(not ${contacts.searchIndexed} and ${contacts.workspaceId} = ${workspaceId} and ${contacts.searchText} like ${pattern})`;
  if (form === "estimate")
    return sql`((${contacts.searchIndexed} and ${contacts.searchText} like ${pattern}) or ${pending})`;
  const keys = sql`(contact_search_keys(${contacts.workspaceId}, ${contacts.searchText}) collate "C") @> (contact_search_query_keys(${workspaceId}::uuid, ${term}::text) collate "C")`;
  // the arms as the bitmap scan's condition and the LIKE apart: the heap scan then tests only the LIKE
  // on each candidate (with the LIKE inside each arm, Postgres kept the whole OR as the row filter and
  // computed both key sets again for every candidate: bench:crm 'lindqvist42', 223 of 1,000,000
  // contacts, service p50 14.2 ms, 3.7 ms with the LIKE apart)
  return sql`(((${contacts.searchIndexed} and ${keys}) or (not ${contacts.searchIndexed} and ${contacts.workspaceId} = ${workspaceId})) and ${contacts.searchText} like ${pattern})`;
}

/**
 * The search condition of a newest-first walk (a broad term's page): `strpos(search_text, term) > 0`,
 * the substring test `search_text LIKE '%term%'` is (`term` normalised, unescaped), tested on each row
 * the walk reads, from the list index's copy of the search text (migration 0067); it covers contacts
 * awaiting their import's search indexing too. Not written as the LIKE because of the plan: the
 * walk's statements are generic plans (see opaque), for which Postgres estimates a LIKE of an unknown
 * pattern to match 0.5% of the rows, and with so few matches expected, reading every match and
 * sorting them (a seq scan and top-N sort) looked about as cheap as the walk. Once the list index was
 * a covering one (larger, and larger still when bloated by an import's churn), the seq scan won:
 * 'garcia' at 100,000 contacts took 79 ms instead of 1.7 ms (bench:crm 28 req/s). The inequality's
 * default estimate (a third of the rows) makes the walk's first page cost ~1/100 of the alternative.
 */
function walkMatch(term: unknown): SQL {
  return sql`strpos(${contacts.searchText}, ${term}) > 0`;
}

/**
 * A page statement's optional lifecycle stage and lead status conditions, on the placeholders `stage`
 * and `status` as opaque parameters (see opaque).
 */
function shapeConditions(stage: boolean, status: boolean): (SQL | undefined)[] {
  return [
    stage ? sql`${contacts.lifecycleStage} = ${opaque("stage", "text")}` : undefined,
    status ? sql`${contacts.leadStatus} = ${opaque("status", "text")}` : undefined,
  ];
}

/**
 * The placeholder `name` as a scalar sub-select, `(select $n::type)`: an InitPlan, evaluated once per
 * run, whose value the planner does not see even when it plans for the run's values. A prepared
 * statement built of these costs the same in a custom plan as in the generic one, so after its first
 * five runs Postgres keeps the generic plan (plan_cache_mode auto keeps planning each run while a
 * custom plan is estimated cheaper). Why: selectSearchPage's custom plans knew the workspace's size
 * and the term's keys, were estimated 2.6x cheaper than the generic plan in a database holding other
 * workspaces' contacts, and so were made again at every run: ~0.75 ms of planning beside ~0.5 ms of
 * execution (bench:crm's 10,000-contact search beside 2,000,000 other contacts, per request: Postgres
 * CPU 1.25 -> 0.68 ms, server CPU 0.43 -> 0.33 ms, 0.14x -> 0.22x the auth/me baseline); the broad
 * search's custom plans were likewise estimated 2.4x cheaper there. Index conditions still use the
 * value (as a runtime key), and the plan is the one the generic plan always was.
 */
function opaque(name: string, type: "uuid" | "text" | "int" | "bigint" | "timestamptz"): SQL {
  return sql`(select ${sql.placeholder(name)}::${sql.raw(type)})`;
}

/**
 * WHERE of the contacts a campaign on `reach` can address, the campaigns' rule (campaigns.audience
 * addressFor, whose null is the review's "no valid phone number" / "no email address") in SQL: for
 * "phone", a phone or mobile in E.164 (compliance contactNumberFor: a text goes to the mobile, else
 * the phone; a call or voicemail to the phone, else the mobile; each only when lib/phone isE164, whose
 * E164_PATTERN this tests, so a number an import kept only as typed, `phone_raw`, is none); for
 * "email", an email on file (every write path stores it normalised and valid: crm isContactEmail).
 */
export function reachableWhere(reach: ContactReach): SQL {
  if (reach === "email") return sql`(${contacts.email} is not null and ${contacts.email} <> '')`;
  return sql`(${contacts.phone} ~ ${E164_PATTERN} or ${contacts.mobile} ~ ${E164_PATTERN})`;
}

/**
 * WHERE clause of a contact filter, always scoped to `workspaceId`. `search` matches a substring of the
 * name, email, company or phones (`search_text LIKE %term%`, lower-cased; searchArms: served by the
 * workspace-keyed trigram index, by the pending index on workspace_id for contacts a CSV import
 * created and its follow-up job has not indexed yet, or tested row by row for a term the index
 * cannot serve). Typos are handled before this, by correcting the term (crm.search.ts listContacts).
 * `use` "estimate" gives the same rows with the search as a LIKE on search_text alone, whose matches
 * the planner estimates from search_text's statistics (estimateContactsWhere); "run" (default) is
 * the form to read rows with. `keyed`: whether the term has index keys, when the caller asked
 * Postgres (termHasSearchKeys); by default searchKeyable's answer (ASCII), which walks the other terms.
 * `reachable` keeps only the contacts that channel reaches (reachableWhere).
 */
export function contactWhere(
  workspaceId: string,
  filter: ListFilter = {},
  use: "run" | "estimate" = "run",
  keyed?: boolean,
): SQL {
  const parts: SQL[] = [eq(contacts.workspaceId, workspaceId)];
  const term = normaliseSearch(filter.search);
  if (term) {
    const pattern = `%${escapeLike(term)}%`;
    const form = use === "estimate" ? "estimate" : (keyed ?? searchKeyable(term)) ? "index" : "walk";
    parts.push(searchArms(workspaceId, pattern, term, form));
  }
  if (filter.lifecycle_stage) parts.push(eq(contacts.lifecycleStage, filter.lifecycle_stage));
  if (filter.lead_status) parts.push(eq(contacts.leadStatus, filter.lead_status));
  if (filter.tag_id != null)
    parts.push(
      sql`exists (select 1 from contact_tags ct where ct.contact_id = ${contacts.id} and ct.tag_id = ${filter.tag_id})`,
    );
  if (filter.reachable) parts.push(reachableWhere(filter.reachable));
  return and(...parts) as SQL;
}

/**
 * ORDER BY: newest first, `created_at desc, id desc`. The pair is unique (the id breaks the ties of
 * an import's contacts, which share one created_at), so offset and keyset pages never skip or repeat
 * a row. Each list shape has an index (workspace_id[, lifecycle_stage | lead_status], created_at,
 * id), so page 1 is a backward index scan that stops after one page (migration 0023). Not `id desc`
 * alone: the primary key provides that order too, and the planner then walked it backwards filtering
 * by workspace, through every newer contact of other workspaces (3.95 s for page 1 with 300,000
 * newer contacts elsewhere). Keyset cursors carry created_at as Postgres text (microseconds; a JS
 * Date keeps milliseconds) plus the id: selectContactsBeforeCursor.
 */
export function contactOrder(_filter: SegmentFilter = {}): SQL[] {
  return [sql`${contacts.createdAt} desc`, sql`${contacts.id} desc`];
}

/**
 * `contactWhere(workspaceId, filter)` without the contacts in `excludeIds` (none: the filter alone).
 * The ids travel as one JSON parameter (up to 100,000 of them; a bind parameter per id would pass
 * Postgres' 65,535-parameter limit).
 */
export function contactWhereExcept(
  workspaceId: string,
  filter: SegmentFilter,
  excludeIds: number[] = [],
): SQL {
  const where = contactWhere(workspaceId, filter);
  if (!excludeIds.length) return where;
  return and(
    where,
    sql`not (${contacts.id} = any(array(select jsonb_array_elements_text(${JSON.stringify(excludeIds)}::jsonb)::bigint)))`,
  ) as SQL;
}

/**
 * WHERE for the contacts of `workspaceId` among `ids` (an empty list matches nothing). Up to
 * IDS_AS_PARAMETERS ids are one bind parameter each; a longer list (a bulk operation takes up to
 * 100,000) travels as one JSON parameter, as contactWhereExcept's: a parameter per id passed
 * Postgres' 65,535-parameter limit and the statement failed.
 */
export function contactIdsWhere(workspaceId: string, ids: number[]): SQL {
  if (ids.length > IDS_AS_PARAMETERS)
    return and(
      eq(contacts.workspaceId, workspaceId),
      sql`${contacts.id} = any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::bigint))`,
    ) as SQL;
  return and(eq(contacts.workspaceId, workspaceId), inArray(contacts.id, ids.length ? ids : [0])) as SQL;
}

/** Longest id list contactIdsWhere binds as one parameter per id. */
const IDS_AS_PARAMETERS = 1000;

// ---------------------------------------------------------------------------------------------
// Counts
// ---------------------------------------------------------------------------------------------

/**
 * WHERE of `contact_counts` for a workspace, optionally one stage and/or status, with the placeholders
 * `workspaceId`, `stage`, `status` as opaque parameters (see opaque; the prepared count and page
 * statements share it).
 */
function contactCountsWhere(stage: boolean, status: boolean): SQL | undefined {
  return and(
    eq(contactCounts.workspaceId, opaque("workspaceId", "uuid")),
    stage ? sql`${contactCounts.lifecycleStage} = ${opaque("stage", "text")}` : undefined,
    status ? sql`${contactCounts.leadStatus} = ${opaque("status", "text")}` : undefined,
  );
}
/**
 * The contacts `contact_counts` holds for its rows (0 when none), as int8: the sum of a bigint is
 * numeric, and a page statement writes its total on every row (numeric output: ~0.01 ms of a
 * 50-contact page in Postgres, pgbench).
 */
const contactCountsSum = () => sql<string>`coalesce(sum(${contactCounts.n}), 0)::int8`;

/**
 * Contacts of `workspaceId` from the trigger-maintained `contact_counts` (exact, O(1)), optionally
 * only those in one lifecycle stage and/or lead status.
 */
export async function sumContactCounts(
  db: DbOrTx,
  workspaceId: string,
  by: { lifecycleStage?: string; leadStatus?: string } = {},
): Promise<number> {
  // the list's total, read with every page: a prepared statement per shape (db/prepared.ts)
  const stage = !!by.lifecycleStage;
  const status = !!by.leadStatus;
  const q = prepared(db, `crm.count:${stage}:${status}`, (d) =>
    d
      .select({ n: contactCountsSum() })
      .from(contactCounts)
      .where(contactCountsWhere(stage, status))
      .prepare(`crm_count_${+stage}${+status}`),
  );
  const [row] = await q.execute({ workspaceId, stage: by.lifecycleStage, status: by.leadStatus });
  return Number(row?.n ?? 0);
}

/**
 * The statement taking the contact-creation lock of the workspace `$1` (a transaction-scoped advisory
 * lock: held until the transaction commits or rolls back). Every transaction that creates contacts in
 * a workspace whose plan limits its contacts takes it before counting them (see lockContactCreation);
 * the streaming import runs it on its own connection (crm.import.ts).
 */
export const CONTACT_CREATION_LOCK_SQL = `select pg_advisory_xact_lock(${ADVISORY_LOCK.contactCreation}, hashtext($1::text))`;

/** The workspace `$1`'s contacts from contact_counts (sumContactCounts' figure), as one raw statement. */
export const CONTACT_COUNT_SQL =
  "select coalesce(sum(n), 0)::int8 as n from contact_counts where workspace_id = $1::uuid";

/**
 * Takes the workspace's contact-creation lock (CONTACT_CREATION_LOCK_SQL) in the transaction `tx`, then
 * returns the workspace's contacts (sumContactCounts) read after it was granted: a concurrent creator's
 * contacts are committed by then, and the next one waits until this transaction ends, so a count
 * checked here and the inserts that follow in `tx` cannot pass the plan's limit together with another
 * request's. Call it in a transaction (on the pool it would be released at once), before the
 * transaction's first contact write (the lock is always taken before any contact row lock).
 */
export async function lockContactCreation(tx: DbOrTx, workspaceId: string): Promise<number> {
  await advisoryXactLock(tx, ADVISORY_LOCK.contactCreation, workspaceId);
  // a statement of its own: its snapshot is taken after the lock was granted
  return sumContactCounts(tx, workspaceId);
}

/** Contacts of `workspaceId` created before `before` (a scan of the workspace's rows). */
export async function countContactsCreatedBefore(
  db: DbOrTx,
  workspaceId: string,
  before: Date,
): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), lt(contacts.createdAt, before)));
  return row?.n ?? 0;
}

/** Contacts matching `where` (a contactWhere clause). */
export async function countContactsWhere(db: DbOrTx, where: SQL): Promise<number> {
  const [row] = await db.select({ n: count() }).from(contacts).where(where);
  return row?.n ?? 0;
}

/** Contacts matching `where`, counted up to `max` (reads at most `max` rows). */
export async function countContactsWhereUpTo(db: DbOrTx, where: SQL, max: number): Promise<number> {
  const sub = db.select({ one: sql`1` }).from(contacts).where(where).limit(max).as("upto");
  const [row] = await db.select({ n: count() }).from(sub);
  return row?.n ?? 0;
}

/**
 * The planner's estimate of the contacts matching `where` (EXPLAIN, no execution; about a
 * millisecond of planning). The statement is sent unprepared with its values inlined, so the
 * estimate uses the actual search term's trigram statistics rather than a generic plan's default
 * selectivity.
 */
export async function estimateContactsWhere(db: Db, where: SQL): Promise<number> {
  const query = db.select({ one: sql`1` }).from(contacts).where(where).toSQL();
  const literal = (v: unknown) => (typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  const text = query.sql.replace(/\$(\d+)/g, (_, i) => literal(query.params[Number(i) - 1]));
  const [row] = await db.$client.unsafe(`explain (format json) ${text}`, [], { prepare: false });
  const raw = (row as Record<string, unknown> | undefined)?.["QUERY PLAN"];
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as
    | [{ Plan: { "Plan Rows": number } }]
    | undefined;
  return Number(plan?.[0]?.Plan?.["Plan Rows"] ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Reading contacts
// ---------------------------------------------------------------------------------------------

/** One contact of `workspaceId` by id, or undefined. */
export async function selectContact(
  db: DbOrTx,
  workspaceId: string,
  id: number,
): Promise<Contact | undefined> {
  const [row] = await db
    .select()
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id)));
  return row;
}

/** Contacts of `workspaceId` among `ids` (one statement: callers chunk long lists), in `order` when given. */
export async function selectContactsByIds(
  db: DbOrTx,
  workspaceId: string,
  ids: number[],
  order?: SQL[],
): Promise<Contact[]> {
  const q = db.select().from(contacts).where(contactIdsWhere(workspaceId, ids));
  return order ? q.orderBy(...order) : q;
}

/** Ids of the contacts of `workspaceId` among `ids` (one statement: callers chunk long lists). */
export async function selectContactIdsIn(db: DbOrTx, workspaceId: string, ids: number[]): Promise<number[]> {
  const rows = await db.select({ id: contacts.id }).from(contacts).where(contactIdsWhere(workspaceId, ids));
  return rows.map((r) => r.id);
}

/** Ids of the contacts matching `where`, in `order`, at most `limit` when given. */
export async function selectContactIdsWhere(
  db: DbOrTx,
  where: SQL,
  opts: { order?: SQL[]; limit?: number } = {},
): Promise<number[]> {
  let q = db.select({ id: contacts.id }).from(contacts).where(where).$dynamic();
  if (opts.order) q = q.orderBy(...opts.order);
  if (opts.limit !== undefined) q = q.limit(opts.limit);
  return (await q).map((r) => r.id);
}

/** A page of the contacts matching `where`: `limit` rows after skipping `offset`, in `order`. */
export async function selectContactsWhere(
  db: DbOrTx,
  where: SQL,
  order: SQL[],
  limit: number,
  offset = 0,
): Promise<Contact[]> {
  return db
    .select()
    .from(contacts)
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
}

/** The contacts table's columns in select order: `[property, column]`. */
const CONTACT_COLUMNS = Object.entries(getTableColumns(contacts));
/**
 * The columns the REST JSON is written from (crm.contact-json CONTACT_JSON_SOURCES), in select order,
 * but created_at: the json form of a page leaves out workspace_id, search_text and the other internal
 * columns, and reads created_at once, as `ts` (its text, after these columns).
 */
const JSON_COLUMNS = CONTACT_COLUMNS.filter(
  ([p]) => p !== "createdAt" && (CONTACT_JSON_SOURCES as readonly string[]).includes(p),
);
const JSON_ID = JSON_COLUMNS.findIndex(([p]) => p === "id");
/** The json form's `ts` column (created_at as Postgres text), and `total` after it where selected. */
const JSON_TS = JSON_COLUMNS.length;
const JSON_TOTAL = JSON_TS + 1;
/** Writes a contact's REST JSON from its DataRow message, columns in JSON_COLUMNS order, then `ts`. */
const writeContactJson = contactJsonWriter((prop) =>
  prop === "createdAt" ? JSON_TS : JSON_COLUMNS.findIndex(([p]) => p === prop),
);

/** A page row: the contact (decoded rows) or its REST JSON (`json` form), with its keyset position. */
export type ContactPageRow = { c: Contact; ts: string; total?: number };
/** `json`: UTF-8 bytes (written from the DataRow) or text (JSON.stringify, in a transaction). */
export type ContactJsonPageRow = { json: Buffer | string; id: number; ts: string; total?: number };
/** The two forms of a page statement's rows (see selectContactsPage). */
export type PageForm = "rows" | "json";
export type PageRowOf<F extends PageForm> = F extends "json" ? ContactJsonPageRow : ContactPageRow;

/**
 * A page statement's select list: the form's columns and `ts`, created_at as Postgres text (the
 * json form's only created_at: one timestamptz output per row fewer, ~0.025 of a 51-row page's
 * ~0.08 ms in Postgres by pgbench).
 */
function pageSelection(json: boolean) {
  const columns = json ? Object.fromEntries(JSON_COLUMNS) : getTableColumns(contacts);
  return {
    ...(columns as ReturnType<typeof getTableColumns<typeof contacts>>),
    ts: sql<string>`${contacts.createdAt}::text`,
  };
}

/**
 * The contacts list's hot path (issues 11 and 15): one page of a workspace's contacts, newest first
 * (`contactOrder`), optionally in one lifecycle stage and/or lead status, at `offset` or below the
 * keyset position `before` (created_at as Postgres text, id). Each of the eight shapes (in each
 * form) is one prepared statement (db/prepared.ts) served by its index (workspace_id[, stage |
 * status], created_at, id). `ts` is created_at as Postgres text (microseconds, for the next cursor).
 * - form "rows" returns `{c, ts}`: rows decoded column by column with each column's own drizzle
 *   decoder (`mapFromDriverValue`, what drizzle's result mapping calls) from a precomputed column
 *   list: drizzle's generic per-row field walk cost ~0.4 ms of a 50-row page's ~1.4 ms of server CPU
 *   (bench:api profile). A test (crm-page-rows.int.test.ts) holds them equal to drizzle's own select.
 * With `withTotal` (offset pages), each row also carries the list's `total` (sumContactCounts' figure,
 * in the same statement: one round trip fewer per screen page); an empty page carries none.
 * - form "json" returns `{json, id, ts}`: each contact as its REST JSON, written by crm.contact-json.ts
 *   `contactJsonWriter` straight from the bytes of its DataRow message (the driver hands the rows
 *   over undecoded: runRawMessages), with no JS string per column, no Contact object, no Date and no
 *   second serialisation; crm-page-rows.int.test.ts holds it equal to
 *   `JSON.stringify(toContactJson(row))`.
 * Searches and tag filters go through `contactWhere` instead.
 */
export async function selectContactsPage<F extends PageForm = "rows">(
  db: DbOrTx,
  workspaceId: string,
  by: { lifecycleStage?: string; leadStatus?: string },
  limit: number,
  at: { offset: number } | { before: { createdAt: string; id: number } },
  form: F = "rows" as F,
  withTotal = false,
): Promise<PageRowOf<F>[]> {
  const stage = by.lifecycleStage !== undefined;
  const status = by.leadStatus !== undefined;
  const keyset = "before" in at;
  const json = form === "json";
  const counted = withTotal && !keyset;
  // the common page sizes are written into the statement and a first page has no OFFSET, so its
  // generic plan is as cheap as a custom one and Postgres keeps it; see LITERAL_LIMITS
  const literal = LITERAL_LIMITS.has(limit) ? limit : null;
  const offset = "offset" in at && at.offset > 0;
  const values: Record<string, unknown> = {
    workspaceId,
    stage: by.lifecycleStage,
    status: by.leadStatus,
    limit,
    ...("before" in at ? { beforeTs: at.before.createdAt, beforeId: at.before.id } : { offset: at.offset }),
  };
  const shape = `${+stage}${+status}${+keyset}${+json}${+counted}${+offset}_${literal ?? "n"}`;
  const stmt = prepared(db, `crm.page:${shape}`, (d) => {
    // the values enter as opaque parameters (see opaque): a large workspace's custom plans (and any
    // OFFSET's) were estimated cheaper than the generic plan, so each run was planned anew (~0.13 ms
    // of planning beside ~0.09 ms of execution for a 1,000,000-contact workspace's page)
    // the list's total beside each row (an InitPlan, evaluated once): sumContactCounts' sum
    const total = sql<string>`(select ${contactCountsSum()} from ${contactCounts} where ${contactCountsWhere(stage, status)})`;
    const base = d
      .select({ ...pageSelection(json), ...(counted ? { total } : {}) })
      .from(contacts)
      .where(
        and(
          eq(contacts.workspaceId, opaque("workspaceId", "uuid")),
          ...shapeConditions(stage, status),
          keyset
            ? sql`(${contacts.createdAt}, ${contacts.id}) < (${opaque("beforeTs", "timestamptz")}, ${opaque("beforeId", "bigint")})`
            : undefined,
        ),
      )
      .orderBy(...contactOrder())
      .limit(pageLimit(literal));
    const q = offset ? base.offset(opaque("offset", "int") as unknown as number) : base;
    return pageStatement(q, `crm_page_${shape}`);
  });
  return runPageStatement(db, stmt, values, form);
}

/**
 * Page sizes selectContactsPage writes into its statement text (the screens' and the API's usual
 * sizes, and each + 1 for a cursor page's look-ahead row). With `LIMIT $n` Postgres estimates a
 * tenth of the table for the generic plan, so it re-plans every run (a custom plan: 0.09 ms of
 * planning against 0.05 ms of execution for a 50-contact page, EXPLAIN ANALYZE); with a literal
 * LIMIT and no OFFSET the generic plan costs the same and is kept (planning 0.005 ms). A bounded
 * set, so each connection prepares a bounded number of statements; other sizes keep `$n`.
 */
const LITERAL_LIMITS = new Set([10, 11, 20, 21, 25, 26, 50, 51, 100, 101, 200, 201]);

/**
 * A page statement's LIMIT: `literal` (one of LITERAL_LIMITS) written into the statement's text,
 * else the opaque parameter `limit`. drizzle sends a number as a parameter, so the literal goes in as
 * SQL text; typed as a number for drizzle's `.limit()`.
 */
function pageLimit(literal: number | null): number {
  return (literal === null ? opaque("limit", "int") : sql.raw(String(literal))) as unknown as number;
}

/** A prepared page statement (selectContactsPage, selectContactsPageByIds): its text and drizzle form. */
type PageStatement = {
  text: string;
  params: unknown[];
  drizzle: { execute: (v: Record<string, unknown>) => Promise<Record<string, unknown>[]> };
  /**
   * false: sent unnamed on the pool, so Postgres plans every run for its values (a statement whose
   * generic plan would be bad; see selectBroadSearchPage). Default true: prepared once per connection.
   */
  prepare?: boolean;
};

/** Builds a page statement's text and drizzle prepared form from its drizzle query. */
function pageStatement(
  q: { toSQL: () => { sql: string; params: unknown[] }; prepare: (name: string) => unknown },
  name: string,
  prepare = true,
): PageStatement {
  const built = q.toSQL();
  return {
    text: built.sql,
    params: built.params,
    drizzle: q.prepare(name) as PageStatement["drizzle"],
    prepare,
  };
}

/**
 * Runs a page statement with `values` for its placeholders and decodes its rows (see
 * selectContactsPage's forms): on the pool as a raw prepared statement with the precomputed column
 * decoders or the JSON writer; in a transaction through drizzle's prepared query and mapping.
 */
async function runPageStatement<F extends PageForm>(
  db: DbOrTx,
  stmt: PageStatement,
  values: Record<string, unknown>,
  form: F,
): Promise<PageRowOf<F>[]> {
  return (await decodePage(db, stmt, values, form === "json")) as PageRowOf<F>[];
}

/** runPageStatement's work, typed by the form's flag. */
async function decodePage(
  db: DbOrTx,
  stmt: PageStatement,
  values: Record<string, unknown>,
  json: boolean,
): Promise<ContactPageRow[] | ContactJsonPageRow[]> {
  const client = "$client" in db ? db.$client : null;
  if (!client) {
    // a transaction: drizzle's prepared query (same statement, drizzle's mapping)
    const rows = await stmt.drizzle.execute(values);
    const totalOf = (t: unknown) => (t === undefined ? undefined : Number(t));
    if (json)
      return rows.map(({ ts, total, ...c }) => ({
        // the json form's created_at is `ts` (pageSelection); a Date of it as drizzle's mapping makes
        json: JSON.stringify(toContactJson({ ...c, createdAt: new Date(ts as string) } as Contact)),
        id: c.id as number,
        ts: ts as string,
        total: totalOf(total),
      }));
    return rows.map(({ ts, total, ...c }) => ({ c: c as Contact, ts: ts as string, total: totalOf(total) }));
  }
  if (json) return writeJsonRows(await runRawMessages(client, stmt, values));
  return decodeRawRows(await runRaw(client, stmt, values));
}

/** The statement's parameters: `values` for its placeholders. */
const paramsOf = (stmt: { params: unknown[] }, values: Record<string, unknown>) =>
  stmt.params.map((p) => (p instanceof Placeholder ? values[p.name] : p)) as never[];

/** Runs a built statement on the pool with `values` for its placeholders; rows as value arrays. */
async function runRaw(
  client: Db["$client"],
  stmt: { text: string; params: unknown[]; prepare?: boolean },
  values: Record<string, unknown>,
): Promise<unknown[][]> {
  return (await client
    .unsafe(stmt.text, paramsOf(stmt, values), { prepare: stmt.prepare !== false })
    .values()) as unknown[][];
}

/**
 * Runs a built statement on the pool with `values` for its placeholders; each row as the DataRow
 * message Postgres sent (the driver's 'messages' row mode, patches/postgres+3.4.9.patch), for
 * writing JSON from its bytes. @throws Error when the driver is not patched (its rows are not
 * Buffers): run `npm ci`, whose postinstall applies the patch.
 */
async function runRawMessages(
  client: Db["$client"],
  stmt: { text: string; params: unknown[]; prepare?: boolean },
  values: Record<string, unknown>,
): Promise<Buffer[]> {
  const q = client.unsafe(stmt.text, paramsOf(stmt, values), { prepare: stmt.prepare !== false });
  (q as unknown as { isRaw: unknown }).isRaw = "messages";
  const rows = (await q) as unknown as unknown[];
  if (rows.length > 0 && !Buffer.isBuffer(rows[0]))
    throw new Error("postgres.js is not patched for 'messages' rows: run npm ci (patch-package)");
  return rows as Buffer[];
}

/** Column offsets of one DataRow (dataRowColumns), reused row after row: JSON_COLUMNS, ts, total. */
const rowColumns = new Int32Array(2 * (JSON_TOTAL + 1));

/**
 * Page rows in the json form from a page statement's DataRow messages (JSON_COLUMNS, `ts`,
 * optionally `total`): each row's JSON is a view of one buffer written for the page. Rows whose id
 * is null (a search page's left join when the page is empty) are left out.
 */
function writeJsonRows(msgs: Buffer[]): ContactJsonPageRow[] {
  let room = 0;
  for (const msg of msgs) room += 2 * msg.length + 1024;
  const out = new JsonBytes(room);
  const at = rowColumns;
  const rows: JsonPageRow[] = [];
  for (const msg of msgs) {
    const cols = dataRowColumns(msg, at);
    if (at[2 * JSON_ID + 1]! < 0) continue;
    const start = out.p;
    writeContactJson(msg, at, out);
    let id = 0;
    for (let i = at[2 * JSON_ID]!, end = i + at[2 * JSON_ID + 1]!; i < end; i++)
      id = id * 10 + msg[i]! - 0x30;
    const total = cols > JSON_TOTAL ? asciiColumn(msg, at, JSON_TOTAL) : null;
    rows.push(
      new JsonPageRow(
        start,
        out.p,
        id,
        msg,
        at[2 * JSON_TS]!,
        at[2 * JSON_TS + 1]!,
        total === null ? undefined : Number(total),
      ),
    );
  }
  // views only once the page is written: the buffer may have grown meanwhile
  for (const row of rows) row.json = out.buf.subarray(row.start, row.end);
  return rows;
}

/** A json-form page row (ContactJsonPageRow); `ts` is read from its DataRow only when asked for. */
class JsonPageRow implements ContactJsonPageRow {
  json: Buffer | string = "";
  constructor(
    readonly start: number,
    readonly end: number,
    readonly id: number,
    private readonly msg: Buffer,
    private readonly tsAt: number,
    private readonly tsLength: number,
    readonly total: number | undefined,
  ) {}
  get ts(): string {
    return this.msg.toString("latin1", this.tsAt, this.tsAt + this.tsLength);
  }
}

/** Column `i` of a DataRow (offsets in `at`) holding ASCII text (digits, a timestamp); null when null. */
const asciiColumn = (msg: Buffer, at: Int32Array, i: number): string | null =>
  at[2 * i + 1]! < 0 ? null : msg.toString("latin1", at[2 * i]!, at[2 * i]! + at[2 * i + 1]!);

/** Page rows in the rows form from a page statement's raw values (CONTACT_COLUMNS, `ts`, optionally `total`). */
function decodeRawRows(raw: unknown[][]): ContactPageRow[] {
  const n = CONTACT_COLUMNS.length;
  return raw.map((row) => {
    const c: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const [prop, column] = CONTACT_COLUMNS[i]!;
      const v = row[i];
      c[prop] = v === null ? null : column.mapFromDriverValue(v);
    }
    return {
      c: c as Contact,
      ts: String(row[n]),
      total: row.length > n + 1 ? Number(row[n + 1]) : undefined,
    };
  });
}

/**
 * The contacts of `workspaceId` among `ids` (a search's page, at most a few hundred), newest first
 * (`contactOrder`), in either form of selectContactsPage; one prepared statement per form with the
 * ids as one array parameter (the statement text does not vary with their number).
 */
export async function selectContactsPageByIds<F extends PageForm = "rows">(
  db: DbOrTx,
  workspaceId: string,
  ids: number[],
  form: F = "rows" as F,
): Promise<PageRowOf<F>[]> {
  const json = form === "json";
  const stmt = prepared(db, `crm.page-ids:${form}`, (d) => {
    const q = d
      .select(pageSelection(json))
      .from(contacts)
      .where(
        and(
          eq(contacts.workspaceId, sql.placeholder("workspaceId")),
          sql`${contacts.id} = any(${sql.placeholder("ids")}::bigint[])`,
        ),
      )
      .orderBy(...contactOrder());
    return pageStatement(q, `crm_page_ids_${+json}`);
  });
  return runPageStatement(db, stmt, { workspaceId, ids }, form);
}

/**
 * A search page in one round trip (issue 11: a search cost four round trips, ~2.5 ms of server CPU
 * per request under load): up to `cap` + 1 contacts of `workspaceId` whose search text contains
 * `term` (already normalised: crm.queries normaliseSearch), optionally in one lifecycle stage and/or
 * lead status, read in no order from the workspace's search index (the heap scan stops at `cap` + 1,
 * where ordering would read every match), give `matched` (how many, at most `cap` + 1) and, when
 * that is all of them, the page (`offset`, `limit`, newest first, rows in `form` as
 * selectContactsPage's); with more matches the page comes from a walk of the workspace's rows newest
 * first that stops after it, in the same statement. An empty page still reports `matched` (a
 * one-row left join carries it). Generic plan: 0.6 ms for 417 matches of 10,000 contacts (the
 * walk-only plan tested all 10,000 rows: 4.2 ms).
 * `countUpTo` gates the work: when the workspace holds more contacts than that (contact_counts), the
 * statement reads no contact and this returns null, so a large workspace can first ask the planner
 * whether the term is broad (crm.search searchPage). The WHERE is contactWhere's search (the
 * workspace-keyed trigram index, or the pending index for contacts awaiting their import's search
 * indexing; a term the index cannot serve, see searchKeyable, is tested on each of the workspace's
 * rows; `by.keyed` as contactWhere's `keyed`); one prepared statement per shape, form and kind of
 * term. Needs the pool (not a transaction).
 */
export async function selectSearchPage<F extends PageForm = "rows">(
  db: Db,
  workspaceId: string,
  by: { term: string; lifecycleStage?: string; leadStatus?: string; keyed?: boolean },
  page: { offset: number; limit: number; cap: number; countUpTo: number },
  form: F = "rows" as F,
): Promise<{ rows: PageRowOf<F>[]; matched: number } | null> {
  const stage = by.lifecycleStage !== undefined;
  const status = by.leadStatus !== undefined;
  const json = form === "json";
  const keyed = by.keyed ?? searchKeyable(by.term);
  const stmt = prepared(db, `crm.search-page:${stage}:${status}:${form}:${keyed}`, (d) => {
    // every value enters as an opaque parameter (see opaque): custom plans then cost what the generic
    // plan costs, so Postgres keeps the generic plan instead of planning each run anew
    const ws = opaque("workspaceId", "uuid");
    const pattern = opaque("pattern", "text");
    const term = opaque("term", "text");
    const cap = opaque("cap", "int");
    const countUpTo = opaque("countUpTo", "bigint");
    const offset = opaque("offset", "int");
    const limit = opaque("limit", "int");
    const size = sql`(select ${contactCountsSum()} from ${contactCounts} where ${contactCounts.workspaceId} = ${ws})`;
    // up to cap + 1 matches in no particular order: a bitmap scan of the workspace's trigram index
    // whose heap scan stops there (ordering them would read every match)
    const m = d.$with("m").as(
      d
        .select({ id: contacts.id, createdAt: contacts.createdAt })
        .from(contacts)
        .where(
          and(
            eq(contacts.workspaceId, ws),
            searchArms(ws, pattern, term, keyed ? "index" : "walk"),
            ...shapeConditions(stage, status),
            // a one-time filter: a large workspace reads no contact here
            sql`${size} <= ${countUpTo}`,
          ),
        )
        .limit(cap as unknown as number),
    );
    // their number, counted once
    const n = d.$with("n").as(d.select({ n: sql<number>`count(*)`.as("n") }).from(m));
    const count = sql`(select "n" from ${n})`;
    const matched = sql<string>`case when ${size} > ${countUpTo} then -1 else ${count} end`;
    // the page: from the matches when they are all in m, else (a broad term) by walking the
    // workspace's rows newest first and stopping after the page
    const walk = d
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.workspaceId, ws), walkMatch(term), ...shapeConditions(stage, status)))
      .orderBy(...contactOrder())
      .offset(offset as unknown as number)
      .limit(limit as unknown as number);
    const pageIds = sql`case when ${count} < ${cap} then array(select "id" from ${m} order by "created_at" desc, "id" desc offset ${offset} limit ${limit}) else array(${walk}) end`;
    const q = d
      .with(m, n)
      .select({ ...pageSelection(json), total: matched })
      .from(sql`(select 1) as one`)
      .leftJoin(contacts, and(eq(contacts.workspaceId, ws), sql`${contacts.id} = any(${pageIds})`))
      .orderBy(...contactOrder());
    const built = q.toSQL();
    return { text: built.sql, params: built.params };
  });
  const values: Record<string, unknown> = {
    workspaceId,
    pattern: `%${escapeLike(by.term)}%`,
    term: by.term,
    stage: by.lifecycleStage,
    status: by.leadStatus,
    countUpTo: page.countUpTo,
    cap: page.cap + 1,
    offset: page.offset,
    limit: page.limit,
  };
  if (json) {
    const msgs = await runRawMessages(db.$client, stmt, values);
    const rows = writeJsonRows(msgs);
    // every row, the left join's row of nulls too, carries the match count
    const first = msgs[0];
    const matched =
      first && dataRowColumns(first, rowColumns) > JSON_TOTAL
        ? Number(asciiColumn(first, rowColumns, JSON_TOTAL) ?? -1)
        : -1;
    if (matched < 0) return null;
    // (each row's `total` is that count too: the callers read `matched`)
    return { rows: rows as PageRowOf<F>[], matched };
  }
  const raw = await runRaw(db.$client, stmt, values);
  const n = CONTACT_COLUMNS.length;
  const matchedIds = Number(raw[0]?.[n + 1] ?? -1);
  if (matchedIds < 0) return null;
  const idAt = CONTACT_COLUMNS.findIndex(([p]) => p === "id");
  // the left join's row of nulls when the page is empty
  const found = raw.filter((row) => row[idAt] !== null).map((row) => row.slice(0, n + 1));
  return { rows: decodeRawRows(found) as PageRowOf<F>[], matched: matchedIds };
}

/**
 * A page of a broad search (many matches: crm.search asks the planner first): `limit` contacts of
 * `workspaceId` whose search text contains `term` (normalised), optionally in one lifecycle stage
 * and/or lead status, after skipping `offset`, newest first, in either form of selectContactsPage.
 * With many matches Postgres walks the workspace's (created_at, id) index newest first and tests each
 * row, stopping after one page, where the trigram index would have to fetch and sort every match. The
 * walk picks the page's ids from the index alone (it carries the search text, stage and status:
 * migration 0067), then the page's rows are read by id: the rows it passes over are not read from
 * the table ('garcia' at 100,000 contacts: 1,205 rows tested for a page of 51; Postgres time per page
 * 1.49 -> 1.0 ms). One prepared statement per shape and form, its generic plan that walk (contacts
 * have no parallel workers, migration 0032: the generic plan was a parallel walk, 70 ms for 'smith'
 * at 1,000,000 contacts against 4.5 ms). Planning each run for its pattern, as before, cost up to
 * 2.5-7 ms with search_text's 1,000-bucket statistics.
 */
export async function selectBroadSearchPage<F extends PageForm = "rows">(
  db: DbOrTx,
  workspaceId: string,
  by: { term: string; lifecycleStage?: string; leadStatus?: string },
  limit: number,
  offset: number,
  form: F = "rows" as F,
): Promise<PageRowOf<F>[]> {
  const stage = by.lifecycleStage !== undefined;
  const status = by.leadStatus !== undefined;
  const json = form === "json";
  // a common page size is written into the statement, and a first page has no OFFSET (as
  // selectContactsPage's LITERAL_LIMITS): the planner then costs the walk for the rows it reads (an
  // unknown LIMIT or OFFSET is taken for a tenth of the matches each), so its generic plan is the
  // walk by a wide margin
  const literal = LITERAL_LIMITS.has(limit) ? limit : null;
  const skip = offset > 0;
  const stmt = prepared(db, `crm.broad-search:${stage}:${status}:${form}:${literal ?? "n"}:${+skip}`, (d) => {
    // opaque values (see opaque): the generic plan, the walk, is kept rather than planned each run
    const ws = opaque("workspaceId", "uuid");
    const matching = d
      .select({ id: contacts.id })
      .from(contacts)
      .where(
        and(
          eq(contacts.workspaceId, ws),
          ...shapeConditions(stage, status),
          walkMatch(opaque("term", "text")),
        ),
      )
      .orderBy(...contactOrder())
      .limit(pageLimit(literal));
    const walk = skip ? matching.offset(opaque("offset", "int") as unknown as number) : matching;
    const q = d
      .select(pageSelection(json))
      .from(contacts)
      .where(and(eq(contacts.workspaceId, ws), sql`${contacts.id} = any(array(${walk}))`))
      .orderBy(...contactOrder());
    return pageStatement(q, `crm_broad_search_${+stage}${+status}${+json}_${literal ?? "n"}${+skip}`);
  });
  const values = {
    workspaceId,
    stage: by.lifecycleStage,
    status: by.leadStatus,
    term: by.term,
    limit,
    offset,
  };
  return runPageStatement(db, stmt, values, form);
}

/**
 * Up to `limit` contacts matching `where` below the keyset position (created_at text, id), newest
 * first, each with its created_at as Postgres text (microseconds kept, for the next cursor).
 */
export async function selectContactsBeforeCursor(
  db: DbOrTx,
  where: SQL,
  order: SQL[],
  limit: number,
  before?: { createdAt: string; id: number },
): Promise<{ c: Contact; ts: string }[]> {
  const after = before
    ? sql`(${contacts.createdAt}, ${contacts.id}) < (${before.createdAt}::timestamptz, ${before.id})`
    : undefined;
  return db
    .select({ c: contacts, ts: sql<string>`${contacts.createdAt}::text` })
    .from(contacts)
    .where(and(where, after))
    .orderBy(...order)
    .limit(limit);
}

/** `{id, email}` (email lower-cased) of the contacts of `workspaceId` whose lower(email) is in `emails`. */
export async function selectContactIdsByEmail(db: DbOrTx, workspaceId: string, emails: string[]) {
  return db
    .select({ id: contacts.id, email: sql<string>`lower(${contacts.email})` })
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), inArray(sql`lower(${contacts.email})`, emails)));
}

/**
 * `{id, phone, mobile}` of the contacts of `workspaceId` whose E.164 phone or E.164 mobile is in
 * `phones`, oldest first (a number on a campaign list is the person's whichever field holds it).
 */
export async function selectContactIdsByPhone(db: DbOrTx, workspaceId: string, phones: string[]) {
  return db
    .select({ id: contacts.id, phone: contacts.phone, mobile: contacts.mobile })
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        or(inArray(contacts.phone, phones), inArray(contacts.mobile, phones)),
      ),
    )
    .orderBy(contacts.id);
}

/**
 * Correction of each word in `words` to the most similar word of the workspace's search dictionary
 * (`contact_words`, the `%` operator at pg_trgm's default 0.3 threshold through its trigram GIN
 * index, then similarity >= `minSimilarity`; an exact word wins). Returns word -> fix (null: none).
 */
export async function closestDictionaryWords(
  db: DbOrTx,
  workspaceId: string,
  words: string[],
  minSimilarity: number,
): Promise<Map<string, string | null>> {
  const fixes = await db.execute<{ w: string; fix: string | null }>(sql`
    select t.w, (
      select ${contactWords.word} from ${contactWords}
      where ${contactWords.workspaceId} = ${workspaceId} and ${contactWords.word} % t.w
        and similarity(${contactWords.word}, t.w) >= ${minSimilarity}
      order by ${contactWords.word} = t.w desc, similarity(${contactWords.word}, t.w) desc, ${contactWords.word}
      limit 1
    ) as fix
    from unnest(${sql.raw("array[")}${sql.join(
      words.map((c) => sql`${c}`),
      sql`, `,
    )}${sql.raw("]::text[]")}) as t(w)`);
  return new Map(fixes.map((f) => [f.w, f.fix]));
}

// ---------------------------------------------------------------------------------------------
// Writing contacts
// ---------------------------------------------------------------------------------------------

/** Inserts one contact and returns it. Throws the driver's unique violation (23505) on a taken email. */
export async function insertContact(db: DbOrTx, values: NewContact): Promise<Contact | undefined> {
  const [row] = await db.insert(contacts).values(values).returning();
  return row;
}

/** Inserts contacts, skipping those that collide with an existing one (email or phone key). */
export async function insertContactsSkippingDuplicates(db: DbOrTx, values: NewContact[]): Promise<void> {
  if (values.length) await db.insert(contacts).values(values).onConflictDoNothing();
}

/**
 * insertContactsSkippingDuplicates that returns the contacts it created (those colliding with an
 * existing one are skipped and not returned), for their contact.created events.
 */
export async function insertContactsSkippingDuplicatesReturning(
  db: DbOrTx,
  values: NewContact[],
): Promise<Contact[]> {
  if (!values.length) return [];
  return db.insert(contacts).values(values).onConflictDoNothing().returning();
}

/** Inserts contacts and returns their ids in input order. */
export async function insertContactsReturningIds(db: DbOrTx, values: NewContact[]): Promise<number[]> {
  if (!values.length) return [];
  const rows = await db.insert(contacts).values(values).returning({ id: contacts.id });
  return rows.map((r) => r.id);
}

/**
 * SQL of custom fields `m.stored` (jsonb) with `m.patch` (jsonb, a null value removes that field)
 * merged in, names compared case-insensitively: a patch name replaces (or removes) the stored field of
 * the same name in any case (`tier` replaces `Tier`: one key, the patch's spelling), the others kept.
 * crm.schemas customFieldsSchema: a contact has one field per name whatever its case. Used through
 * customFieldsMergeSql (the JSON import) and updateContactRow.
 */
const CUSTOM_FIELDS_MERGE = `jsonb_strip_nulls(coalesce((select jsonb_object_agg(e.key, e.value)
    from jsonb_each(m.stored) e
    where not exists (select 1 from jsonb_object_keys(m.patch) k where lower(k) = lower(e.key))), '{}'::jsonb)
  || m.patch)`;

/**
 * SQL text: the custom fields `stored` (a jsonb expression) with `patch` (a jsonb expression, not
 * null) merged in as CUSTOM_FIELDS_MERGE does. Both expressions are pasted as given: trusted SQL only.
 */
export function customFieldsMergeSql(stored: string, patch: string): string {
  return `(select ${CUSTOM_FIELDS_MERGE} from (select ${stored} as stored, ${patch} as patch) m)`;
}

/**
 * Updates one contact of `workspaceId` (updated_at = now) and returns it, or undefined when not found
 * (or when a custom fields merge would pass its limit). The custom fields patch is merged with
 * names compared case-insensitively (CUSTOM_FIELDS_MERGE).
 */
export async function updateContactRow(
  db: DbOrTx,
  workspaceId: string,
  id: number,
  cols: Partial<NewContact>,
  /**
   * custom fields merged into the stored ones (a null value removes that field), atomically; the
   * row is left alone (undefined returned) when the result would hold more than `maxCustomFields`
   */
  customFields?: { patch: Record<string, string | number | boolean | null>; maxCustomFields: number },
): Promise<Contact | undefined> {
  const merged = customFields
    ? sql`(select ${sql.raw(CUSTOM_FIELDS_MERGE)} from (select ${contacts.customFields} as stored, ${JSON.stringify(customFields.patch)}::jsonb as patch) m)`
    : undefined;
  const [row] = await db
    .update(contacts)
    .set({ ...cols, ...(merged ? { customFields: merged } : {}), updatedAt: new Date() })
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        eq(contacts.id, id),
        merged
          ? sql`(select count(*) from jsonb_object_keys(${merged})) <= ${customFields!.maxCustomFields}`
          : undefined,
      ),
    )
    .returning();
  return row;
}

/** The contacts column of each opt-in flag recordContactOptIn sets. */
const OPT_IN_COLUMN = {
  emailOptIn: "email_opt_in",
  smsOptIn: "sms_opt_in",
  callOptIn: "call_opt_in",
} as const;

/**
 * Sets one opt-in flag of contact `id` of `workspaceId` to `value` and returns what it was before
 * (the row locked by the statement's subselect, so a concurrent change cannot slip between the read
 * and the write); null when the workspace has no such contact.
 */
export async function setContactOptIn(
  db: DbOrTx,
  workspaceId: string,
  id: number,
  flag: keyof typeof OPT_IN_COLUMN,
  value: boolean,
): Promise<boolean | null> {
  const col = sql.raw(OPT_IN_COLUMN[flag]);
  const res = await db.execute<{ before: boolean }>(sql`
    update contacts c set ${col} = ${value}, updated_at = now()
    from (select id, ${col} as before from contacts where workspace_id = ${workspaceId} and id = ${id} for update) o
    where c.id = o.id
    returning o.before`);
  return res[0] ? res[0].before : null;
}

/**
 * Deletes one contact of `workspaceId` in one statement (notes, tag links and timeline activities
 * cascade, except the message history, which stays detached: detachMessageHistory); false when not
 * found.
 */
export async function deleteContactRow(db: DbOrTx, workspaceId: string, id: number): Promise<boolean> {
  const rows = await db.execute(
    deleteContactsStatement(
      and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id)) as SQL,
      sql`select id from d`,
    ),
  );
  return [...rows].length > 0;
}

/**
 * The contacts' one lock order, kept by every statement that writes many contacts: by lower(email) (the
 * upserts' conflict key: an upsert takes its rows in that order, crm.import.ts) in the "C" collation
 * (byte order, whatever the database's collation: the same order as `byContactEmail` in JS), then id
 * (contacts without an email last). Two such statements over the same contacts wait for each other
 * instead of deadlocking.
 */
export const CONTACT_LOCK_ORDER = 'lower(email) collate "C", id';

/**
 * Sorts lowercased emails in CONTACT_LOCK_ORDER's order (code unit order: the "C" collation's for
 * emails without characters beyond U+FFFF), for inserts whose rows are given as values.
 */
export function byContactEmail(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `contacts.id in (...)` over the contacts matching `where`, locked (FOR UPDATE) in CONTACT_LOCK_ORDER
 * before the outer update or delete touches them: the target of a bulk write. A contact changed by
 * another transaction meanwhile is read again once that one ends (and left out if it no longer matches).
 */
function lockedInOrder(where: SQL): SQL {
  return sql`${contacts.id} in (${lockedTargets(where)})`;
}

/** The ids of the contacts matching `where`, locked (FOR UPDATE) in CONTACT_LOCK_ORDER. */
function lockedTargets(where: SQL): SQL {
  return sql`select ${contacts.id} from ${contacts} where ${where} order by ${sql.raw(CONTACT_LOCK_ORDER)} for update`;
}

/**
 * One statement deleting the contacts matching `where` (locks taken in CONTACT_LOCK_ORDER) after
 * detaching their message history (detachMessageHistory); `select` reads the deleted ids from `d(id)`
 * (a data-modifying WITH must be at the statement's top level, so the caller's select goes here).
 */
function deleteContactsStatement(where: SQL, select: SQL): SQL {
  return sql`
    with target as (${lockedTargets(where)}),
    kept as (${detachMessageHistory(sql`select id from target`)}),
    d as (delete from contacts where id in (select id from target) returning id)
    ${select}`;
}

/**
 * Deletes every contact matching `where` in one statement (taking their locks in CONTACT_LOCK_ORDER;
 * notes, tag links and activities cascade, except the message history, which stays detached:
 * detachMessageHistory); returns how many.
 */
export async function deleteContactsWhere(db: DbOrTx, where: SQL): Promise<number> {
  const [r] = await db.execute<{ n: number }>(
    deleteContactsStatement(where, sql`select count(*)::int as n from d`),
  );
  return Number(r?.n ?? 0);
}

/**
 * deleteContactsWhere that returns the deleted contacts' ids (`returning id`: the data of their
 * contact.deleted events, captured before the rows are gone).
 */
export async function deleteContactsWhereReturningIds(db: DbOrTx, where: SQL): Promise<number[]> {
  const rows = await db.execute<{ id: string | number }>(
    deleteContactsStatement(where, sql`select id from d`),
  );
  return [...rows].map((r) => Number(r.id));
}

function columnSet(column: "lifecycle_stage" | "lead_status", value: string): SQL {
  return column === "lifecycle_stage" ? sql`lifecycle_stage = ${value}` : sql`lead_status = ${value}`;
}

/**
 * Sets lifecycle_stage or lead_status (and updated_at) on every contact matching `where` (taking their
 * locks in CONTACT_LOCK_ORDER); returns how many.
 */
export async function setContactsColumnWhere(
  db: DbOrTx,
  where: SQL,
  column: "lifecycle_stage" | "lead_status",
  value: string,
): Promise<number> {
  const [r] = await db.execute<{ n: number }>(
    sql`with u as (update ${contacts} set ${columnSet(column, value)}, updated_at = now() where ${lockedInOrder(where)} returning 1) select count(*)::int as n from u`,
  );
  return Number(r?.n ?? 0);
}

/** setContactsColumnWhere that returns the updated contacts' ids. */
export async function setContactsColumnWhereReturningIds(
  db: DbOrTx,
  where: SQL,
  column: "lifecycle_stage" | "lead_status",
  value: string,
): Promise<number[]> {
  const rows = await db.execute<{ id: string | number }>(
    sql`update ${contacts} set ${columnSet(column, value)}, updated_at = now() where ${lockedInOrder(where)} returning id`,
  );
  return rows.map((r) => Number(r.id));
}

// ---------------------------------------------------------------------------------------------
// Map
// ---------------------------------------------------------------------------------------------

/** Contacts of `workspaceId` that have coordinates, newest first, at most `limit`. */
/**
 * A contact as the map reads it: every column but its custom fields (up to 50 values of 500
 * characters each, never shown on the map) and the generated search text. The map returns up to
 * 5,000 contacts; with their custom fields that could be 125 MB, read and written whole per request.
 */
export type MapContactRow = Omit<Contact, "customFields" | "searchText">;
const MAP_COLUMNS = (() => {
  const { customFields: _c, searchText: _s, ...cols } = getTableColumns(contacts);
  return cols;
})();

/** Located contacts of `workspaceId` (both coordinates set), newest first, at most `limit` (MapContactRow). */
export async function selectLocatedContacts(
  db: DbOrTx,
  workspaceId: string,
  limit: number,
): Promise<MapContactRow[]> {
  return db
    .select(MAP_COLUMNS)
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        sql`${contacts.latitude} is not null and ${contacts.longitude} is not null`,
      ),
    )
    .orderBy(...contactOrder())
    .limit(limit);
}

/**
 * Longitude in [lo, hi] (degrees, lo <= hi) on the circle: a range passing 180 or -180 goes on from
 * the other side (170..190 is 170..180 or -180..-170); one 360 degrees wide or more is no condition.
 */
function longitudeBetween(lo: number, hi: number): SQL | undefined {
  if (hi - lo >= 360) return undefined;
  if (lo < -180)
    return sql`(${contacts.longitude} >= ${lo + 360}::float8 or ${contacts.longitude} <= ${hi}::float8)`;
  if (hi > 180)
    return sql`(${contacts.longitude} >= ${lo}::float8 or ${contacts.longitude} <= ${hi - 360}::float8)`;
  return sql`${contacts.longitude} between ${lo}::float8 and ${hi}::float8`;
}

/**
 * Contacts of `workspaceId` within `radiusMiles` great-circle (haversine, Earth radius
 * `earthRadiusMiles`) of (latitude, longitude), nearest first, at most `limit`, each with its
 * `distance` in miles (rows as MapContactRow). `dLat`/`dLng` (degrees) bound a box the (workspace_id, latitude, longitude)
 * index prunes with before the exact test; `dLng >= 180` leaves longitude unbounded, and a box
 * passing -180 or 180 continues on the meridian's other side (longitudeBetween).
 */
export async function selectContactsNear(
  db: DbOrTx,
  workspaceId: string,
  p: {
    latitude: number;
    longitude: number;
    radiusMiles: number;
    dLat: number;
    dLng: number;
    earthRadiusMiles: number;
    limit: number;
  },
): Promise<{ c: MapContactRow; distance: number }[]> {
  const lat = sql`${p.latitude}::float8`;
  const lng = sql`${p.longitude}::float8`;
  const distance = sql<number>`(${p.earthRadiusMiles}::float8 * 2 * asin(least(1, sqrt(
    power(sin(radians(${contacts.latitude} - ${lat}) / 2), 2) +
    cos(radians(${lat})) * cos(radians(${contacts.latitude})) * power(sin(radians(${contacts.longitude} - ${lng}) / 2), 2)
  ))))`;
  return db
    .select({ c: MAP_COLUMNS, distance })
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        sql`${contacts.latitude} between ${p.latitude - p.dLat}::float8 and ${p.latitude + p.dLat}::float8`,
        longitudeBetween(p.longitude - p.dLng, p.longitude + p.dLng),
        sql`${distance} <= ${p.radiusMiles}::float8`,
      ),
    )
    .orderBy(distance)
    .limit(p.limit);
}

/**
 * Columns whose statistics a bulk write changes the most: which workspaces own how many contacts
 * and in which stage/status (the planner's row estimates for list pages and search strategies,
 * see listContacts' estimateMatches). search_text (statistics target 1000, a 300,000-row sample)
 * is left to autovacuum: an import's words shift its trigram frequencies little.
 */
export const IMPORT_ANALYZE_COLUMNS = ["workspace_id", "lifecycle_stage", "lead_status", "search_indexed"];

/**
 * ANALYZE of the contacts table's IMPORT_ANALYZE_COLUMNS (a 30,000-row sample, table-wide, not per
 * workspace). Autovacuum waits for 10% of the table to change, so a 10,000-contact import into a
 * large database went unseen and `GET /api/v1/contacts` planned a bitmap scan + sort instead of a
 * backward index scan.
 */
export async function analyzeContactStats(sql: Sql): Promise<void> {
  await sql.unsafe(`analyze contacts (${IMPORT_ANALYZE_COLUMNS.join(", ")})`);
}

/** The GIN indexes search reads: the contacts' workspace-keyed search trigrams and the search dictionary. */
export const SEARCH_GIN_INDEXES = ["contacts_ws_search_keys_idx", "contact_words_ws_trgm_idx"] as const;

/**
 * Moves the entries waiting in the search GIN indexes' pending lists (fastupdate) into the indexes
 * proper (`gin_clean_pending_list`). Every scan reads the whole pending list: after a 10,000-contact
 * bulk write it held ~4,800 contacts (473 pages) and a 1,000,000-contact search took 26 ms instead of
 * 8 ms, and the dictionary's ~6,900 words slowed every typo correction, until autovacuum came by.
 * Returns the pending pages merged per index.
 */
export async function mergeSearchIndexPending(sql: Sql): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of SEARCH_GIN_INDEXES) {
    const [row] = await sql<{ n: string }[]>`select gin_clean_pending_list(${name}::regclass) as n`;
    out[name] = Number(row?.n ?? 0);
  }
  return out;
}

/**
 * Marks as dead the entries of `workspaceId` in the pending-search index (contacts_search_pending_idx,
 * partial on `not search_indexed`) whose row versions are dead, and returns how many contacts of the
 * workspace are still pending. An import writes its contacts pending and its follow-ups rewrite them
 * indexed; the old versions keep their pending-index entries until a VACUUM, and autovacuum waits for
 * 20% of the table to change (a 10,000-contact import into a large database goes unseen). Every search
 * reads those entries in a bitmap scan, which cannot mark them dead, and so visited each of the
 * workspace's heap pages: 'garcia' over 10,000 just-imported contacts cost 1.59 ms of Postgres CPU
 * instead of 1.21 ms (bench DB, one connection). A plain index scan does mark them (Postgres's
 * kill_prior_tuple), so this runs the count as one (bitmap and sequential scans off for this
 * transaction). Entries whose old version an open snapshot can still see stay until a later scan or
 * vacuum. Cost: one heap visit per entry, once.
 */
export async function prunePendingSearchEntries(sql: Sql, workspaceId: string): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`set local enable_bitmapscan = off`;
    await tx`set local enable_seqscan = off`;
    const [row] = await tx<{ n: number }[]>`
      select count(*)::int as n from contacts where workspace_id = ${workspaceId} and not search_indexed`;
    return row?.n ?? 0;
  });
}

/**
 * The stored custom fields of `workspaceId`'s contacts with the given emails (lowercase), by
 * lowercase email: what a JSON import's custom fields would merge into (crm.import importRows).
 */
export async function selectCustomFieldsByEmail(
  sql: Sql,
  workspaceId: string,
  emails: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < emails.length; i += 5000) {
    const rows = await sql<{ email: string; custom_fields: Record<string, unknown> }[]>`
      select lower(email) as email, custom_fields from contacts
      where workspace_id = ${workspaceId} and lower(email) = any(${emails.slice(i, i + 5000)}::text[])`;
    for (const r of rows) out.set(r.email, r.custom_fields);
  }
  return out;
}

/**
 * Contacts, in any workspace, whose phone or mobile is `phone` (E.164) and that were reached at that
 * number from the contact page: an activity of one of `activityTypes` (`sms_sent`; `call_made`,
 * `voicemail_sent`) whose `metadata.to` is `phone` (campaign sends record no `to`; their recipients
 * answer for them). Latest first, with that latest time; at most `limit`. Read by the inbound SMS and
 * callback-number webhooks, which answer for every workspace that reached the number (indexes
 * contacts_phone_idx, contacts_mobile_idx, activities_contact_idx).
 */
export async function selectContactsReachedAt(
  db: DbOrTx,
  phone: string,
  activityTypes: string[],
  limit = 50,
): Promise<{ workspaceId: string; contactId: number; lastAt: Date }[]> {
  const rows = await db.execute<{ workspace_id: string; id: string; last_at: Date | string }>(sql`
    select c.workspace_id, c.id, max(a.created_at) as last_at
    from contacts c
    join activities a on a.contact_id = c.id
      and a.activity_type in (${sql.join(
        activityTypes.map((t) => sql`${t}`),
        sql`, `,
      )})
      and a.metadata->>'to' = ${phone}
    where c.phone = ${phone} or c.mobile = ${phone}
    group by c.workspace_id, c.id
    order by last_at desc
    limit ${limit}`);
  return [...rows].map((r) => ({
    workspaceId: r.workspace_id,
    contactId: Number(r.id),
    lastAt: new Date(r.last_at),
  }));
}

/** True when the workspace's contact `contactId` has any `sms_sent` activity (a campaign or single text). */
export async function contactWasTexted(db: DbOrTx, workspaceId: string, contactId: number): Promise<boolean> {
  const rows = await db.execute(sql`
    select 1 from activities
    where contact_id = ${contactId} and workspace_id = ${workspaceId} and activity_type = 'sms_sent'
    limit 1`);
  return [...rows].length > 0;
}

/**
 * Which of `phones` (E.164) the workspace has texted: an `sms_sent` activity of a contact holding the
 * number (phone or mobile) whose `metadata.to` (a contact-page text) or `metadata.address` (a
 * campaign text) is that number. Campaign texts recorded before campaigns wrote `address` do not
 * count (their recipient rows answer for them in campaigns). Indexes contacts_phone_idx,
 * contacts_mobile_idx, activities_contact_idx.
 */
export async function selectTextedNumbers(
  db: DbOrTx,
  workspaceId: string,
  phones: string[],
): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const list = sql`array[${sql.join(
    phones.map((p) => sql`${p}`),
    sql`, `,
  )}]::text[]`;
  const rows = await db.execute<{ n: string }>(sql`
    select distinct coalesce(a.metadata->>'to', a.metadata->>'address') as n
    from activities a
    where a.workspace_id = ${workspaceId} and a.activity_type = 'sms_sent'
      and a.contact_id in (
        select id from contacts
        where workspace_id = ${workspaceId} and (phone = any(${list}) or mobile = any(${list})))
      and (a.metadata->>'to' = any(${list}) or a.metadata->>'address' = any(${list}))`);
  return new Set([...rows].map((r) => r.n));
}

/**
 * The email addresses and phone numbers (phone, mobile) of up to `cap` contacts of `workspaceId`
 * whose name ("first last", accents folded and lower-cased as the search text is: contact_search_fold)
 * contains `term` (already normaliseSearch'd; LIKE metacharacters taken literally), oldest first.
 * Returns `{emails, phones, capped}` (as stored); `capped` when more than `cap` contacts match.
 * For the Opt-outs screen's search by name (crm.opt-outs listOptOuts).
 */
export async function selectAddressesOfContactsNamed(
  db: DbOrTx,
  workspaceId: string,
  term: string,
  cap: number,
): Promise<{ emails: string[]; phones: string[]; capped: boolean }> {
  const rows = await db
    .select({ email: contacts.email, phone: contacts.phone, mobile: contacts.mobile })
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        sql`lower(contact_search_fold(coalesce(${contacts.firstName}, '') || ' ' || coalesce(${contacts.lastName}, ''))) like ${`%${escapeLike(term)}%`}`,
      ),
    )
    .orderBy(contacts.id)
    .limit(cap + 1);
  const kept = rows.slice(0, cap);
  const emails = new Set<string>();
  const phones = new Set<string>();
  for (const r of kept) {
    if (r.email) emails.add(r.email);
    for (const p of [r.phone, r.mobile]) if (p) phones.add(p);
  }
  return { emails: [...emails], phones: [...phones], capped: rows.length > cap };
}

/**
 * The workspace's contacts holding any of `emails` (compared lower-cased) or `phones` (E.164, as phone
 * or mobile): `{id, firstName, lastName, email, phone, mobile}`, oldest first. One array parameter
 * each (the Opt-outs screen's page of suppressions names the contacts they belong to).
 */
export async function selectContactsByAddresses(
  db: DbOrTx,
  workspaceId: string,
  emails: string[],
  phones: string[],
) {
  if (emails.length === 0 && phones.length === 0) return [];
  return db
    .select({
      id: contacts.id,
      firstName: contacts.firstName,
      lastName: contacts.lastName,
      company: contacts.company,
      email: contacts.email,
      phone: contacts.phone,
      mobile: contacts.mobile,
    })
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        sql`(lower(${contacts.email}) = any(${sql.param(emails)}::text[]) or ${contacts.phone} = any(${sql.param(phones)}::text[]) or ${contacts.mobile} = any(${sql.param(phones)}::text[]))`,
      ),
    )
    .orderBy(contacts.id);
}
