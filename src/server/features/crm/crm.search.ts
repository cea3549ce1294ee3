import { z } from "zod";
import type { AppContext } from "../../context";
import type { Contact, SegmentFilter } from "../../db/schema";
import { cursorId, decodeCursor, encodeCursor, pgTimestampText } from "../../lib/cursor";
import { type RawJson, rawJsonArray } from "../../lib/raw-json";
import { parseInput } from "../../lib/validate";
import { type ContactJson, toContactJson } from "./crm.contact-json";
import {
  type ContactPageRow,
  closestDictionaryWords,
  contactOrder,
  contactWhere,
  countContactsWhereUpTo,
  estimateContactsWhere,
  normaliseSearch,
  type PageForm,
  type PageRowOf,
  searchKeyable,
  selectBroadSearchPage,
  selectContactIdsWhere,
  selectContactsBeforeCursor,
  selectContactsPage,
  selectContactsPageByIds,
  selectContactsWhere,
  selectSearchPage,
  sumContactCounts,
  termHasSearchKeys,
} from "./crm.queries";
import {
  type ContactReach,
  type ListContactsInput,
  type ListFilter,
  listContactsSchema,
} from "./crm.schemas";

// The contacts list: search with counts and typo tolerance (the screen, GET /api/contacts) and
// cursor pages (public API).

/** Searches count exactly up to this many matches (then `pagination.total_capped`). */
export const SEARCH_COUNT_CAP = 1000;
/** Above this many matches expected by the planner, a search is not counted (lower bound instead). */
export const BROAD_ESTIMATE = 3000;
/**
 * Up to this many contacts in the workspace, a search counts its matches (up to SEARCH_COUNT_CAP)
 * without asking the planner's estimate first: reading that many rows at worst costs less than
 * planning the estimate (bench:api BENCH_SESSION_PATHS).
 */
export const SMALL_WORKSPACE = 20_000;
/** Smallest pg_trgm similarity (0-1) at which a dictionary word counts as the intended word. */
export const TYPO_SIMILARITY = 0.4;

/** The list filter of the screen's query parameters (search, stage, status, tag). */
export function listFilter(q: z.output<typeof listContactsSchema>): SegmentFilter {
  return {
    search: q.search,
    lifecycle_stage: q.stage || undefined,
    lead_status: q.status || undefined,
    tag_id: q.tag,
  };
}

/**
 * GET /api/contacts. Query: `search` (substring of name/email/company/phone; when nothing contains
 * it, the search runs once more with the term's typos corrected against the user's search
 * dictionary, see correctTerm), `stage`, `status`, `tag`, `page` (1-based), `limit` (default 50,
 * max 200). Returns `{ contacts, pagination: {page, pages, total, limit, total_capped?} }`; the
 * total without a search or tag comes from the trigger-maintained `contact_counts` (exact, O(1));
 * a search's total is exact up to SEARCH_COUNT_CAP, else a lower bound with `total_capped`.
 * `opts.reachable` (tRPC `crm.list` only, for the campaign builders' contact pickers) lists only the
 * contacts a campaign on that channel can address (crm.queries reachableWhere: the campaigns' rule,
 * so none the review would skip as "no valid phone number" / "no email address"); its total is
 * exact in a workspace of up to SMALL_WORKSPACE contacts without a search or tag, else as a search's.
 * @throws BAD_REQUEST on invalid input.
 */
export async function listContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: ListContactsInput,
  opts: { reachable?: ContactReach } = {},
): Promise<{ contacts: ContactJson[]; pagination: ContactsPagination }> {
  const r = await contactsListPage(ctx, workspaceId, input, "rows", opts.reachable);
  return { contacts: r.rows.map(contactJsonOf), pagination: r.pagination };
}

/** The pagination of a contacts list response (see listContacts). */
export type ContactsPagination = {
  page: number;
  pages: number;
  total: number;
  limit: number;
  total_capped?: boolean;
};

/**
 * `listContacts` with the page as JSON text, for responses that embed it as it is (GET
 * /api/contacts): `contacts` is a JSON array of `toContactJson` objects, written from the driver's
 * values on the plain filters (crm.queries selectContactsPage "json"), by JSON.stringify on searches
 * and tags. Same input, rules and errors as `listContacts`.
 */
export async function listContactsJson(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: ListContactsInput,
): Promise<{ contacts: RawJson<ContactJson[]>; pagination: ContactsPagination }> {
  const r = await contactsListPage(ctx, workspaceId, input, "json");
  return { contacts: rawJsonArray(r.rows.map(jsonTextOf)), pagination: r.pagination };
}

