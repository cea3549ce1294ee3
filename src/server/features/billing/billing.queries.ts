import { and, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { prepared } from "../../db/prepared";
import {
  billingDeletedWorkspaces,
  billingEvents,
  billingRefunds,
  usageMeters,
  workspaces,
} from "../../db/schema";

/** All SQL of the billing feature (drizzle functions taking `db` first). */

/** The workspace's billing columns (plan, subscription, customer), or null. */
export async function findBillingWorkspace(db: DbOrTx, id: string, opts: { forUpdate?: boolean } = {}) {
  const q = db.select().from(workspaces).where(eq(workspaces.id, id)).limit(1);
  const [row] = opts.forUpdate ? await q.for("update") : await q;
  return row ?? null;
}

export async function findWorkspaceByCustomer(db: DbOrTx, customerId: string) {
  const [row] = await db
    .select()
    .from(workspaces)
    .where(eq(workspaces.stripeCustomerId, customerId))
    .limit(1);
  return row ?? null;
}

/** Records a deleted workspace's last vendor customer and subscription (once; a repeat changes nothing). */
export async function insertDeletedWorkspace(
  db: DbOrTx,
  values: typeof billingDeletedWorkspaces.$inferInsert,
) {
  await db.insert(billingDeletedWorkspaces).values(values).onConflictDoNothing();
}

/**
 * The deleted workspace (billing_deleted_workspaces) whose id is `workspaceId`, else the latest one
 * whose vendor customer is `customerId`; null when neither names one.
 */
export async function findDeletedWorkspace(
  db: DbOrTx,
  workspaceId: string | null,
  customerId: string | null,
) {
  if (workspaceId) {
    const [row] = await db
      .select()
      .from(billingDeletedWorkspaces)
      .where(eq(billingDeletedWorkspaces.workspaceId, workspaceId))
      .limit(1);
    if (row) return row;
  }
  if (!customerId) return null;
  const [row] = await db
    .select()
    .from(billingDeletedWorkspaces)
    .where(eq(billingDeletedWorkspaces.stripeCustomerId, customerId))
    .orderBy(desc(billingDeletedWorkspaces.deletedAt))
    .limit(1);
  return row ?? null;
}

/** The workspaces `ownerId` owns that have a vendor customer (id, owner, customer id). */
export async function findCustomerWorkspacesOwnedBy(db: DbOrTx, ownerId: string) {
  return db
    .select({ id: workspaces.id, ownerId: workspaces.ownerId, stripeCustomerId: workspaces.stripeCustomerId })
    .from(workspaces)
    .where(and(eq(workspaces.ownerId, ownerId), isNotNull(workspaces.stripeCustomerId)));
}

/** Sets the vendor customer id if the workspace has none yet; returns the id the workspace now holds. */
export async function claimCustomerId(db: DbOrTx, id: string, customerId: string): Promise<string | null> {
  const [set] = await db
    .update(workspaces)
    .set({ stripeCustomerId: customerId, updatedAt: new Date() })
    .where(and(eq(workspaces.id, id), isNull(workspaces.stripeCustomerId)))
    .returning({ customerId: workspaces.stripeCustomerId });
  if (set) return set.customerId;
  const row = await findBillingWorkspace(db, id);
  return row?.stripeCustomerId ?? null;
}

export type BillingPatch = Partial<
  Pick<
    typeof workspaces.$inferInsert,
    | "plan"
    | "subscriptionStatus"
    | "subscriptionTier"
    | "currentPeriodEnd"
    | "cancelAtPeriodEnd"
    | "stripeCustomerId"
    | "stripeSubscriptionId"
    | "firstPaidAt"
  >
>;

/**
 * Writes `patch` (and updated_at) to the workspace's billing columns; returns the row, null when
 * there is none. With `opts.ifVersion`, only while the row is still at that version (its `xmin` as
 * findBillingWorkspaceVersion read it): a write committed since (a webhook's) makes this a no-op,
 * returning null, instead of being overwritten (a concurrent writer's lock is waited for, then the
 * condition is checked on its result).
 */
export async function updateBilling(
  db: DbOrTx,
  id: string,
  patch: BillingPatch,
  opts: { ifVersion?: string } = {},
) {
  const [row] = await db
    .update(workspaces)
    .set({ ...patch, updatedAt: new Date() })
    .where(
      and(
        eq(workspaces.id, id),
        opts.ifVersion === undefined ? undefined : sql`${workspaces}.xmin::text = ${opts.ifVersion}`,
      ),
    )
    .returning();
  return row ?? null;
}

/**
 * The workspace's billing row and its version: Postgres' `xmin` of the row (the id of the transaction
 * that last wrote it, as text), which every write of the row changes; for optimistic concurrency
 * (billing.service applyPaymentEvent). `forUpdate` locks the row (FOR UPDATE returns its newest
 * committed version). Null when the workspace does not exist.
 */
export async function findBillingWorkspaceVersion(
  db: DbOrTx,
  id: string,
  opts: { forUpdate?: boolean } = {},
) {
  const q = db
    .select({ row: workspaces, version: sql<string>`${workspaces}.xmin::text` })
    .from(workspaces)
    .where(eq(workspaces.id, id))
    .limit(1);
  const [row] = opts.forUpdate ? await q.for("update") : await q;
  return row ?? null;
}

export async function eventSeen(db: DbOrTx, id: string): Promise<boolean> {
  const [row] = await db.select({ id: billingEvents.id }).from(billingEvents).where(eq(billingEvents.id, id));
  return Boolean(row);
}

/** Stores an event id; false when it was already stored (a redelivery or a replay). */
export async function recordEvent(db: DbOrTx, values: typeof billingEvents.$inferInsert): Promise<boolean> {
  const rows = await db
    .insert(billingEvents)
    .values(values)
    .onConflictDoNothing()
    .returning({ id: billingEvents.id });
  return rows.length > 0;
}

export async function findRefundOfWorkspace(db: DbOrTx, workspaceId: string) {
  const [row] = await db
    .select()
    .from(billingRefunds)
    .where(eq(billingRefunds.workspaceId, workspaceId))
    .limit(1);
  return row ?? null;
}

export async function insertRefund(db: DbOrTx, values: typeof billingRefunds.$inferInsert) {
  const [row] = await db.insert(billingRefunds).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/**
 * Adds `amount` to a meter of a period if the result stays within `max` (null = unlimited), in one
 * INSERT ... ON CONFLICT DO UPDATE ... WHERE: concurrent callers queue on the row lock and each
 * re-checks the condition on the latest row, so together they never pass `max`. The caller refuses
 * `amount > max` itself (a first insert is not checked). Returns the new `used` and when the 80 %
 * warning went out, or null when it would pass `max`.
 */
export async function reserveMeter(
  db: DbOrTx,
  key: { workspaceId: string; meter: string; periodStart: Date },
  amount: number,
  max: number | null,
  opts: { asyncCommit: boolean } = { asyncCommit: true },
): Promise<{ used: number; warnedAt: Date | null } | null> {
  if (!opts.asyncCommit) {
    // inside the caller's transaction (a launch): a prepared statement per limit shape (db/prepared.ts),
    // so Postgres plans it once per connection rather than at every launch
    const limited = max !== null;
    const q = prepared(db, `billing.reserve:${limited}`, (d) =>
      d
        .insert(usageMeters)
        .values({
          workspaceId: sql.placeholder("workspaceId"),
          meter: sql.placeholder("meter"),
          periodStart: sql.placeholder("periodStart"),
          used: sql.placeholder("amount"),
        })
        .onConflictDoUpdate({
          target: [usageMeters.workspaceId, usageMeters.meter, usageMeters.periodStart],
          set: { used: sql`${usageMeters.used} + excluded.used`, updatedAt: sql`now()` },
          setWhere: limited
            ? sql`${usageMeters.used} + excluded.used <= ${sql.placeholder("max")}::int`
            : undefined,
        })
        .returning({ used: usageMeters.used, warnedAt: usageMeters.warnedAt })
        .prepare(`billing_reserve_${+limited}`),
    );
    const [row] = await q.execute({
      workspaceId: key.workspaceId,
      meter: key.meter,
      periodStart: key.periodStart,
      amount,
      max,
    });
    return row ? { used: Number(row.used), warnedAt: row.warnedAt ?? null } : null;
  }
  // On its own (asyncCommit), one statement committed without waiting for its WAL flush
  // (synchronous_commit off for this statement's own transaction only). Safe there: the work a
  // reservation pays for commits synchronously afterwards, which flushes this earlier commit too; a
  // crash before that loses only a reservation whose work never existed. Inside a caller's transaction
  // (asyncCommit false) the caller's commit decides, and nothing is changed about it.
  const rows = await db.execute<{ used: number; warned_at: Date | string | null }>(sql`
    insert into usage_meters (workspace_id, meter, period_start, used)
    select ${key.workspaceId}::uuid, ${key.meter}, ${key.periodStart.toISOString()}::timestamptz, ${amount}::int
    ${opts.asyncCommit ? sql`from (select set_config('synchronous_commit', 'off', true)) as async_commit` : sql``}
    on conflict (workspace_id, meter, period_start) do update
      set used = usage_meters.used + excluded.used, updated_at = now()
      ${max === null ? sql`` : sql`where usage_meters.used + excluded.used <= ${max}::int`}
    returning used, warned_at`);
  const [row] = rows as unknown as { used: number; warned_at: Date | string | null }[];
  if (!row) return null;
  return { used: Number(row.used), warnedAt: row.warned_at === null ? null : new Date(row.warned_at) };
}

/** Gives back `amount` of a reservation (a launch that failed after reserving). Never below 0. */
export async function releaseMeter(
  db: DbOrTx,
  key: { workspaceId: string; meter: string; periodStart: Date },
  amount: number,
) {
  await db
    .update(usageMeters)
    .set({ used: sql`greatest(0, ${usageMeters.used} - ${amount})`, updatedAt: new Date() })
    .where(
      and(
        eq(usageMeters.workspaceId, key.workspaceId),
        eq(usageMeters.meter, key.meter),
        eq(usageMeters.periodStart, key.periodStart),
      ),
    );
}

/** Used amounts of every meter of a workspace in a period: { meter: used }. */
export async function meterUsage(db: DbOrTx, workspaceId: string, periodStart: Date) {
  const rows = await db
    .select({ meter: usageMeters.meter, used: usageMeters.used, warnedAt: usageMeters.warnedAt })
    .from(usageMeters)
    .where(and(eq(usageMeters.workspaceId, workspaceId), eq(usageMeters.periodStart, periodStart)));
  return rows;
}

/** Marks the 80 % warning of a meter sent; true only for the one caller that marked it. */
export async function claimWarning(
  db: DbOrTx,
  key: { workspaceId: string; meter: string; periodStart: Date },
) {
  const rows = await db
    .update(usageMeters)
    .set({ warnedAt: new Date() })
    .where(
      and(
        eq(usageMeters.workspaceId, key.workspaceId),
        eq(usageMeters.meter, key.meter),
        eq(usageMeters.periodStart, key.periodStart),
        isNull(usageMeters.warnedAt),
      ),
    )
    .returning({ meter: usageMeters.meter });
  return rows.length > 0;
}
