import { and, desc, eq, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
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

/** `{id, name}` of the workspace's keys among `ids` (revoked ones included). */
export async function selectKeyNames(db: DbOrTx, workspaceId: string, ids: string[]) {
  return db
    .select({ id: apiKeys.id, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceId, workspaceId), inArray(apiKeys.id, ids)));
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

/** Sets revoked_at (reason `manual`) on a workspace's live key; returns the row or undefined. */
export async function revokeApiKey(db: DbOrTx, workspaceId: string, id: string) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date(), revokedReason: "manual" })
    .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning();
  return row;
}

/**
 * Revokes every still-active key created by `userId` at or after `since` (any workspace), reason
 * `account_recovery`; returns the revoked rows.
 */
export async function revokeKeysCreatedBySince(db: DbOrTx, userId: string, since: Date) {
  return db
    .update(apiKeys)
    .set({ revokedAt: new Date(), revokedReason: "account_recovery" })
    .where(and(eq(apiKeys.createdBy, userId), gte(apiKeys.createdAt, since), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
}

/** The keys `userId` created in the workspace that are neither revoked nor expired (SQL condition). */
function liveKeysOfCreator(workspaceId: string, userId: string) {
  return and(
    eq(apiKeys.workspaceId, workspaceId),
    eq(apiKeys.createdBy, userId),
    isNull(apiKeys.revokedAt),
    or(isNull(apiKeys.expiresAt), sql`${apiKeys.expiresAt} > now()`),
  );
}

/** How many keys `userId` created in the workspace are neither revoked nor expired. */
export async function countLiveKeysOfCreator(db: DbOrTx, workspaceId: string, userId: string) {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(liveKeysOfCreator(workspaceId, userId));
  return row?.n ?? 0;
}

/**
 * Revokes, with `reason`, every key `userId` created in the workspace that is neither revoked nor
 * expired (an expired key keeps its record as it is: it already stopped); returns the revoked ids.
 */
export async function revokeLiveKeysOfCreator(
  db: DbOrTx,
  workspaceId: string,
  userId: string,
  reason: "creator_removed" | "creator_left",
) {
  return db
    .update(apiKeys)
    .set({ revokedAt: new Date(), revokedReason: reason })
    .where(liveKeysOfCreator(workspaceId, userId))
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

/** SQL: the end of a claim's lease of `seconds` starting now. */
function leaseFromNow(seconds: number) {
  return sql`now() + make_interval(secs => ${seconds})`;
}

/**
 * When an in-progress claim's lease lapses: its `lease_expires_at`, or for a claim made before
 * leases (no lease) `legacyStaleMinutes` after it was made.
 */
function leaseEnd(legacyStaleMinutes: number) {
  const t = apiIdempotencyKeys;
  return sql`coalesce(${t.leaseExpiresAt}, ${t.createdAt} + make_interval(mins => ${legacyStaleMinutes}))`;
}

/**
 * Claims an idempotency key in one statement for the request `claimId` (a random uuid): inserts
 * `(apiKeyId, key, requestHash)` with a lease of `leaseSeconds`, or takes over the existing record
 * when its stored response is expired (made more than `ttlHours` ago: forgotten, any request may
 * reuse the key), or when it is a claim still in progress whose lease lapsed (its request stopped
 * renewing it: died mid-flight) and that has the same `requestHash` (this is its retry) or was made
 * more than `ttlHours` ago. A takeover restarts the record (no response, made now, a new lease and
 * claim id). Returns `{claimed: true}` when the caller runs the request (and must keep the lease
 * alive: renewIdempotencyLease), else `{claimed: false, row}` with the stored record.
 */
export async function claimIdempotencyKey(
  db: DbOrTx,
  apiKeyId: string,
  key: string,
  requestHash: string,
  claimId: string,
  opts: { leaseSeconds: number; legacyStaleMinutes: number; ttlHours: number },
) {
  const t = apiIdempotencyKeys;
  const lease = leaseFromNow(opts.leaseSeconds);
  const expired = sql`${t.createdAt} < now() - make_interval(hours => ${opts.ttlHours})`;
  const inserted = await db
    .insert(t)
    .values({ apiKeyId, key, requestHash, claimId, leaseExpiresAt: lease })
    .onConflictDoUpdate({
      target: [t.apiKeyId, t.key],
      set: {
        requestHash,
        statusCode: null,
        response: null,
        createdAt: sql`now()`,
        claimId,
        leaseExpiresAt: lease,
      },
      setWhere: sql`(${t.statusCode} is not null and ${expired})
        or (${t.statusCode} is null and ${leaseEnd(opts.legacyStaleMinutes)} < now()
            and (${t.requestHash} = ${requestHash} or ${expired}))`,
    })
    .returning({ key: t.key });
  if (inserted.length) return { claimed: true as const };
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.apiKeyId, apiKeyId), eq(t.key, key)));
  return { claimed: false as const, row };
}

