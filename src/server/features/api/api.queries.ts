import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { prepared } from "../../db/prepared";
import { apiIdempotencyKeys, apiKeys, workspaces } from "../../db/schema";

type NewApiKey = typeof apiKeys.$inferInsert;

export async function insertApiKey(db: DbOrTx, values: NewApiKey) {
  const [row] = await db.insert(apiKeys).values(values).returning();
  return row!;
}

/** Keys of a workspace, newest first (revoked ones included, marked). */
export function listApiKeys(db: DbOrTx, workspaceId: string) {
  return db
    .select()
    .from(apiKeys)
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

/** The key with this hash and its workspace (one indexed lookup per /api/v1 request). */
export async function findKeyByHash(db: DbOrTx, keyHash: string) {
  // every /api/v1 request runs this: a prepared statement (db/prepared.ts)
  const q = prepared(db, "api.key", (d) =>
    d
      .select({ key: apiKeys, workspace: workspaces })
      .from(apiKeys)
      .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
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
 * Claims an idempotency key: inserts `(apiKeyId, key, requestHash)` unless it exists. Returns
 * `{claimed: true}` for the first request, else the stored row.
 */
export async function claimIdempotencyKey(db: DbOrTx, apiKeyId: string, key: string, requestHash: string) {
  const inserted = await db
    .insert(apiIdempotencyKeys)
    .values({ apiKeyId, key, requestHash })
    .onConflictDoNothing()
    .returning({ key: apiIdempotencyKeys.key });
  if (inserted.length) return { claimed: true as const };
  const [row] = await db
    .select()
    .from(apiIdempotencyKeys)
    .where(and(eq(apiIdempotencyKeys.apiKeyId, apiKeyId), eq(apiIdempotencyKeys.key, key)));
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

/** Forgets idempotency records older than 24 hours (Stripe keeps them 24 h too). */
export async function pruneIdempotencyKeys(db: DbOrTx) {
  await db
    .delete(apiIdempotencyKeys)
    .where(lt(apiIdempotencyKeys.createdAt, sql`now() - interval '24 hours'`));
}
