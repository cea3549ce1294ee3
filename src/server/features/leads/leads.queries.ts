import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { leadResults, leadSavedSearches, leadSearches } from "../../db/schema";

export type LeadSearchRow = typeof leadSearches.$inferSelect;

export async function insertSearch(db: DbOrTx, row: typeof leadSearches.$inferInsert) {
  const [r] = await db.insert(leadSearches).values(row).returning();
  return r;
}

export async function updateSearch(
  db: DbOrTx,
  workspaceId: string,
  id: string,
  set: Partial<typeof leadSearches.$inferInsert>,
) {
  await db
    .update(leadSearches)
    .set(set)
    .where(and(eq(leadSearches.workspaceId, workspaceId), eq(leadSearches.id, id)));
}

export async function findSearch(db: DbOrTx, workspaceId: string, id: string) {
  const [r] = await db
    .select()
    .from(leadSearches)
    .where(and(eq(leadSearches.workspaceId, workspaceId), eq(leadSearches.id, id)));
  return r ?? null;
}

/** Stores a search's results (one jsonb parameter per 2,000 rows). */
export async function insertResults(
  db: DbOrTx,
  searchId: string,
  rows: { placeId: string; data: Record<string, unknown>; isNew: boolean }[],
) {
  for (let i = 0; i < rows.length; i += 2000) {
    const chunk = rows.slice(i, i + 2000).map((r, k) => ({ p: r.placeId, n: i + k, d: r.data, x: r.isNew }));
    await db.execute(sql`
      insert into lead_results (search_id, place_id, position, data, is_new)
      select ${searchId}::uuid, v.p, v.n, v.d, v.x
      from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as v(p text, n int, d jsonb, x boolean)
      on conflict do nothing`);
  }
}

export async function listResults(db: DbOrTx, searchId: string, placeIds?: string[]) {
  return db
    .select()
    .from(leadResults)
    .where(
      placeIds
        ? and(
            eq(leadResults.searchId, searchId),
            sql`${leadResults.placeId} = any(array(select jsonb_array_elements_text(${JSON.stringify(placeIds)}::jsonb)))`,
          )
        : eq(leadResults.searchId, searchId),
    )
    .orderBy(asc(leadResults.position));
}

export async function listSaved(db: DbOrTx, workspaceId: string) {
  return db
    .select()
    .from(leadSavedSearches)
    .where(eq(leadSavedSearches.workspaceId, workspaceId))
    .orderBy(desc(leadSavedSearches.createdAt));
}

export async function findSaved(db: DbOrTx, workspaceId: string, id: string) {
  const [r] = await db
    .select()
    .from(leadSavedSearches)
    .where(and(eq(leadSavedSearches.workspaceId, workspaceId), eq(leadSavedSearches.id, id)));
  return r ?? null;
}

export async function insertSaved(db: DbOrTx, row: typeof leadSavedSearches.$inferInsert) {
  const [r] = await db.insert(leadSavedSearches).values(row).returning();
  return r;
}

export async function updateSaved(
  db: DbOrTx,
  workspaceId: string,
  id: string,
  set: Partial<typeof leadSavedSearches.$inferInsert>,
) {
  await db
    .update(leadSavedSearches)
    .set(set)
    .where(and(eq(leadSavedSearches.workspaceId, workspaceId), eq(leadSavedSearches.id, id)));
}

export async function deleteSaved(db: DbOrTx, workspaceId: string, id: string): Promise<boolean> {
  const r = await db
    .delete(leadSavedSearches)
    .where(and(eq(leadSavedSearches.workspaceId, workspaceId), eq(leadSavedSearches.id, id)))
    .returning({ id: leadSavedSearches.id });
  return r.length > 0;
}

/** A search by id alone: for the worker's jobs, which carry ids they were given by the service. */
export async function findSearchById(db: DbOrTx, id: string) {
  const [r] = await db.select().from(leadSearches).where(eq(leadSearches.id, id));
  return r ?? null;
}

/** One page of a search's results in result order. */
export async function listResultsPage(
  db: DbOrTx,
  searchId: string,
  offset: number,
  limit: number,
  /** keyset: only results after this position (then `offset` counts from there) */
  afterPosition?: number,
) {
  return db
    .select()
    .from(leadResults)
    .where(
      and(
        eq(leadResults.searchId, searchId),
        afterPosition !== undefined ? gt(leadResults.position, afterPosition) : undefined,
      ),
    )
    .orderBy(asc(leadResults.position))
    .offset(offset)
    .limit(limit);
}

export async function updateResultData(
  db: DbOrTx,
  searchId: string,
  placeId: string,
  data: Record<string, unknown>,
) {
  await db
    .update(leadResults)
    .set({ data })
    .where(and(eq(leadResults.searchId, searchId), eq(leadResults.placeId, placeId)));
}

/**
 * Marks stored results as being in the workspace's contacts (`data.in_contacts = true`, the card's
 * badge), e.g. once they were added. Purged results (place id only) are left alone.
 */
export async function markResultsInContacts(db: DbOrTx, searchId: string, placeIds: string[]) {
  if (!placeIds.length) return;
  await db
    .update(leadResults)
    .set({ data: sql`jsonb_set(${leadResults.data}, '{in_contacts}', 'true'::jsonb)` })
    .where(
      and(
        eq(leadResults.searchId, searchId),
        sql`${leadResults.placeId} = any(array(select jsonb_array_elements_text(${JSON.stringify(placeIds)}::jsonb)))`,
        sql`not coalesce((${leadResults.data}->>'purged')::boolean, false)`,
      ),
    );
}

export async function deleteResults(db: DbOrTx, searchId: string, placeIds: string[]) {
  if (!placeIds.length) return;
  await db
    .delete(leadResults)
    .where(
      and(
        eq(leadResults.searchId, searchId),
        sql`${leadResults.placeId} = any(array(select jsonb_array_elements_text(${JSON.stringify(placeIds)}::jsonb)))`,
      ),
    );
}

/**
 * Keeps only the place id of each result of a search (Google's terms: place ids may be stored
 * indefinitely, other Places content not beyond the allowed period) and stamps the search purged.
 * Returns the number of results rewritten.
 */
export async function purgeSearchContent(db: DbOrTx, searchId: string): Promise<number> {
  const r = await db.execute(sql`
    update lead_results set data = jsonb_build_object('place_id', place_id, 'purged', true)
    where search_id = ${searchId}::uuid and not (data ? 'purged')`);
  await db.execute(
    sql`update lead_searches set content_purged_at = now() where id = ${searchId}::uuid and content_purged_at is null`,
  );
  return (r as unknown as { count?: number }).count ?? 0;
}

/** Google searches finished before `before` whose content is not purged yet (oldest first). */
export async function expiredGoogleSearches(db: DbOrTx, before: Date, limit: number) {
  return db
    .select({ id: leadSearches.id })
    .from(leadSearches)
    .where(
      and(
        eq(leadSearches.provider, "google"),
        sql`${leadSearches.contentPurgedAt} is null`,
        sql`${leadSearches.finishedAt} < ${before.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(leadSearches.finishedAt))
    .limit(limit);
}