/**
 * A listed contact: decoded (`c`), or as its REST JSON text (`json`) when the page statement wrote
 * it (crm.queries selectContactsPage's forms; searches past the count and tag filters give `c`).
 */
type ListedRow = { c: Contact } | { json: Buffer | string };
const contactJsonOf = (r: ListedRow): ContactJson =>
  "c" in r ? toContactJson(r.c) : (JSON.parse(r.json.toString()) as ContactJson);
const jsonTextOf = (r: ListedRow): Buffer | string =>
  "json" in r ? r.json : JSON.stringify(toContactJson(r.c));

/**
 * listContacts' work, its rows in `form` where a page statement reads them. `reachable`: only the
 * contacts that channel reaches (listContacts). `corrected` marks the typo-corrected second pass.
 */
async function contactsListPage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: ListContactsInput,
  form: PageForm,
  reachable?: ContactReach,
  corrected = false,
): Promise<{ rows: ListedRow[]; pagination: ContactsPagination }> {
  const q = parseInput(listContactsSchema, input);
  const filter: ListFilter = reachable ? { ...listFilter(q), reachable } : listFilter(q);
  const term = normaliseSearch(q.search);
  const offset = (q.page - 1) * q.limit;
  let page: { rows: ListedRow[]; total: number; capped: boolean };
  if (term || q.tag || reachable) {
    page = await searchPage(ctx, workspaceId, filter, offset, q.limit, form);
    // typo tolerance: nothing contains the term; search again with its words corrected against
    // the user's search dictionary ("did you mean", pg_trgm similarity), once
    if (page.total === 0 && offset === 0 && term.length >= 4 && !corrected) {
      const fixed = await correctTerm(ctx, workspaceId, term);
      if (fixed)
        return contactsListPage(
          ctx,
          workspaceId,
          { ...input, search: fixed.slice(0, 100) },
          form,
          reachable,
          true,
        );
    }
  } else {
    // the page with its total in one statement; past the last page, the total on its own
    const by = { lifecycleStage: filter.lifecycle_stage, leadStatus: filter.lead_status };
    const rows = await selectContactsPage(ctx.db, workspaceId, by, q.limit, { offset }, form, true);
    const total = rows[0]?.total ?? (await sumContactCounts(ctx.db, workspaceId, by));
    page = { rows, total, capped: false };
  }
  return {
    rows: page.rows,
    pagination: {
      page: q.page,
      pages: Math.max(1, Math.ceil(page.total / q.limit)),
      total: page.total,
      limit: q.limit,
      ...(page.capped ? { total_capped: true } : {}),
    },
  };
}

/**
 * Planning hints of the search, kept per process for PLANNER_HINT_MS (key -> value and when, ms):
 * `large:<workspace>` when a workspace held more than SMALL_WORKSPACE contacts (its searches skip the
 * one-statement attempt for small workspaces, which reads no contact there but costs a round trip),
 * `selective:<workspace>:<stage>:<status>:<term>` with the planner's verdict on a term in a large
 * workspace (paging through a search asks the planner once), or "over-cap" for a term counted past
 * SEARCH_COUNT_CAP, in a small workspace or in a large one whose planner expected it selective (its
 * next pages and searches walk at once and keep the "1,000+" total).
 * Hints only choose how a search is read:
 * both ways return the same contacts, and a stale hint at worst leaves a broad term uncounted ("51+")
 * or counts a term that grew broad, until it expires.
 */
type PlannerHint = boolean | "over-cap";
const plannerHints = new Map<string, { value: PlannerHint; at: number }>();
const PLANNER_HINT_MS = 60_000;
function plannerHint(key: string): PlannerHint | undefined {
  const h = plannerHints.get(key);
  return h && h.at > Date.now() - PLANNER_HINT_MS ? h.value : undefined;
}
function setPlannerHint(key: string, value: PlannerHint) {
  if (plannerHints.size >= 10_000) plannerHints.clear();
  plannerHints.set(key, { value, at: Date.now() });
}

/**
 * Whether a term has search index keys (crm.queries termHasSearchKeys), for the terms searchKeyable
 * cannot answer alone (no three ASCII letters or digits in a row): asked of Postgres once per term
 * and process (the answer depends only on the term and the database's locale), at most 10,000 kept.
 */