/**
 * Extends the lease of the claim `claimId` on `(apiKeyId, key)` to `leaseSeconds` from now, while
 * it is still that request's claim and in progress. Returns false when it no longer is (taken over
 * after the lease lapsed, or finished).
 */
export async function renewIdempotencyLease(
  db: DbOrTx,
  apiKeyId: string,
  key: string,
  claimId: string,
  leaseSeconds: number,
): Promise<boolean> {
  const t = apiIdempotencyKeys;
  const rows = await db
    .update(t)
    .set({ leaseExpiresAt: leaseFromNow(leaseSeconds) })
    .where(and(eq(t.apiKeyId, apiKeyId), eq(t.key, key), eq(t.claimId, claimId), isNull(t.statusCode)))
    .returning({ key: t.key });
  return rows.length > 0;
}

/**
 * Stores the response of the claim `claimId` and ends its lease; nothing when the claim is no longer
 * that request's (taken over after its lease lapsed: the taker's response is the one kept).
 */
export async function saveIdempotentResponse(
  db: DbOrTx,
  apiKeyId: string,
  key: string,
  claimId: string,
  statusCode: number,
  response: unknown,
) {
  const t = apiIdempotencyKeys;
  await db
    .update(t)
    .set({ statusCode, response, claimId: null, leaseExpiresAt: null })
    .where(and(eq(t.apiKeyId, apiKeyId), eq(t.key, key), eq(t.claimId, claimId)));
}

/**
 * Deletes the claim `claimId` (an answer not kept, api.service keepsIdempotentAnswer: a refusal that
 * changed nothing, or a 5xx), so a retry with the key, with any body, claims it anew; another
 * request's claim (taken over after this one's lease lapsed) is left alone.
 */
export async function releaseIdempotencyKey(db: DbOrTx, apiKeyId: string, key: string, claimId: string) {
  const t = apiIdempotencyKeys;
  await db.delete(t).where(and(eq(t.apiKeyId, apiKeyId), eq(t.key, key), eq(t.claimId, claimId)));
}

/**
 * Deletes idempotency records created more than `ttlHours` ago (api.service IDEMPOTENCY_TTL_HOURS;
 * Stripe keeps them 24 h), except claims whose lease is still live (their request still runs). Returns how many were deleted. Run hourly by api.prune-idempotency-keys.
 */
export async function pruneIdempotencyKeys(db: DbOrTx, ttlHours = 24): Promise<number> {
  const rows = await db
    .delete(apiIdempotencyKeys)
    .where(
      and(
        lt(apiIdempotencyKeys.createdAt, sql`now() - make_interval(hours => ${ttlHours})`),
        // a claim whose request still runs (its lease renewed) is kept however old
        or(isNull(apiIdempotencyKeys.leaseExpiresAt), lt(apiIdempotencyKeys.leaseExpiresAt, sql`now()`)),
      ),
    )
    .returning({ key: apiIdempotencyKeys.key });
  return rows.length;
}
