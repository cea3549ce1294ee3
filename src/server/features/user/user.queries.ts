import { and, eq, ne } from "drizzle-orm";
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

/** Deletes the user's sessions except `keepSessionId` (after a password change). */
export async function deleteOtherSessions(db: DbOrTx, userId: string, keepSessionId: string) {
  await db.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)));
}
