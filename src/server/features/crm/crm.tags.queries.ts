import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ADVISORY_LOCK, advisoryXactLock } from "../../db/locks";
import { contacts, contactTags, type SegmentFilter, segments, tags } from "../../db/schema";

// SQL of tags, contact-tag links and saved segments (lists). Rules: crm.tags.ts.

/**
 * In the transaction `tx`: takes the workspace's tag-creation lock (transaction-scoped advisory
 * lock), then returns how many tags the workspace has, counted after the lock was granted, so a
 * count checked here and the insert that follows cannot pass a limit together with a concurrent
 * creation's.
 */
export async function lockTagCreation(tx: DbOrTx, workspaceId: string): Promise<number> {
  await advisoryXactLock(tx, ADVISORY_LOCK.tagCreation, workspaceId);
  // a statement of its own: its snapshot is taken after the lock was granted
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(tags)
    .where(eq(tags.workspaceId, workspaceId));
  return row?.n ?? 0;
}

/** lockTagCreation for saved segments: the workspace's segment-creation lock, then its segment count. */
export async function lockSegmentCreation(tx: DbOrTx, workspaceId: string): Promise<number> {
  await advisoryXactLock(tx, ADVISORY_LOCK.segmentCreation, workspaceId);
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(segments)
    .where(eq(segments.workspaceId, workspaceId));
  return row?.n ?? 0;
}

/** True when `workspaceId` has a tag named `name` (case-insensitive, as the unique index compares). */
export async function tagNameExists(db: DbOrTx, workspaceId: string, name: string): Promise<boolean> {
  const [row] = await db
    .select({ id: tags.id })
    .from(tags)
    .where(and(eq(tags.workspaceId, workspaceId), sql`lower(${tags.name}) = lower(${name})`));
  return !!row;
}

/** Tags of `workspaceId` with how many contacts carry each: `{id, name, color, contact_count}` by name. */
export async function selectTagsWithCounts(db: DbOrTx, workspaceId: string) {
  return db
    .select({
      id: tags.id,
      name: tags.name,
      color: tags.color,
      contact_count: sql<number>`(select count(*)::int from contact_tags ct where ct.tag_id = ${tags.id})`,
    })
    .from(tags)
    .where(eq(tags.workspaceId, workspaceId))
    .orderBy(tags.name);
}

/**
 * A keyset page of `selectTagsWithCounts`: by name then id, `limit` tags after `(name, id)`
 * (the previous page's last tag; the comparison uses the column's collation, as the order does).
 */
export async function selectTagsPage(
  db: DbOrTx,
  workspaceId: string,
  limit: number,
  after?: { name: string; id: number },
) {
  return db
    .select({
      id: tags.id,
      name: tags.name,
      color: tags.color,
      contact_count: sql<number>`(select count(*)::int from contact_tags ct where ct.tag_id = ${tags.id})`,
    })
    .from(tags)
    .where(
      and(
        eq(tags.workspaceId, workspaceId),
        after ? sql`(${tags.name}, ${tags.id}) > (${after.name}::text, ${after.id}::bigint)` : undefined,
      ),
    )
    .orderBy(tags.name, tags.id)
    .limit(limit);
}

/** Deletes a tag of `workspaceId` (its contact links go with it, ON DELETE CASCADE); true when one was deleted. */
export async function deleteTagRow(db: DbOrTx, workspaceId: string, id: number): Promise<boolean> {
  const rows = await db
    .delete(tags)
    .where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, id)))
    .returning({ id: tags.id });
  return rows.length > 0;
}

/** True when `tagId` is a tag of `workspaceId`. */
export async function tagExists(db: DbOrTx, workspaceId: string, tagId: number): Promise<boolean> {
  const [tag] = await db
    .select({ id: tags.id })
    .from(tags)
    .where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, tagId)));
  return !!tag;
}

/**
 * In the transaction `tx`: locks tag `tagId` of `workspaceId` until `tx` ends and says whether it
 * exists. `mode` "share" is taken by a segment saved or re-filtered on the tag (several at once),
 * "update" by the tag's deletion: the two wait for each other, so a deletion's check that no segment
 * uses the tag sees every segment saved on it, and a segment's save never stores a tag deleted
 * meanwhile (the locked read finds no row once the deletion committed).
 */
export async function lockTagRow(
  tx: DbOrTx,
  workspaceId: string,
  tagId: number,
  mode: "share" | "update",
): Promise<boolean> {
  const rows = await tx.execute<{ id: string }>(sql`
    select id from tags where workspace_id = ${workspaceId} and id = ${tagId}
    for ${sql.raw(mode === "share" ? "share" : "update")}`);
  return rows.length > 0;
}

/** Inserts a tag and returns it. Throws the driver's unique violation (23505) on a taken name. */
export async function insertTag(db: DbOrTx, workspaceId: string, name: string, color: string) {
  const [row] = await db.insert(tags).values({ workspaceId, name, color }).returning();
  return row;
}

/** Creates the tag `name` of `workspaceId` (case-insensitive name) unless it exists. */
export async function ensureTag(db: DbOrTx, workspaceId: string, name: string, color: string): Promise<void> {
  await db.execute(sql`
    insert into tags (workspace_id, name, color) values (${workspaceId}, ${name}, ${color})
    on conflict (workspace_id, lower(name)) do nothing`);
}

