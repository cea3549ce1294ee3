import { and, arrayContains, desc, eq, gte, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ADVISORY_LOCK, advisoryXactLock } from "../../db/locks";
import { prepared } from "../../db/prepared";
import {
  outboundWebhookEvents,
  webhookDeliveries,
  webhookEndpoints,
  workspaceMembers,
  workspaces,
} from "../../db/schema";

type NewEndpoint = typeof webhookEndpoints.$inferInsert;

/**
 * The person whose authority an endpoint delivers with: who last re-enabled it, else who added it
 * (webhooks.service endpointActor).
 */
const endpointActor = sql`coalesce(${webhookEndpoints.reenabledBy}, ${webhookEndpoints.createdBy})`;

/**
 * The join of the membership in its workspace today of the person an endpoint acts for (endpointActor:
 * who re-enabled it, else its creator; their role: null once they left or were removed, or for an
 * endpoint with nobody recorded). The same read of the workspaces feature's table as the API key
 * lookup (api.queries findKeyByHash), for the same rule: an endpoint, like a key, acts with that
 * person's authority (webhooks.service creatorMayDeliver).
 */
const creatorMembership = and(
  eq(workspaceMembers.workspaceId, webhookEndpoints.workspaceId),
  eq(workspaceMembers.userId, endpointActor),
);

/**
 * In the transaction `tx`: takes the workspace's endpoint-creation lock (transaction-scoped
 * advisory lock), then returns how many endpoints the workspace has, counted after the lock was
 * granted: a concurrent creation has committed by then, and the next waits until `tx` ends, so a
 * count checked here and the insert that follows cannot pass the limit together with another's.
 */
export async function lockEndpointCreation(tx: DbOrTx, workspaceId: string): Promise<number> {
  await advisoryXactLock(tx, ADVISORY_LOCK.webhookEndpointCreation, workspaceId);
  // a statement of its own: its snapshot is taken after the lock was granted
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.workspaceId, workspaceId));
  return row?.n ?? 0;
}

export async function insertEndpoint(db: DbOrTx, v: NewEndpoint) {
  const [row] = await db.insert(webhookEndpoints).values(v).returning();
  return row!;
}

/**
 * A workspace's endpoints, newest first, as `{e, creatorRole, creatorIsMember}`: `creatorRole` the
 * role of the person it acts for (creatorMembership), `creatorIsMember` whether the person who added
 * it (created_by) is a member of the workspace today.
 */
export function listEndpoints(db: DbOrTx, workspaceId: string) {
  return db
    .select({
      e: webhookEndpoints,
      creatorRole: workspaceMembers.role,
      creatorIsMember: sql<boolean>`exists (select 1 from ${workspaceMembers} m
        where m.workspace_id = ${webhookEndpoints.workspaceId} and m.user_id = ${webhookEndpoints.createdBy})`,
    })
    .from(webhookEndpoints)
    .leftJoin(workspaceMembers, creatorMembership)
    .where(eq(webhookEndpoints.workspaceId, workspaceId))
    .orderBy(desc(webhookEndpoints.createdAt));
}

/**
 * A keyset page of a workspace's endpoints, newest first (created_at desc, id desc): `limit` after
 * `(ts, id)`, `ts` the previous page's last `created_at::text`. Rows `{e, ts, creatorRole}`.
 */
export function listEndpointsPage(
  db: DbOrTx,
  workspaceId: string,
  limit: number,
  after?: { ts: string; id: string },
) {
  const e = webhookEndpoints;
  return db
    .select({ e, ts: sql<string>`${e.createdAt}::text`, creatorRole: workspaceMembers.role })
    .from(e)
    .leftJoin(workspaceMembers, creatorMembership)
    .where(
      and(
        eq(e.workspaceId, workspaceId),
        after ? sql`(${e.createdAt}, ${e.id}) < (${after.ts}::timestamptz, ${after.id}::uuid)` : undefined,
      ),
    )
    .orderBy(desc(e.createdAt), desc(e.id))
    .limit(limit);
}

/** A workspace's endpoint as `{e, creatorRole}` (creatorMembership), or undefined. */
export async function findEndpoint(db: DbOrTx, workspaceId: string, id: string) {
  const [row] = await db
    .select({ e: webhookEndpoints, creatorRole: workspaceMembers.role })
    .from(webhookEndpoints)
    .leftJoin(workspaceMembers, creatorMembership)
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)));
  return row;
}

