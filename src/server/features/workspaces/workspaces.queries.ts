import { and, asc, count, desc, eq, gt, gte, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ADVISORY_LOCK, advisoryXactLock, tryAdvisoryXactLockShared } from "../../db/locks";
import { prepared } from "../../db/prepared";
import {
  sessions,
  type WorkspaceRole,
  workspaceInvites,
  workspaceMembers,
  workspaces,
} from "../../db/schema";

/** All SQL of the workspaces feature (drizzle functions taking `db` first). */

export async function insertWorkspace(db: DbOrTx, values: typeof workspaces.$inferInsert) {
  const [row] = await db.insert(workspaces).values(values).returning();
  return row!;
}

export async function insertMember(
  db: DbOrTx,
  values: { workspaceId: string; userId: string; role: WorkspaceRole },
) {
  const [row] = await db.insert(workspaceMembers).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

export async function findWorkspace(db: DbOrTx, id: string) {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, id)).limit(1);
  return row ?? null;
}

/** The membership of `userId` in `workspaceId` with its workspace, or null when not a member. */
export async function findMembership(db: DbOrTx, workspaceId: string, userId: string) {
  const [row] = await db
    .select({ workspace: workspaces, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  return row ?? null;
}

/** The user's memberships: workspaces they own first, then by join time. */
export async function listMemberships(db: DbOrTx, userId: string) {
  // read by GET /api/auth/me on every page load: a prepared statement (db/prepared.ts)
  const q = prepared(db, "workspaces.memberships", (d) =>
    d
      .select({ workspace: workspaces, role: workspaceMembers.role, joinedAt: workspaceMembers.joinedAt })
      .from(workspaceMembers)
      .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      .where(eq(workspaceMembers.userId, sql.placeholder("userId")))
      .orderBy(sql`${workspaceMembers.role} = 'owner' desc`, asc(workspaceMembers.joinedAt))
      .prepare("workspaces_memberships"),
  );
  return q.execute({ userId });
}

export async function listMembers(db: DbOrTx, workspaceId: string) {
  return db
    .select()
    .from(workspaceMembers)
    .where(eq(workspaceMembers.workspaceId, workspaceId))
    .orderBy(asc(workspaceMembers.joinedAt));
}

export async function countMembers(db: DbOrTx, workspaceId: string) {
  const [row] = await db
    .select({ n: count() })
    .from(workspaceMembers)
    .where(eq(workspaceMembers.workspaceId, workspaceId));
  return row?.n ?? 0;
}

/** Pending (not accepted, not revoked, not expired) invites of a workspace, newest first. */
export async function listPendingInvites(db: DbOrTx, workspaceId: string, now = new Date()) {
  return db
    .select()
    .from(workspaceInvites)
    .where(
      and(
        eq(workspaceInvites.workspaceId, workspaceId),
        isNull(workspaceInvites.acceptedAt),
        isNull(workspaceInvites.revokedAt),
        gt(workspaceInvites.expiresAt, now),
      ),
    )
    .orderBy(desc(workspaceInvites.createdAt));
}

export async function insertInvite(db: DbOrTx, values: typeof workspaceInvites.$inferInsert) {
  const [row] = await db.insert(workspaceInvites).values(values).returning();
  return row!;
}

export async function findInviteByTokenHash(db: DbOrTx, tokenHash: string) {
  const [row] = await db
    .select({ invite: workspaceInvites, workspace: workspaces })
    .from(workspaceInvites)
    .innerJoin(workspaces, eq(workspaces.id, workspaceInvites.workspaceId))
    .where(eq(workspaceInvites.tokenHash, tokenHash))
    .limit(1);
  return row ?? null;
}

export async function findInvite(db: DbOrTx, workspaceId: string, inviteId: string) {
  const [row] = await db
    .select()
    .from(workspaceInvites)
    .where(and(eq(workspaceInvites.workspaceId, workspaceId), eq(workspaceInvites.id, inviteId)))
    .limit(1);
  return row ?? null;
}

export async function updateInvite(
  db: DbOrTx,
  id: string,
  values: Partial<typeof workspaceInvites.$inferInsert>,
) {
  const [row] = await db.update(workspaceInvites).set(values).where(eq(workspaceInvites.id, id)).returning();
  return row ?? null;
}

/**
 * Marks an invite accepted if it is still open (single use under concurrency: the conditional
 * UPDATE lets exactly one caller win). Returns the row, or null when it was not open.
 */
export async function claimInvite(db: DbOrTx, id: string, userId: string, now = new Date()) {
  const [row] = await db
    .update(workspaceInvites)
    .set({ acceptedAt: now, acceptedBy: userId })
    .where(
      and(
        eq(workspaceInvites.id, id),
        isNull(workspaceInvites.acceptedAt),
        isNull(workspaceInvites.revokedAt),
        gt(workspaceInvites.expiresAt, now),
      ),
    )
    .returning();
  return row ?? null;
}

export async function updateMemberRole(db: DbOrTx, workspaceId: string, userId: string, role: WorkspaceRole) {
  const [row] = await db
    .update(workspaceMembers)
    .set({ role })
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .returning();
  return row ?? null;
}

export async function deleteMember(db: DbOrTx, workspaceId: string, userId: string) {
  const [row] = await db
    .delete(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .returning();
  return row ?? null;
}

/** Points the user's sessions that were on `workspaceId` at nothing (they fall back on next request). */
export async function detachSessions(db: DbOrTx, workspaceId: string, userId: string) {
  await db
    .update(sessions)
    .set({ workspaceId: null })
    .where(and(eq(sessions.workspaceId, workspaceId), eq(sessions.userId, userId)));
}

export async function setSessionWorkspace(db: DbOrTx, sessionId: string, workspaceId: string | null) {
  await db.update(sessions).set({ workspaceId }).where(eq(sessions.id, sessionId));
}

export async function updateWorkspace(
  db: DbOrTx,
  id: string,
  values: Partial<typeof workspaces.$inferInsert>,
) {
  const [row] = await db
    .update(workspaces)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(workspaces.id, id))
    .returning();
  return row ?? null;
}

/**
 * In transaction `tx`: waits for and takes the user's fallback-workspace lock (ADVISORY_LOCK
 * .fallbackWorkspace), so concurrent requests of a user without any workspace make one between them.
 */
export async function lockFallbackWorkspace(tx: DbOrTx, userId: string) {
  await advisoryXactLock(tx, ADVISORY_LOCK.fallbackWorkspace, userId);
}

/**
 * Deletes a workspace row; its tenant-owned rows go with it (foreign keys ON DELETE CASCADE; billing
 * events and local outbox rows keep a null workspace).
 */
export async function deleteWorkspace(db: DbOrTx, id: string): Promise<void> {
  await db.delete(workspaces).where(eq(workspaces.id, id));
}

/**
 * Takes the workspace's seat-change lock exclusively for the rest of transaction `tx`, waiting for it
 * (a plan change of the local billing portal: workspaces withSeatChangesHeld, one waiter per process).
 */
export async function lockSeatChanges(tx: DbOrTx, workspaceId: string) {
  await advisoryXactLock(tx, ADVISORY_LOCK.seatChange, workspaceId);
}

/**
 * Takes the workspace's seat-change lock in shared mode for the rest of transaction `tx` (invitations
 * do not exclude one another: the workspace row lock orders them) unless a plan change holds it or
 * waits for it, without waiting (waiting would hold a pool connection while the plan change needs
 * others to finish). Returns whether it was taken.
 */
export async function tryLockSeatChangesShared(tx: DbOrTx, workspaceId: string): Promise<boolean> {
  return tryAdvisoryXactLockShared(tx, ADVISORY_LOCK.seatChange, workspaceId);
}

/**
 * The workspace's name and deletion mark, read with a FOR SHARE lock on its row held for the rest of
 * transaction `tx`: a deletion's mark (an UPDATE under the row's FOR UPDATE lock) waits for `tx` to
 * commit, and a read that waited for the mark's commit returns the marked row. Null when the
 * workspace no longer exists.
 */
export async function selectDeletionMarkForShare(
  tx: DbOrTx,
  id: string,
): Promise<{ name: string; deletionStartedAt: Date | null } | null> {
  const [row] = await tx
    .select({ name: workspaces.name, deletionStartedAt: workspaces.deletionStartedAt })
    .from(workspaces)
    .where(eq(workspaces.id, id))
    .for("share");
  return row ?? null;
}

/** Locks the workspace row for the rest of the transaction (serialises seat checks). */
export async function lockWorkspace(db: DbOrTx, id: string) {
  await db.execute(sql`select 1 from ${workspaces} where ${workspaces.id} = ${id} for update`);
}

export async function countPendingInvites(db: DbOrTx, workspaceId: string, now = new Date()) {
  const [row] = await db
    .select({ n: count() })
    .from(workspaceInvites)
    .where(
      and(
        eq(workspaceInvites.workspaceId, workspaceId),
        isNull(workspaceInvites.acceptedAt),
        isNull(workspaceInvites.revokedAt),
        gt(workspaceInvites.expiresAt, now),
      ),
    );
  return row?.n ?? 0;
}

/**
 * Revokes the pending invitations to `email` (compared lower-cased) of every workspace `userId` is a
 * member of; returns their ids.
 */
export async function revokeInvitesToMember(db: DbOrTx, userId: string, email: string) {
  return db
    .update(workspaceInvites)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        sql`lower(${workspaceInvites.email}) = lower(${email})`,
        isNull(workspaceInvites.acceptedAt),
        isNull(workspaceInvites.revokedAt),
        sql`${workspaceInvites.workspaceId} in (select ${workspaceMembers.workspaceId} from ${workspaceMembers} where ${workspaceMembers.userId} = ${userId})`,
      ),
    )
    .returning({ id: workspaceInvites.id });
}

/**
 * Revokes every invitation sent by `userId` that is not accepted or revoked yet (expired ones too: a
 * resend would bring them back), within `scope`: one workspace (`workspaceId`), and/or those sent at
 * or after `since` (any workspace when no workspaceId). Returns the revoked rows' ids.
 */
export async function revokeInvitesSentBy(
  db: DbOrTx,
  userId: string,
  scope: { workspaceId?: string; since?: Date },
) {
  return db
    .update(workspaceInvites)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(workspaceInvites.invitedBy, userId),
        scope.workspaceId === undefined ? undefined : eq(workspaceInvites.workspaceId, scope.workspaceId),
        scope.since === undefined ? undefined : gte(workspaceInvites.createdAt, scope.since),
        isNull(workspaceInvites.acceptedAt),
        isNull(workspaceInvites.revokedAt),
      ),
    )
    .returning({ id: workspaceInvites.id });
}
