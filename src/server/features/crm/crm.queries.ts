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
 * WHERE clause of a contact filter, always scoped to `workspaceId`. `search` matches a substring of the
 * name, email, company or phones (`search_text LIKE %term%`, lower-cased, served by the trigram GIN
 * index, or for contacts a CSV import created and its follow-up job has not indexed yet
 * (`search_indexed` false), by the pending index on workspace_id). Typos are handled before this, by correcting the term (crm.service listContacts).
 */
export function contactWhere(workspaceId: string, filter: SegmentFilter = {}): SQL {
  const parts: SQL[] = [eq(contacts.workspaceId, workspaceId)];
  const term = normaliseSearch(filter.search);
  if (term) {
    const pattern = `%${escapeLike(term)}%`;
    // two arms Postgres answers with a BitmapOr: contacts in the (partial) trigram index, and a
    // CSV import's contacts its follow-up job has not indexed yet (partial btree on workspace_id)
    parts.push(
      sql`((${contacts.searchIndexed} and ${contacts.searchText} like ${pattern}) or (not ${contacts.searchIndexed} and ${contacts.workspaceId} = ${workspaceId} and ${contacts.searchText} like ${pattern}))`,
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

/**
 * ORDER BY: newest first by id (`id desc`). The id is unique (no ties, so keyset pages never skip
 * or repeat a row) and follows creation order (an identity column), unlike created_at, which every
 * contact of one import shares. Each list shape has an index ending in id, so page 1 is a backward
 * index scan that stops after one page: (workspace_id, id), (workspace_id, lifecycle_stage, id),
 * (workspace_id, lead_status, id).
 */
export function contactOrder(_filter: SegmentFilter = {}): SQL[] {
  return [sql`${contacts.id} desc`];
}