/**
 * Links the tag named `name` (case-insensitive) of `workspaceId` to each of `contactIds` that is still
 * a contact of the workspace (existing links kept). The contacts are locked (FOR KEY SHARE) as they
 * are read, so one deleted meanwhile by another request is left out instead of failing the insert on
 * the contacts foreign key.
 */
export async function tagContactsByTagName(
  db: DbOrTx,
  workspaceId: string,
  name: string,
  contactIds: number[],
): Promise<void> {
  await db.execute(sql`
    insert into contact_tags (contact_id, tag_id)
    select c.id, (select id from tags where workspace_id = ${workspaceId} and lower(name) = lower(${name}))
    from contacts c
    where c.workspace_id = ${workspaceId}
      and c.id = any(array(select jsonb_array_elements_text(${JSON.stringify(contactIds)}::jsonb)::bigint))
    for key share of c
    on conflict do nothing`);
}

/** Tags of the given contacts as `{contact_id, id, tag_name, tag_color}`, by tag name. */
export async function selectTagsOfContacts(db: DbOrTx, workspaceId: string, contactIds: number[]) {
  return db
    .select({ contact_id: contactTags.contactId, id: tags.id, tag_name: tags.name, tag_color: tags.color })
    .from(contactTags)
    .innerJoin(tags, eq(tags.id, contactTags.tagId))
    .where(and(eq(tags.workspaceId, workspaceId), inArray(contactTags.contactId, contactIds)))
    .orderBy(tags.name);
}

/**
 * Links `tagId` to every contact matching `target` in one set-based statement; returns how many
 * contacts matched (those already carrying the tag count too).
 */
export async function tagContactsWhere(db: DbOrTx, target: SQL, tagId: number): Promise<number> {
  const matched = await db.execute<{ n: string }>(sql`
    with target as (select ${contacts.id} as id from ${contacts} where ${target}),
    ins as (
      insert into contact_tags (contact_id, tag_id) select id, ${tagId} from target
      on conflict do nothing returning 1
    )
    select count(*)::text as n from target`);
  return Number(matched[0]?.n ?? 0);
}

/**
 * tagContactsWhere that also returns the ids of the contacts that newly got the tag (not those
 * already carrying it): `{matched, tagged}`.
 */
export async function tagContactsWhereReturningIds(
  db: DbOrTx,
  target: SQL,
  tagId: number,
): Promise<{ matched: number; tagged: number[] }> {
  const rows = await db.execute<{ n: string; ids: (string | number)[] }>(sql`
    with target as (select ${contacts.id} as id from ${contacts} where ${target}),
    ins as (
      insert into contact_tags (contact_id, tag_id) select id, ${tagId} from target
      on conflict do nothing returning contact_id
    )
    select (select count(*) from target)::text as n,
      coalesce((select array_agg(contact_id order by contact_id) from ins), '{}') as ids`);
  return { matched: Number(rows[0]?.n ?? 0), tagged: (rows[0]?.ids ?? []).map(Number) };
}

/** Removes `tagId` from every contact matching `target`; returns the ids of the contacts untagged. */
export async function untagContactsWhere(db: DbOrTx, target: SQL, tagId: number): Promise<number[]> {
  const rows = await db
    .delete(contactTags)
    .where(
      and(
        eq(contactTags.tagId, tagId),
        sql`${contactTags.contactId} in (select ${contacts.id} from ${contacts} where ${target})`,
      ),
    )
    .returning({ id: contactTags.contactId });
  return rows.map((r) => r.id);
}

/** Saved segments of `workspaceId`, by name. */
export async function selectSegments(db: DbOrTx, workspaceId: string) {
  return db.select().from(segments).where(eq(segments.workspaceId, workspaceId)).orderBy(segments.name);
}

/** A keyset page of `selectSegments`: by name then id, `limit` segments after `(name, id)`. */
export async function selectSegmentsPage(
  db: DbOrTx,
  workspaceId: string,
  limit: number,
  after?: { name: string; id: number },
) {
  return db
    .select()
    .from(segments)
    .where(
      and(
        eq(segments.workspaceId, workspaceId),
        after
          ? sql`(${segments.name}, ${segments.id}) > (${after.name}::text, ${after.id}::bigint)`
          : undefined,
      ),
    )
    .orderBy(segments.name, segments.id)
    .limit(limit);
}

/** One saved segment of `workspaceId`, or undefined. */
export async function selectSegment(db: DbOrTx, workspaceId: string, id: number) {
  const [seg] = await db
    .select()
    .from(segments)
    .where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id)));
  return seg;
}

/** Inserts a segment and returns it. Throws the driver's unique violation (23505) on a taken name. */
export async function insertSegment(db: DbOrTx, workspaceId: string, name: string, filter: SegmentFilter) {
  const [row] = await db.insert(segments).values({ workspaceId, name, filter }).returning();
  return row;
}

/**
 * Sets a segment's name and, when given, its filter; returns the row, or undefined when not the
 * workspace's. Throws 23505 on a taken name.
 */
export async function updateSegmentRow(
  db: DbOrTx,
  workspaceId: string,
  id: number,
  values: { name: string; filter?: SegmentFilter },
) {
  const [row] = await db
    .update(segments)
    .set(values)
    .where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id)))
    .returning();
  return row;
}

/** Deletes a segment of `workspaceId`; true when one was deleted. */
export async function deleteSegmentRow(db: DbOrTx, workspaceId: string, id: number): Promise<boolean> {
  const rows = await db
    .delete(segments)
    .where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id)))
    .returning({ id: segments.id });
  return rows.length > 0;
}