export async function updateEndpoint(db: DbOrTx, workspaceId: string, id: string, set: Partial<NewEndpoint>) {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/**
 * Rolls a workspace's endpoint's secret in one statement: `secret` becomes the current one, the
 * row's current secret its previous one until `previousExpiresAt` (null: no previous secret, both
 * columns cleared). Returns `{e, creatorRole}` (creatorMembership) after the change, or undefined
 * (no such endpoint in the workspace).
 */
export async function rotateEndpointSecret(
  db: DbOrTx,
  workspaceId: string,
  id: string,
  secret: string,
  previousExpiresAt: Date | null,
) {
  const e = webhookEndpoints;
  const [row] = await db
    .update(e)
    .set({
      // the right-hand side reads the row as it was before this update
      previousSecret: previousExpiresAt ? sql`${e.secret}` : null,
      previousSecretExpiresAt: previousExpiresAt,
      secret,
      updatedAt: new Date(),
    })
    .where(and(eq(e.workspaceId, workspaceId), eq(e.id, id)))
    .returning();
  if (!row) return undefined;
  return findEndpoint(db, workspaceId, row.id);
}

export async function deleteEndpoint(db: DbOrTx, workspaceId: string, id: string) {
  const rows = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/**
 * Enabled endpoints of a workspace subscribed to `type` (served by the workspace index) whose creator
 * (or whoever re-enabled them: endpointActor) may still have the workspace's data sent out: nobody
 * recorded (made before creators counted: the owner's), or one who is an owner or admin of it today
 * (webhooks.service creatorMayDeliver; the membership's primary key answers the check).
 */
export function subscribedEndpoints(db: DbOrTx, workspaceId: string, type: string) {
  const e = webhookEndpoints;
  return db
    .select({ id: e.id })
    .from(e)
    .where(
      and(
        eq(e.workspaceId, workspaceId),
        eq(e.enabled, true),
        arrayContains(e.events, [type]),
        sql`(${endpointActor} is null or exists (
          select 1 from ${workspaceMembers}
          where ${workspaceMembers.workspaceId} = ${e.workspaceId} and ${workspaceMembers.userId} = ${endpointActor}
            and ${workspaceMembers.role} in ('owner', 'admin')))`,
      ),
    );
}

export async function insertEvent(db: DbOrTx, v: typeof outboundWebhookEvents.$inferInsert) {
  const [row] = await db.insert(outboundWebhookEvents).values(v).returning();
  return row!;
}

/** Inserts several events in one statement and returns them in input order. */
export async function insertEvents(db: DbOrTx, v: (typeof outboundWebhookEvents.$inferInsert)[]) {
  if (v.length === 0) return [];
  const rows = await db.insert(outboundWebhookEvents).values(v).returning();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return v.map((e) => byId.get(e.id as string)!);
}

export function insertDeliveries(db: DbOrTx, rows: (typeof webhookDeliveries.$inferInsert)[]) {
  return db.insert(webhookDeliveries).values(rows).onConflictDoNothing().returning();
}

/** Deliveries of an endpoint, newest first, with the event type. */
export function listDeliveries(db: DbOrTx, workspaceId: string, endpointId: string, limit: number) {
  return db
    .select({ d: webhookDeliveries, type: outboundWebhookEvents.type })
    .from(webhookDeliveries)
    .innerJoin(outboundWebhookEvents, eq(outboundWebhookEvents.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.endpointId, endpointId)))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(limit);
}

/**
 * A keyset page of an endpoint's deliveries, newest first (created_at desc, id desc): `limit` after
 * `(ts, id)`, `ts` the previous page's last `created_at::text`. Rows `{d, type, ts}`.
 */
export function listDeliveriesPage(
  db: DbOrTx,
  workspaceId: string,
  endpointId: string,
  limit: number,
  after?: { ts: string; id: string },
) {
  const d = webhookDeliveries;
  return db
    .select({ d, type: outboundWebhookEvents.type, ts: sql<string>`${d.createdAt}::text` })
    .from(d)
    .innerJoin(outboundWebhookEvents, eq(outboundWebhookEvents.id, d.eventId))
    .where(
      and(
        eq(d.workspaceId, workspaceId),
        eq(d.endpointId, endpointId),
        after ? sql`(${d.createdAt}, ${d.id}) < (${after.ts}::timestamptz, ${after.id}::uuid)` : undefined,
      ),
    )
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(limit);
}

/**
 * A delivery with its endpoint, event, the endpoint's creator's role today (`{d, e, ev,
 * creatorRole}`, creatorMembership) and its workspace's plan fields (`plan`: billing's PlanHolder,
 * whether the plan in force still includes API access), or undefined. A prepared statement: it runs
 * for every delivery attempt (job webhooks.deliver). The workspace is read by primary key in the same
 * statement, as the API key lookup reads it (api.queries findKeyByHash), not with one more round trip.
 */
export async function findDelivery(db: DbOrTx, deliveryId: string) {
  const q = prepared(db, "webhooks.find-delivery", (db) =>
    db
      .select({
        d: webhookDeliveries,
        e: webhookEndpoints,
        ev: outboundWebhookEvents,
        creatorRole: workspaceMembers.role,
        plan: {
          plan: workspaces.plan,
          subscriptionStatus: workspaces.subscriptionStatus,
          currentPeriodEnd: workspaces.currentPeriodEnd,
          cancelAtPeriodEnd: workspaces.cancelAtPeriodEnd,
        },
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .innerJoin(outboundWebhookEvents, eq(outboundWebhookEvents.id, webhookDeliveries.eventId))
      .innerJoin(workspaces, eq(workspaces.id, webhookDeliveries.workspaceId))
      .leftJoin(workspaceMembers, creatorMembership)
      .where(eq(webhookDeliveries.id, sql.placeholder("deliveryId")))
      .prepare("webhooks_find_delivery"),
  );
  const [row] = await q.execute({ deliveryId });
  return row;
}

/**
 * A workspace's delivery with its endpoint's `enabled` flag, creator and creator's role today
 * (creatorMembership), or undefined (also another workspace's).
 */
export async function findWorkspaceDelivery(db: DbOrTx, workspaceId: string, deliveryId: string) {
  const [row] = await db
    .select({
      id: webhookDeliveries.id,
      enabled: webhookEndpoints.enabled,
      createdBy: webhookEndpoints.createdBy,
      reenabledBy: webhookEndpoints.reenabledBy,
      creatorRole: workspaceMembers.role,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .leftJoin(workspaceMembers, creatorMembership)
    .where(and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.id, deliveryId)));
  return row;
}

/**
 * Records one attempt of a delivery: its outcome, `attempts` + 1 and `last_attempt_at` now (the
 * database's clock). A prepared statement: it runs for every delivery attempt.
 */
export async function recordAttempt(
  db: DbOrTx,
  deliveryId: string,
  v: {
    status: "pending" | "succeeded" | "failed";
    responseCode: number | null;
    durationMs: number | null;
    lastError: string | null;
  },
) {
  const d = webhookDeliveries;
  const q = prepared(db, "webhooks.record-attempt", (db) =>
    db
      .update(d)
      .set({
        status: sql`${sql.placeholder("status")}`,
        responseCode: sql`${sql.placeholder("responseCode")}`,
        durationMs: sql`${sql.placeholder("durationMs")}`,
        lastError: sql`${sql.placeholder("lastError")}`,
        attempts: sql`${d.attempts} + 1`,
        lastAttemptAt: sql`now()`,
      })
      .where(eq(d.id, sql.placeholder("deliveryId")))
      .prepare("webhooks_record_attempt"),
  );
  await q.execute({ deliveryId, ...v });
}

/** A success clears the endpoint's failure streak (a no-op when it has none). */
export async function clearFailing(db: DbOrTx, endpointId: string) {
  await db
    .update(webhookEndpoints)
    .set({ failingSince: null })
    .where(and(eq(webhookEndpoints.id, endpointId), sql`${webhookEndpoints.failingSince} is not null`));
}

/**
 * Starts (or continues) the endpoint's failure streak; when it began at least `disableAfterMs` ago
 * and the endpoint is enabled, disables it. Returns true when this call disabled it.
 */
export async function markFailing(db: DbOrTx, endpointId: string, disableAfterMs: number, reason: string) {
  await db
    .update(webhookEndpoints)
    .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, now())` })
    .where(eq(webhookEndpoints.id, endpointId));
  const rows = await db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
    .where(
      and(
        eq(webhookEndpoints.id, endpointId),
        eq(webhookEndpoints.enabled, true),
        sql`${webhookEndpoints.failingSince} <= now() - make_interval(secs => ${disableAfterMs / 1000})`,
      ),
    )
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/**
 * Ids of deliveries never attempted (pending, 0 attempts) that were stored between `maxAgeHours`
 * hours and `minAgeMinutes` minutes ago, oldest first, at most `limit` (the partial index
 * webhook_deliveries_unattempted_idx holds only such rows).
 */
export async function unattemptedDeliveryIds(
  db: DbOrTx,
  minAgeMinutes: number,
  maxAgeHours: number,
  limit: number,
): Promise<string[]> {
  const d = webhookDeliveries;
  const rows = await db
    .select({ id: d.id })
    .from(d)
    .where(
      and(
        eq(d.status, "pending"),
        eq(d.attempts, 0),
        sql`${d.createdAt} < now() - make_interval(mins => ${minAgeMinutes})`,
        sql`${d.createdAt} > now() - make_interval(hours => ${maxAgeHours})`,
      ),
    )
    .orderBy(d.createdAt)
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Sets a delivery back to pending for a resend, to follow the schedule of the job `jobId`. */
export async function resetDelivery(db: DbOrTx, workspaceId: string, deliveryId: string, jobId: string) {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: "pending", jobId })
    .where(and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.id, deliveryId)))
    .returning();
  return row;
}

/**
 * Disables every still-enabled endpoint created by `userId` at or after `since` (any workspace), with
 * `reason` as its disabled reason; returns the disabled rows' ids.
 */
export async function disableEndpointsCreatedBySince(
  db: DbOrTx,
  userId: string,
  since: Date,
  reason: string,
) {
  return db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, updatedAt: sql`now()` })
    .where(
      and(
        eq(webhookEndpoints.createdBy, userId),
        gte(webhookEndpoints.createdAt, since),
        eq(webhookEndpoints.enabled, true),
      ),
    )
    .returning({ id: webhookEndpoints.id });
}