const termKeys = new Map<string, boolean>();
async function termKeyed(ctx: Pick<AppContext, "db">, term: string): Promise<boolean> {
  if (searchKeyable(term)) return true;
  let keyed = termKeys.get(term);
  if (keyed === undefined) {
    keyed = await termHasSearchKeys(ctx.db, term);
    if (termKeys.size >= 10_000) termKeys.clear();
    termKeys.set(term, keyed);
  }
  return keyed;
}

/**
 * Forgets every planning hint, so the next search of each term and workspace asks again as a first
 * search does (for benchmarks that measure a term's first search; bench:crm).
 */
export function forgetSearchPlannerHints(): void {
  plannerHints.clear();
}

/**
 * One page of a search or tag filter with its total, rows in `form` where a page statement reads
 * them. Two strategies, chosen without reading matches: in a workspace of up to SMALL_WORKSPACE
 * contacts the first, unless this term was counted past SEARCH_COUNT_CAP in the last minute (a
 * planner hint); in a larger one by the planner's estimate of the matches (EXPLAIN, ~1 ms of
 * planning; kept a minute per term as a planner hint):
 * - selective term: up to SEARCH_COUNT_CAP + 1 matches from the workspace's trigram index give the
 *   exact total, and the page is the newest of them. A search without a tag is one prepared
 *   statement (crm.queries selectSearchPage: count and rows; it was four round trips: bench:api
 *   search server CPU 2.5 -> 1.0 ms per request), which walks for the page instead when the term
 *   had more matches; with a tag, the ids then the rows by id.
 * - broad term (counting would read tens of thousands of heap pages), or a page past the counted
 *   matches: walk the workspace's (created_at, id) index newest first and stop after one page plus
 *   one row (without a tag: selectBroadSearchPage, one prepared statement per shape); the
 *   total is then the exact number when this is the last page, else the lower bound
 *   offset + limit + 1 with `capped` ("51+").
 * A `reachable` filter (a campaign picker's) is read as a tag filter is; without a search or tag, in
 * a workspace of up to SMALL_WORKSPACE contacts, it is counted exactly (up to SMALL_WORKSPACE ids),
 * as the plain list's total is, so the picker's "Select all N matching" names every such contact.
 */
