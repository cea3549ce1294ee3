import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client";
import {
  type MediaEdit,
  type MediaItem,
  mediaEdits,
  mediaItems,
  mediaRenditions,
  type NewMediaItem,
} from "../../db/schema";

// The studio's SQL: media items, their renditions (stored files) and edits. Functions take the
// database (or a transaction) first; the rules that call them live in studio.service.ts,
// studio.pipeline.ts and studio.handlers.ts. Functions named `...OfWorkspace` filter by the tenant;
// the others address a row by id and are for jobs, which got the id from a tenant-checked service.

type NewRendition = typeof mediaRenditions.$inferInsert;
type NewMediaEdit = typeof mediaEdits.$inferInsert;
/** Columns of a media item a service or job may set. */
export type MediaItemPatch = Partial<Omit<NewMediaItem, "id" | "workspaceId">>;
/** Columns of an edit a service or job may set. */
export type MediaEditPatch = Partial<Omit<NewMediaEdit, "id" | "workspaceId" | "mediaId">>;

/** Inserts a media item; returns the row. */
export async function insertMediaItem(db: DbOrTx, values: NewMediaItem): Promise<MediaItem> {
  const [row] = await db.insert(mediaItems).values(values).returning();
  return row;
}

/** The media item with id `mediaId` (any workspace: for jobs), or undefined. */
export async function selectMediaItem(db: DbOrTx, mediaId: number): Promise<MediaItem | undefined> {
  const [row] = await db.select().from(mediaItems).where(eq(mediaItems.id, mediaId));
  return row;
}

/** The media item `mediaId` when it is `workspaceId`'s, else undefined. */
export async function selectMediaItemOfWorkspace(
  db: DbOrTx,
  workspaceId: string,
  mediaId: number,
): Promise<MediaItem | undefined> {
  const [row] = await db
    .select()
    .from(mediaItems)
    .where(and(eq(mediaItems.id, mediaId), eq(mediaItems.workspaceId, workspaceId)));
  return row;
}

/** Every media item of `workspaceId`, newest first (created_at, then id). */
export async function selectMediaItemsOfWorkspace(db: DbOrTx, workspaceId: string): Promise<MediaItem[]> {
  return db
    .select()
    .from(mediaItems)
    .where(eq(mediaItems.workspaceId, workspaceId))
    .orderBy(desc(mediaItems.createdAt), desc(mediaItems.id));
}

/**
 * A keyset page of `workspaceId`'s media items, newest first (created_at desc, id desc): `limit` rows
 * after `(ts, id)`, `ts` being the previous page's last `created_at::text` (microseconds and offset
 * kept, so rows created in the same millisecond are neither skipped nor repeated). Each row carries
 * its own `ts`. Served by media_items_ws_created_id_idx (workspace_id, created_at, id).
 */
export async function selectMediaItemsPageOfWorkspace(
  db: DbOrTx,
  workspaceId: string,
  limit: number,
  after?: { ts: string; id: number },
): Promise<{ m: MediaItem; ts: string }[]> {
  return db
    .select({ m: mediaItems, ts: sql<string>`${mediaItems.createdAt}::text` })
    .from(mediaItems)
    .where(
      and(
        eq(mediaItems.workspaceId, workspaceId),
        after
          ? sql`(${mediaItems.createdAt}, ${mediaItems.id}) < (${after.ts}::timestamptz, ${after.id}::bigint)`
          : undefined,
      ),
    )
    .orderBy(desc(mediaItems.createdAt), desc(mediaItems.id))
    .limit(limit);
}

/** Finished (`done`) edits per media item of `workspaceId`: `[{mediaId, n}]`, one grouped query. */
export async function countDoneEditsOfWorkspace(
  db: DbOrTx,
  workspaceId: string,
): Promise<{ mediaId: number; n: number }[]> {
  return db
    .select({ mediaId: mediaEdits.mediaId, n: sql<number>`count(*)::int` })
    .from(mediaEdits)
    .where(and(eq(mediaEdits.workspaceId, workspaceId), eq(mediaEdits.status, "done")))
    .groupBy(mediaEdits.mediaId);
}

/**
 * Sets columns of media item `mediaId`; `opts.workspaceId` also requires the tenant, `opts.version`
 * only updates while the item is still at that version (a newer render wins), `opts.bumpVersion`
 * adds 1 to `version`. Returns the updated row, or undefined when none matched.
 */
export async function updateMediaItem(
  db: DbOrTx,
  mediaId: number,
  set: MediaItemPatch,
  opts: { workspaceId?: string; version?: number; bumpVersion?: boolean } = {},
): Promise<MediaItem | undefined> {
  const where: SQL[] = [eq(mediaItems.id, mediaId)];
  if (opts.workspaceId !== undefined) where.push(eq(mediaItems.workspaceId, opts.workspaceId));
  if (opts.version !== undefined) where.push(eq(mediaItems.version, opts.version));
  const [row] = await db
    .update(mediaItems)
    .set(opts.bumpVersion ? { ...set, version: sql`${mediaItems.version} + 1` } : set)
    .where(and(...where))
    .returning();
  return row;
}

/**
 * Deletes media item `mediaId` (its renditions and edits go with it: foreign keys cascade);
 * `workspaceId` also requires the tenant.
 */
export async function deleteMediaItem(db: DbOrTx, mediaId: number, workspaceId?: string): Promise<void> {
  await db
    .delete(mediaItems)
    .where(
      workspaceId === undefined
        ? eq(mediaItems.id, mediaId)
        : and(eq(mediaItems.id, mediaId), eq(mediaItems.workspaceId, workspaceId)),
    );
}

/** Records a stored file of a media item (a rendition row). */
export async function insertRendition(db: DbOrTx, values: NewRendition): Promise<void> {
  await db.insert(mediaRenditions).values(values);
}

