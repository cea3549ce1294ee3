import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { sessions, users } from "../../db/schema";

export async function updateUser(db: DbOrTx, userId: string, values: Partial<typeof users.$inferInsert>) {
  const [row] = await db
    .update(users)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(users.id, userId))
    .returning();
  return row ?? null;
}

/** Deletes the user's sessions except `keepSessionId` (after a password or email change). */
export async function deleteOtherSessions(db: DbOrTx, userId: string, keepSessionId: string) {
  await db.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)));
}

export async function findUserByEmail(db: DbOrTx, email: string) {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row ?? null;
}

export async function findUsersByIds(db: DbOrTx, ids: string[]) {
  return db.select().from(users).where(inArray(users.id, ids));
}

/** Ids of the users whose preference `key` (users.preferences jsonb) is true, in id order. */
export async function selectUserIdsWithPreference(db: DbOrTx, key: string): Promise<string[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`(${users.preferences} ->> ${key}) = 'true'`)
    .orderBy(users.id);
  return rows.map((r) => r.id);
}

/**
 * Deletes the user row: sessions, one-time links and memberships go with it (ON DELETE CASCADE), what
 * they authored in workspaces keeps a null author (SET NULL). A workspace they still own refuses it
 * (workspaces.owner_id ON DELETE RESTRICT: a foreign key violation).
 */
export async function deleteUser(db: DbOrTx, userId: string): Promise<void> {
  await db.delete(users).where(eq(users.id, userId));
}