async function searchPage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  filter: ListFilter,
  offset: number,
  limit: number,
  form: PageForm,
): Promise<{ rows: ListedRow[]; total: number; capped: boolean }> {
  const term = normaliseSearch(filter.search);
  const keyed = term ? await termKeyed(ctx, term) : false;
  // the filter's WHERE, built where a strategy reads with it (a search's one-statement page does not:
  // building it cost ~20 µs of server CPU per search request)
  let built: ReturnType<typeof contactWhere> | undefined;
  const where = () => {
    built ??= contactWhere(workspaceId, filter, "run", keyed);
    return built;
  };
  // the planner's estimate of the filter's matches (the search as a LIKE on search_text), asked only
  // where a strategy needs it
  const estimate = () => estimateContactsWhere(ctx.db, contactWhere(workspaceId, filter, "estimate"));
  if (term && filter.tag_id == null && !filter.reachable) {
    // a search without a tag: ids, count and page in one statement (crm.queries selectSearchPage)
    const by = { term, lifecycleStage: filter.lifecycle_stage, leadStatus: filter.lead_status, keyed };
    const key = `selective:${workspaceId}:${by.lifecycleStage ?? ""}:${by.leadStatus ?? ""}:${term}`;
    let selective = plannerHint(key);
    if (offset + limit <= SEARCH_COUNT_CAP) {
      const counted = (r: { rows: ListedRow[]; matched: number }) => ({
        rows: r.rows,
        total: Math.min(r.matched, SEARCH_COUNT_CAP),
        capped: r.matched > SEARCH_COUNT_CAP,
      });
      const page = { offset, limit, cap: SEARCH_COUNT_CAP };
      // a workspace of up to SMALL_WORKSPACE contacts is counted whatever the term (the count reads
      // at most that many rows), unless the term was seen broad; in a larger one the statement reads
      // nothing and returns null
      if (!plannerHint(`large:${workspaceId}`) && (selective === undefined || selective === true)) {
        const small = await selectSearchPage(
          ctx.db,
          workspaceId,
          by,
          { ...page, countUpTo: SMALL_WORKSPACE },
          form,
        );
        if (small) {
          // more than SEARCH_COUNT_CAP matches: the next page of this term walks the rows at once
          if (small.matched > SEARCH_COUNT_CAP) setPlannerHint(key, "over-cap");
          return counted(small);
        }
        setPlannerHint(`large:${workspaceId}`, true);
      }
      // a larger one is counted when the planner expects a selective term
      if (selective === undefined) {
        selective = (await estimate()) <= BROAD_ESTIMATE;
        setPlannerHint(key, selective);
      }
      if (selective === true) {
        const r = await selectSearchPage(
          ctx.db,
          workspaceId,
          by,
          { ...page, countUpTo: Number.MAX_SAFE_INTEGER },
          form,
        );
        if (r) {
          // the planner expected a selective term but it has more than SEARCH_COUNT_CAP matches:
          // its next pages and searches walk at once and keep the "1,000+" total, as in a small
          // workspace (counting up to the cap read the trigram index's every match: a term with
          // 4,167 matches in 100,000 contacts: ~20 ms alone, 65 ms of Postgres CPU per request under
          // bench:crm's 50-connection load)
          if (r.matched > SEARCH_COUNT_CAP) setPlannerHint(key, "over-cap");
          return counted(r);
        }
      }
    }
    // a broad term, or a page past the counted matches: the workspace's rows newest first
    const broad = await broadPage(ctx, where, offset, limit, (n) =>
      selectBroadSearchPage(ctx.db, workspaceId, by, n, offset, form),
    );
    // a term counted past SEARCH_COUNT_CAP a moment ago keeps its "1,000+" while it is paged through
    if (broad.capped && selective === "over-cap") broad.total = Math.max(broad.total, SEARCH_COUNT_CAP);
    return broad;
  }
  // a tag or reachable filter, with or without a search
  const small = (await sumContactCounts(ctx.db, workspaceId)) <= SMALL_WORKSPACE;
  const selective = small || (await estimate()) <= BROAD_ESTIMATE;
  const cap =
    small && filter.reachable && !term && filter.tag_id == null ? SMALL_WORKSPACE : SEARCH_COUNT_CAP;
  const order = contactOrder(filter);
  if (selective && offset + limit <= cap) {
    const ids = await selectContactIdsWhere(ctx.db, where(), { order, limit: cap + 1 });
    const pageIds = ids.slice(offset, offset + limit);
    return {
      // the page's rows by id: one prepared statement (newest first, as the ids)
      rows: pageIds.length ? await selectContactsPageByIds(ctx.db, workspaceId, pageIds, form) : [],
      total: Math.min(ids.length, cap),
      capped: ids.length > cap,
    };
  }
  return broadPage(ctx, where, offset, limit, async (n) =>
    (await selectContactsWhere(ctx.db, where(), order, n, offset)).map((c) => ({ c })),
  );
}

/**
 * A page of a broad search or tag filter, not counted: `read(limit + 1)` gives the rows after the
 * page's offset, newest first; the total is exact on the last page and past it (then counted up to
 * `offset` with the WHERE `where()` gives), else the lower bound offset + limit + 1 (`capped`).
 */
async function broadPage(
  ctx: Pick<AppContext, "db">,
  where: () => ReturnType<typeof contactWhere>,
  offset: number,
  limit: number,
  read: (n: number) => Promise<ListedRow[]>,
): Promise<{ rows: ListedRow[]; total: number; capped: boolean }> {
  const r = await read(limit + 1);
  const hasMore = r.length > limit;
  const rows = hasMore ? r.slice(0, limit) : r;
  if (hasMore) return { rows, total: offset + limit + 1, capped: true };
  // past the last page: at most `offset` matches, counted (reading no more rows than the offset did)
  if (rows.length === 0 && offset > 0)
    return {
      rows,
      total: await countContactsWhereUpTo(ctx.db, where(), offset),
      capped: false,
    };
  return { rows, total: offset + rows.length, capped: false };
}

/**
 * The list filter of `input` as the list (GET /api/contacts, listContacts) applies it: when its
 * search term (4+ characters) matches no contact under the filter, the filter with the term's typos
 * corrected (correctTerm), as the list searches again; else the filter as given (listFilter). For
 * the CSV export (crm.export), which must hold what the list shows. One count of at most one row,
 * plus the dictionary lookup when it is empty.
 */
export async function shownListFilter(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: ListContactsInput,
): Promise<SegmentFilter> {
  const q = parseInput(listContactsSchema, input);
  const filter = listFilter(q);
  const term = normaliseSearch(q.search);
  if (term.length < 4) return filter;
  if ((await countContactsWhereUpTo(ctx.db, contactWhere(workspaceId, filter), 1)) > 0) return filter;
  const fixed = await correctTerm(ctx, workspaceId, term);
  return fixed
    ? listFilter(parseInput(listContactsSchema, { ...input, search: fixed.slice(0, 100) }))
    : filter;
}

