import { and, eq, gt, gte, isNull, ne, sql } from "drizzle-orm";
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

/**
 * Marks the user's still-unused email-recovery links made at or after `since` used: the links of
 * the changes that followed the one a recovery undoes. Links of earlier changes stay usable, so a
 * recovery made with a later link (whoever changed the address again holds it) cannot retire the
 * link that went to an earlier, rightful address.
 */
export async function retireRecoveryLinksSince(db: DbOrTx, userId: string, purpose: string, since: Date) {
  await db
    .update(authTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(authTokens.userId, userId),
        eq(authTokens.purpose, purpose),
        isNull(authTokens.usedAt),
        gte(authTokens.createdAt, since),
      ),
    );
}

/**
 * Email-recovery rows still pending (`id` the placeholder `pending-...`: their notice job has not
 * made the token yet) that are unused, unexpired and older than `minAgeMinutes`, oldest first, at
 * most `limit`: `{ id, userId, email (the previous address), createdAt (the change), currentEmail
 * (the account's address now) }`.
 */
export async function pendingRecoveryRows(db: DbOrTx, purpose: string, minAgeMinutes: number, limit: number) {
  return db
    .select({
      id: authTokens.id,
      userId: authTokens.userId,
      email: authTokens.email,
      createdAt: authTokens.createdAt,
      currentEmail: users.email,
    })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .where(
      and(
        eq(authTokens.purpose, purpose),
        sql`${authTokens.id} like 'pending-%'`,
        isNull(authTokens.usedAt),
        gt(authTokens.expiresAt, sql`now()`),
        sql`${authTokens.createdAt} < now() - make_interval(mins => ${minAgeMinutes})`,
      ),
    )
    .orderBy(authTokens.createdAt)
    .limit(limit);
}

/**
 * Gives a token row a new id (the email-changed notice's link, stored before its token is made:
 * `id` the placeholder, `newId` the token's SHA-256). Returns whether the row was there.
 */
export async function rekeyAuthToken(db: DbOrTx, id: string, newId: string): Promise<boolean> {
  const rows = await db.update(authTokens).set({ id: newId }).where(eq(authTokens.id, id)).returning({
    id: authTokens.id,
  });
  return rows.length > 0;
}

/**
 * True when an unused, unexpired token of `purpose` of another user than `exceptUserId` carries
 * `email` (case-insensitive): for email-recovery links, the address is waiting for its owner's
 * recovery.
 */
export async function pendingTokenForEmail(
  db: DbOrTx,
  purpose: string,
  email: string,
  exceptUserId: string | null,
): Promise<boolean> {
  const rows = await db
    .select({ id: authTokens.id })
    .from(authTokens)
    .where(
      and(
        eq(authTokens.purpose, purpose),
        sql`lower(${authTokens.email}) = lower(${email})`,
        isNull(authTokens.usedAt),
        gt(authTokens.expiresAt, sql`now()`),
        exceptUserId ? ne(authTokens.userId, exceptUserId) : undefined,
      ),
    )
    .limit(1);
  return rows.length > 0;
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
 * Account recovery: sets the user's address back to `email`, verified now, and makes the password
 * unusable by putting `lockPrefix` before its hash (once: a hash that already starts with it is
 * kept); returns the user or null. A unique violation (another account has the address) is thrown
 * to the caller.
 */
export async function restoreUserEmail(db: DbOrTx, userId: string, email: string, lockPrefix: string) {
  const [row] = await db
    .update(users)
    .set({
      email,
      emailVerifiedAt: sql`now()`,
      updatedAt: sql`now()`,
      passwordHash: sql`case when starts_with(${users.passwordHash}, ${lockPrefix}) then ${users.passwordHash}
        else ${lockPrefix} || ${users.passwordHash} end`,
    })
    .where(eq(users.id, userId))
    .returning();
  return row ?? null;
}

/**
 * The user's stored password hash, read with a share lock on the row (held to the end of the
 * transaction `db` must be), or null for an unknown user: a password change (reset, recovery)
 * waits for the caller's transaction, and the caller waits for a change in progress and then reads
 * its result.
 */
export async function passwordHashForShare(db: DbOrTx, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.id, userId))
    .for("share");
  return row?.passwordHash ?? null;
}
