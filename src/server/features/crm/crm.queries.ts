import { and, eq, type SQL, sql } from "drizzle-orm";
import { contacts, type SegmentFilter } from "../../db/schema";

/** Minimum characters for which the search uses pg_trgm (trigrams need 3). */
export const TRGM_MIN = 3;

/** Escapes LIKE wildcards so user text matches literally. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Normalises a search term: trimmed, lower-cased, at most 100 characters. */
export function normaliseSearch(search: string | undefined | null): string {
  return (search ?? "").trim().toLowerCase().slice(0, 100);
}

/**
 * WHERE clause of a contact filter, always scoped to `userId`. Search matches a substring of the
 * name, email, company or phone (`search_text ILIKE %term%`) or, for 3+ characters, a typo within a
 * word (pg_trgm `<%` word similarity); both are served by the trigram GIN index.
 */
export function contactWhere(userId: string, filter: SegmentFilter = {}): SQL {
  const parts: SQL[] = [eq(contacts.userId, userId)];
  const term = normaliseSearch(filter.search);
  if (term) {
    const like = `%${escapeLike(term)}%`;
    parts.push(
      term.length >= TRGM_MIN
        ? sql`(${contacts.searchText} like ${like} or ${term} <% ${contacts.searchText})`
        : sql`${contacts.searchText} like ${like}`,
    );
  }
  if (filter.lifecycle_stage) parts.push(eq(contacts.lifecycleStage, filter.lifecycle_stage));
  if (filter.lead_status) parts.push(eq(contacts.leadStatus, filter.lead_status));
  if (filter.tag_id != null)
    parts.push(
      sql`exists (select 1 from contact_tags ct where ct.contact_id = ${contacts.id} and ct.tag_id = ${filter.tag_id})`,
    );
  return and(...parts) as SQL;
}

/** ORDER BY for a filter: best trigram match first when searching, else newest first (id desc). */
export function contactOrder(filter: SegmentFilter = {}): SQL[] {
  const term = normaliseSearch(filter.search);
  if (term.length >= TRGM_MIN) {
    return [
      sql`(${contacts.searchText} like ${`%${escapeLike(term)}%`}) desc`,
      sql`${term} <<-> ${contacts.searchText}`,
      sql`${contacts.id} desc`,
    ];
  }
  return [sql`${contacts.id} desc`];
}
