import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { prepared } from "../../db/prepared";
import { authTokens, sessions, users, workspaceMembers, workspaces } from "../../db/schema";

export async function findUserByEmail(db: DbOrTx, email: string) {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row ?? null;
}

export async function findUserById(db: DbOrTx, id: string) {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row ?? null;
}

export async function insertUser(db: DbOrTx, values: typeof users.$inferInsert) {
  const [row] = await db.insert(users).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

export async function insertSession(db: DbOrTx, values: typeof sessions.$inferInsert) {
  await db.insert(sessions).values(values);
}

/**
 * A signed-in request's one round trip: session `sessionId` joined to its user and, when the user
 * is still a member of the session's active workspace, that membership's role and workspace
 * (`membership` null when no workspace is chosen or the user was removed: then resolveTenant picks
 * another). Null when the session does not exist. The join is read on every request, so a removed
 * member loses the workspace at once.
 */
export async function findSessionWithUser(db: DbOrTx, sessionId: string) {
  // every signed-in request runs this: a prepared statement (db/prepared.ts)
  const q = prepared(db, "auth.session", (d) =>
    d
      .select({ session: sessions, user: users, role: workspaceMembers.role, workspace: workspaces })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .leftJoin(
        workspaceMembers,
        and(
          eq(workspaceMembers.workspaceId, sessions.workspaceId),
          eq(workspaceMembers.userId, sessions.userId),
        ),
      )
      .leftJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      .where(eq(sessions.id, sql.placeholder("sessionId")))
      .limit(1)
      .prepare("auth_session"),
  );
  const [row] = await q.execute({ sessionId });
  if (!row) return null;
  const { role, workspace, ...rest } = row;
  return { ...rest, membership: role && workspace ? { role, workspace } : null };
}

export async function updateSessionExpiry(db: DbOrTx, sessionId: string, expiresAt: Date) {
  await db.update(sessions).set({ expiresAt }).where(eq(sessions.id, sessionId));
}

export async function deleteSession(db: DbOrTx, sessionId: string) {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

export async function insertAuthToken(db: DbOrTx, values: typeof authTokens.$inferInsert) {
  await db.insert(authTokens).values(values);
}

/**
 * Marks the unused, unexpired token `id` of `purpose` used (one conditional UPDATE, so two requests
 * with one link cannot both pass) and returns it, or null.
 */
export async function consumeAuthToken(db: DbOrTx, id: string, purpose: string) {
  const [row] = await db
    .update(authTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(authTokens.id, id),
        eq(authTokens.purpose, purpose),
        isNull(authTokens.usedAt),
        gt(authTokens.expiresAt, sql`now()`),
      ),
    )
    .returning();
  return row ?? null;
}

/** The token `id` of `purpose` whatever its state (to tell a used link from an expired one), or null. */
export async function findAuthToken(db: DbOrTx, id: string, purpose: string) {
  const [row] = await db
    .select()
    .from(authTokens)
    .where(and(eq(authTokens.id, id), eq(authTokens.purpose, purpose)))
    .limit(1);
  return row ?? null;
}

/** Marks every still-unused token of `purpose` for the user used (a newer link or a reset replaced them). */
export async function retireAuthTokens(db: DbOrTx, userId: string, purpose: string) {
  await db
    .update(authTokens)
    .set({ usedAt: sql`now()` })
    .where(and(eq(authTokens.userId, userId), eq(authTokens.purpose, purpose), isNull(authTokens.usedAt)));
}

export async function updateUserPassword(db: DbOrTx, userId: string, passwordHash: string) {
  await db.update(users).set({ passwordHash, updatedAt: sql`now()` }).where(eq(users.id, userId));
}

/** Sets `email_verified_at` when the user's address is still `email` and not yet verified; returns the user. */
export async function markEmailVerified(db: DbOrTx, userId: string, email: string) {
  const [row] = await db
    .update(users)
    .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` })
    .where(and(eq(users.id, userId), sql`lower(${users.email}) = lower(${email})`))
    .returning();
  return row ?? null;
}

export async function deleteUserSessions(db: DbOrTx, userId: string) {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

/**
 * Account recovery: sets the user's address back to `email`, verified now; returns the user or null.
 * A unique violation (another account has the address) is thrown to the caller.
 */
export async function restoreUserEmail(db: DbOrTx, userId: string, email: string) {
  const [row] = await db
    .update(users)
    .set({ email, emailVerifiedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(users.id, userId))
    .returning();
  return row ?? null;
}
