import { and, desc, eq, inArray, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client";
import { ADVISORY_LOCK, advisoryXactLock } from "../../db/locks";
import { type AvatarProviderName, type AvatarVideo, avatarVideos } from "../../db/schema/avatar";

/** The avatar feature's SQL (avatar_videos); rules live in avatar.service.ts and avatar.handlers.ts. */

type AvatarVideoPatch = Partial<typeof avatarVideos.$inferInsert>;

/** How many of the workspace's avatar videos are created or processing. */
export async function countInProgress(db: DbOrTx, workspaceId: string): Promise<number> {
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(avatarVideos)
    .where(
      and(eq(avatarVideos.workspaceId, workspaceId), inArray(avatarVideos.status, ["created", "processing"])),
    );
  return n;
}

/** Inserts an avatar video row; returns it. */
export async function insertAvatarVideo(
  db: DbOrTx,
  values: typeof avatarVideos.$inferInsert,
): Promise<AvatarVideo> {
  const [row] = await db.insert(avatarVideos).values(values).returning();
  return row;
}

/**
 * Inserts the avatar video `values` of `values.workspaceId` unless the workspace already has `cap` or
 * more created or processing (countInProgress). Count and insert run in one transaction after the
 * workspace's avatar-start advisory lock, so concurrent requests cannot all see a count under the cap.
 * Returns the row, or `{ inProgress }` (nothing inserted) at the cap.
 */
export async function insertAvatarVideoWithinCap(
  db: Db,
  values: typeof avatarVideos.$inferInsert & { workspaceId: string },
  cap: number,
): Promise<{ row: AvatarVideo } | { inProgress: number }> {
  return db.transaction(async (tx) => {
    await advisoryXactLock(tx, ADVISORY_LOCK.avatarStart, values.workspaceId);
    // a statement of its own: its snapshot is taken after the lock was granted
    const n = await countInProgress(tx, values.workspaceId);
    if (n >= cap) return { inProgress: n };
    return { row: await insertAvatarVideo(tx, values) };
  });
}

/** Inserts a demo request's video unless that request has one already (then undefined). */
export async function insertDemoAvatarVideo(
  db: DbOrTx,
  values: typeof avatarVideos.$inferInsert,
): Promise<AvatarVideo | undefined> {
  const [row] = await db
    .insert(avatarVideos)
    .values(values)
    .onConflictDoNothing({ target: avatarVideos.demoRequestId })
    .returning();
  return row;
}

/** Applies `patch` to one video; returns the updated row (undefined when absent). */
export async function updateAvatarVideo(
  db: DbOrTx,
  id: string,
  patch: AvatarVideoPatch,
): Promise<AvatarVideo | undefined> {
  const [row] = await db.update(avatarVideos).set(patch).where(eq(avatarVideos.id, id)).returning();
  return row;
}

/**
 * Compare-and-set on `attempts`: applies `patch` and `attempts + 1` only while the row still has
 * `attempts`. Returns false when another worker got there first.
 */
export async function claimAttempt(
  db: DbOrTx,
  id: string,
  attempts: number,
  patch: AvatarVideoPatch,
): Promise<boolean> {
  const updated = await db
    .update(avatarVideos)
    .set({ ...patch, attempts: attempts + 1, updatedAt: new Date() })
    .where(and(eq(avatarVideos.id, id), eq(avatarVideos.attempts, attempts)))
    .returning({ id: avatarVideos.id });
  return updated.length === 1;
}

/** Marks a video that is still created/processing as failed with `message`; undefined when it was not. */
export async function failIfInProgress(
  db: DbOrTx,
  id: string,
  message: string,
): Promise<AvatarVideo | undefined> {
  const [row] = await db
    .update(avatarVideos)
    .set({ status: "error", error: message, updatedAt: new Date() })
    .where(and(eq(avatarVideos.id, id), inArray(avatarVideos.status, ["created", "processing"])))
    .returning();
  return row;
}

/** One video by id (any workspace, or a demo video): for the worker. */
export async function getById(db: DbOrTx, id: string): Promise<AvatarVideo | undefined> {
  const [row] = await db.select().from(avatarVideos).where(eq(avatarVideos.id, id));
  return row;
}

/** One video of the workspace by id. */
export async function getOwned(
  db: DbOrTx,
  workspaceId: string,
  id: string,
): Promise<AvatarVideo | undefined> {
  const [row] = await db
    .select()
    .from(avatarVideos)
    .where(and(eq(avatarVideos.id, id), eq(avatarVideos.workspaceId, workspaceId)));
  return row;
}

/**
 * One video of the workspace and provider by Pitchwise id (when `videoId` is a uuid) or by the
 * vendor's id.
 */
export async function findByAnyId(
  db: DbOrTx,
  workspaceId: string,
  provider: AvatarProviderName,
  videoId: string,
  isUuid: boolean,
): Promise<AvatarVideo | undefined> {
  const idMatch = isUuid
    ? or(eq(avatarVideos.id, videoId), eq(avatarVideos.vendorVideoId, videoId))
    : eq(avatarVideos.vendorVideoId, videoId);
  const [row] = await db
    .select()
    .from(avatarVideos)
    .where(and(eq(avatarVideos.workspaceId, workspaceId), eq(avatarVideos.provider, provider), idMatch))
    .limit(1);
  return row;
}

/** The workspace's videos, newest first, at most `limit`. */
export async function listNewest(db: DbOrTx, workspaceId: string, limit: number): Promise<AvatarVideo[]> {
  return db
    .select()
    .from(avatarVideos)
    .where(eq(avatarVideos.workspaceId, workspaceId))
    .orderBy(desc(avatarVideos.createdAt))
    .limit(limit);
}

/** The video of a landing-page demo request. */
export async function getByDemoRequest(db: DbOrTx, demoRequestId: number): Promise<AvatarVideo | undefined> {
  const [row] = await db.select().from(avatarVideos).where(eq(avatarVideos.demoRequestId, demoRequestId));
  return row;
}

/** A video by its public token. */
export async function getByPublicToken(db: DbOrTx, token: string): Promise<AvatarVideo | undefined> {
  const [row] = await db.select().from(avatarVideos).where(eq(avatarVideos.publicToken, token));
  return row;
}
