import { and, desc, eq, gte, isNull, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ADVISORY_LOCK, advisoryXactLock } from "../../db/locks";
import { prepared } from "../../db/prepared";
import { apiIdempotencyKeys, apiKeys, workspaceMembers, workspaces } from "../../db/schema";

type NewApiKey = typeof apiKeys.$inferInsert;

/**
 * In the transaction `tx`: takes the workspace's key-creation lock (transaction-scoped advisory lock),
 * then returns how many of its keys are live (not revoked, not expired), counted after the lock was
 * granted, so a count checked here and the insert that follows cannot pass the limit together with
 * a concurrent creation's.
 */
export async function lockKeyCreation(tx: DbOrTx, workspaceId: string): Promise<number> {
  await advisoryXactLock(tx, ADVISORY_LOCK.apiKeyCreation, workspaceId);
  // a statement of its own: its snapshot is taken after the lock was granted
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.workspaceId, workspaceId),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), sql`${apiKeys.expiresAt} > now()`),
      ),
    );
  return row?.n ?? 0;
}

export async function insertApiKey(db: DbOrTx, values: NewApiKey) {
  const [row] = await db.insert(apiKeys).values(values).returning();
  return row!;
}

/**
 * Keys of a workspace, newest first (revoked ones included, marked), each with its creator's role in
 * the workspace today (null once they left or were removed; see findKeyByHash).
 */
export function listApiKeys(db: DbOrTx, workspaceId: string) {
  return db
    .select({ key: apiKeys, creatorRole: workspaceMembers.role })
    .from(apiKeys)
    .leftJoin(
      workspaceMembers,
      and(
        eq(workspaceMembers.workspaceId, apiKeys.workspaceId),
        eq(workspaceMembers.userId, apiKeys.createdBy),
      ),
    )
    .where(eq(apiKeys.workspaceId, workspaceId))
    .orderBy(desc(apiKeys.createdAt));
}

/** Sets revoked_at on a workspace's live key; returns the row or undefined. */
export async function revokeApiKey(db: DbOrTx, workspaceId: string, id: string) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning();
  return row;
}

/**
 * Revokes every still-active key created by `userId` at or after `since` (any workspace); returns
 * the revoked rows.
 */
export async function revokeKeysCreatedBySince(db: DbOrTx, userId: string, since: Date) {
  return db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.createdBy, userId), gte(apiKeys.createdAt, since), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
}

/**
 * The key with this hash, its workspace and its creator's role in that workspace today (null once
 * they left, were removed or deleted their account): one statement per /api/v1 request. Joins the
 * workspaces feature's tables as the tenant lookup every request needs (README: the API key lookup).
 */
export async function findKeyByHash(db: DbOrTx, keyHash: string) {
  // every /api/v1 request runs this: a prepared statement (db/prepared.ts)
  const q = prepared(db, "api.key", (d) =>
    d
      .select({ key: apiKeys, workspace: workspaces, creatorRole: workspaceMembers.role })
      .from(apiKeys)
      .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
      // the creator's role in the workspace today (null once they left or were removed)
      .leftJoin(
        workspaceMembers,
        and(
          eq(workspaceMembers.workspaceId, apiKeys.workspaceId),
          eq(workspaceMembers.userId, apiKeys.createdBy),
        ),
      )
      .where(eq(apiKeys.keyHash, sql.placeholder("keyHash")))
      .prepare("api_key_by_hash"),
  );
  const [row] = await q.execute({ keyHash });
  return row;
}

/** Records a use, at most once a minute per key (a cheap no-op otherwise). */
export async function touchApiKey(db: DbOrTx, id: string) {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: new Date() })
    .where(
      and(
        eq(apiKeys.id, id),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`)),
      ),
    );
}

/**
 * Claims an idempotency key in one statement: inserts `(apiKeyId, key, requestHash)`, or takes over
 * the existing record when it is expired (created more than `ttlHours` ago: forgotten, any request
 * may reuse the key) or when it is a claim still in progress after `staleMinutes` with the same
 * `requestHash` (the first request died mid-flight; this is its retry). A takeover restarts the
 * record (no response, created now). Returns `{claimed: true}` when the caller runs the request,
 * else `{claimed: false, row}` with the stored record.
 */
export async function claimIdempotencyKey(
  db: DbOrTx,
  apiKeyId: string,
  key: string,
  requestHash: string,
  opts: { staleMinutes: number; ttlHours: number },
) {
  const t = apiIdempotencyKeys;
  const inserted = await db
    .insert(t)
    .values({ apiKeyId, key, requestHash })
    .onConflictDoUpdate({
      target: [t.apiKeyId, t.key],
      set: { requestHash, statusCode: null, response: null, createdAt: sql`now()` },
      setWhere: sql`${t.createdAt} < now() - make_interval(hours => ${opts.ttlHours})
        or (${t.statusCode} is null and ${t.requestHash} = ${requestHash}
            and ${t.createdAt} < now() - make_interval(mins => ${opts.staleMinutes}))`,
    })
    .returning({ key: t.key });
  if (inserted.length) return { claimed: true as const };
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.apiKeyId, apiKeyId), eq(t.key, key)));
  return { claimed: false as const, row };
}

export async function saveIdempotentResponse(
  db: DbOrTx,
  apiKeyId: string,
  key: string,
  statusCode: number,
  response: unknown,
) {
  await db
    .update(apiIdempotencyKeys)
    .set({ statusCode, response })
    .where(and(eq(apiIdempotencyKeys.apiKeyId, apiKeyId), eq(apiIdempotencyKeys.key, key)));
}

export async function releaseIdempotencyKey(db: DbOrTx, apiKeyId: string, key: string) {
  await db
    .delete(apiIdempotencyKeys)
    .where(and(eq(apiIdempotencyKeys.apiKeyId, apiKeyId), eq(apiIdempotencyKeys.key, key)));
}

/**
 * Deletes idempotency records created more than `ttlHours` ago (api.service IDEMPOTENCY_TTL_HOURS;
 * Stripe keeps them 24 h). Returns how many were deleted. Run hourly by api.prune-idempotency-keys.
 */
export async function pruneIdempotencyKeys(db: DbOrTx, ttlHours = 24): Promise<number> {
  const rows = await db
    .delete(apiIdempotencyKeys)
    .where(lt(apiIdempotencyKeys.createdAt, sql`now() - make_interval(hours => ${ttlHours})`))
    .returning({ key: apiIdempotencyKeys.key });
  return rows.length;
}