/**
 * "Did you mean": corrects each word of `term` (4+ characters, with a letter) that is not a word
 * of the user's contacts to the most similar word of the user's search dictionary (`contact_words`,
 * pg_trgm similarity >= TYPO_SIMILARITY). Returns the corrected term, or null when nothing was
 * corrected.
 */
async function correctTerm(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  term: string,
): Promise<string | null> {
  const words = term.split(/([^\p{L}\p{N}]+)/u);
  const candidates = [...new Set(words.filter((w) => w.length >= 4 && w.length <= 40 && /\p{L}/u.test(w)))];
  if (candidates.length === 0) return null;
  const map = await closestDictionaryWords(ctx.db, workspaceId, candidates, TYPO_SIMILARITY);
  let changed = false;
  const out = words.map((w) => {
    const fix = map.get(w);
    if (fix && fix !== w) {
      changed = true;
      return fix;
    }
    return w;
  });
  return changed ? out.join("") : null;
}

/** Cursor of the contact pages (public API): the last row's `[created_at::text, id]`. */
const contactCursor = z.tuple([pgTimestampText, cursorId]);

/** Parses a public API cursor (`listContactsPage`'s `nextCursor`). @throws BAD_REQUEST 'cursor is not valid'. */
function parseCursor(cursor: string | undefined): { createdAt: string; id: number } | undefined {
  const key = decodeCursor(cursor, contactCursor);
  return key && { createdAt: key[0], id: key[1] };
}
/** Whether the filter is served by the prepared page statements (no search, no tag). */
const plainFilter = (filter: SegmentFilter) => !normaliseSearch(filter.search) && filter.tag_id == null;

/**
 * A cursor page of contacts for the public API (issue 15): the filter of `contactWhere`, newest
 * first (created_at desc, id desc), `limit` rows after the position `cursor` (an opaque string from a
 * previous page's `nextCursor`). Search here is the plain substring match (no typo correction), so
 * pages stay stable. Returns `{contacts, nextCursor}` (`nextCursor` null on the last page).
 * @throws AppError BAD_REQUEST 'cursor is not valid' for a cursor this function did not make.
 */
export async function listContactsPage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  filter: SegmentFilter,
  limit: number,
  cursor?: string,
): Promise<{ contacts: Contact[]; nextCursor: string | null }> {
  const r = await cursorPage(ctx, workspaceId, filter, limit, cursor, "rows");
  return { contacts: r.rows.map((row) => row.c), nextCursor: r.nextCursor };
}

/**
 * `listContactsPage` with the page as JSON text, for responses that embed it as it is (GET
 * /api/v1/contacts): `json` is a JSON array of the contacts as `toContactJson` gives them, written
 * from the driver's values on the plain filters (crm.queries selectContactsPage "json"), by
 * `JSON.stringify` on searches and tags. Same arguments, cursors and errors as `listContactsPage`.
 */
export async function listContactsPageJson(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  filter: SegmentFilter,
  limit: number,
  cursor?: string,
): Promise<{ json: RawJson<ContactJson[]>; nextCursor: string | null }> {
  const r = await cursorPage(ctx, workspaceId, filter, limit, cursor, "json");
  return { json: rawJsonArray(r.rows.map(jsonTextOf)), nextCursor: r.nextCursor };
}

/** listContactsPage's work, its rows in `form` on the plain filters (no search, no tag). */
async function cursorPage<F extends PageForm>(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  filter: SegmentFilter,
  limit: number,
  cursor: string | undefined,
  form: F,
): Promise<{ rows: (PageRowOf<F> | ContactPageRow)[]; nextCursor: string | null }> {
  const before = parseCursor(cursor);
  // no search and no tag: the prepared page statement of this shape (crm.queries selectContactsPage)
  const rows: (PageRowOf<F> | ContactPageRow)[] = plainFilter(filter)
    ? await selectContactsPage(
        ctx.db,
        workspaceId,
        { lifecycleStage: filter.lifecycle_stage, leadStatus: filter.lead_status },
        limit + 1,
        before ? { before } : { offset: 0 },
        form,
      )
    : await selectContactsBeforeCursor(
        ctx.db,
        contactWhere(workspaceId, filter),
        contactOrder(filter),
        limit + 1,
        before,
      );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    nextCursor:
      rows.length > limit && last ? encodeCursor([last.ts, "c" in last ? last.c.id : last.id]) : null,
  };
}