/** Records a stored file of a media item, or updates size and type when its storage key is known. */
export async function upsertRendition(db: DbOrTx, values: NewRendition): Promise<void> {
  await db
    .insert(mediaRenditions)
    .values(values)
    .onConflictDoUpdate({
      target: mediaRenditions.storageKey,
      set: { sizeBytes: values.sizeBytes, mimeType: values.mimeType },
    });
}

/** The `original` and `playback` renditions of media item `mediaId`. */
export async function selectBaseRenditions(db: DbOrTx, mediaId: number) {
  return db
    .select()
    .from(mediaRenditions)
    .where(
      and(eq(mediaRenditions.mediaId, mediaId), inArray(mediaRenditions.kind, ["original", "playback"])),
    );
}

/** Size (bytes) of each edit's rendition of media item `mediaId`: `[{editId, size}]`. */
export async function selectEditRenditionSizes(db: DbOrTx, mediaId: number) {
  return db
    .select({ editId: mediaRenditions.editId, size: mediaRenditions.sizeBytes })
    .from(mediaRenditions)
    .where(and(eq(mediaRenditions.mediaId, mediaId), eq(mediaRenditions.kind, "edit")));
}

/** The storage key of media item `mediaId`'s original upload, or null. */
export async function selectOriginalKey(db: DbOrTx, mediaId: number): Promise<string | null> {
  const [r] = await db
    .select({ key: mediaRenditions.storageKey })
    .from(mediaRenditions)
    .where(and(eq(mediaRenditions.mediaId, mediaId), eq(mediaRenditions.kind, "original")));
  return r?.key ?? null;
}

/** The finished (`done`) edits of media item `mediaId`, oldest first. */
export async function selectDoneEdits(db: DbOrTx, mediaId: number): Promise<MediaEdit[]> {
  return db
    .select()
    .from(mediaEdits)
    .where(and(eq(mediaEdits.mediaId, mediaId), eq(mediaEdits.status, "done")))
    .orderBy(asc(mediaEdits.createdAt), asc(mediaEdits.id));
}

/**
 * The id of an edit of media item `mediaId` still in the render queue or rendering (`queued` or
 * `rendering`) that started, or was queued while not started yet, after `since`; or undefined. An
 * older one is stale (its job or worker is gone) and blocks nothing.
 */
export async function selectActiveEditSince(
  db: DbOrTx,
  mediaId: number,
  since: Date,
): Promise<number | undefined> {
  const [row] = await db
    .select({ id: mediaEdits.id })
    .from(mediaEdits)
    .where(
      and(
        eq(mediaEdits.mediaId, mediaId),
        inArray(mediaEdits.status, ["queued", "rendering"]),
        sql`coalesce(${mediaEdits.startedAt}, ${mediaEdits.createdAt}) > ${since.toISOString()}::timestamptz`,
      ),
    )
    .limit(1);
  return row?.id;
}

/**
 * Inserts the edit `values` unless another edit of the same media item is active
 * (`selectActiveEditSince(since)`), in one transaction that first locks the media item's row: of
 * concurrent requests for one item only one inserts. Returns the new row, or undefined when an edit
 * is active (nothing inserted).
 */
export async function insertMediaEditIfIdle(
  db: Db,
  values: NewMediaEdit,
  since: Date,
): Promise<MediaEdit | undefined> {
  return db.transaction(async (tx) => {
    await tx
      .select({ id: mediaItems.id })
      .from(mediaItems)
      .where(eq(mediaItems.id, values.mediaId))
      .for("update");
    if (await selectActiveEditSince(tx, values.mediaId, since)) return undefined;
    return insertMediaEdit(tx, values);
  });
}

/** Inserts an edit; returns the row. */
export async function insertMediaEdit(db: DbOrTx, values: NewMediaEdit): Promise<MediaEdit> {
  const [row] = await db.insert(mediaEdits).values(values).returning();
  return row;
}

/** The edit with id `editId` (any workspace: for jobs), or undefined. */
export async function selectMediaEdit(db: DbOrTx, editId: number): Promise<MediaEdit | undefined> {
  const [row] = await db.select().from(mediaEdits).where(eq(mediaEdits.id, editId));
  return row;
}

/** The edit `editId` when it is `workspaceId`'s, else undefined. */
export async function selectMediaEditOfWorkspace(
  db: DbOrTx,
  workspaceId: string,
  editId: number,
): Promise<MediaEdit | undefined> {
  const [row] = await db
    .select()
    .from(mediaEdits)
    .where(and(eq(mediaEdits.id, editId), eq(mediaEdits.workspaceId, workspaceId)));
  return row;
}

/** Sets columns of edit `editId`; with `onlyIfStatus`, only while the edit has that status. */
export async function updateMediaEdit(
  db: DbOrTx,
  editId: number,
  set: MediaEditPatch,
  onlyIfStatus?: MediaEdit["status"],
): Promise<void> {
  await db
    .update(mediaEdits)
    .set(set)
    .where(
      onlyIfStatus === undefined
        ? eq(mediaEdits.id, editId)
        : and(eq(mediaEdits.id, editId), eq(mediaEdits.status, onlyIfStatus)),
    );
}

/**
 * A finished render in one transaction: edit `editId` gets `editSet` (done, its output) and media
 * item `mediaId` gets `itemSet` with version + 1 (it now plays the edit's rendition).
 */
export async function completeRender(
  db: Db,
  editId: number,
  editSet: MediaEditPatch,
  mediaId: number,
  itemSet: MediaItemPatch,
): Promise<void> {
  await db.transaction(async (tx) => {
    await updateMediaEdit(tx, editId, editSet);
    await updateMediaItem(tx, mediaId, itemSet, { bumpVersion: true });
  });
}
