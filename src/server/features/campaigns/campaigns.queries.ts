import {
  type AnyColumn,
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  inArray,
  isNotNull,
  isNull,
  lt,
  sql,
} from "drizzle-orm";
import type { DbOrTx, Sql } from "../../db/client";
import { isConstraintViolation } from "../../db/errors";
import { ADVISORY_LOCK, advisoryXactLock } from "../../db/locks";
import {
  type Campaign,
  type CampaignChannel,
  type CampaignRecipient,
  campaignEarlyEvents,
  campaignRecipients,
  campaigns,
  type RecipientStatus,
  smsOptEvents,
  webhookEvents,
} from "../../db/schema";

// The SQL of campaigns and their recipients: the send engine's claim / lease / outcome statements
// (campaigns.engine.ts, campaigns.send.ts), the service's launch, list, report and state changes
// (campaigns.service.ts), and the event lookups (campaigns.events.ts). Functions take the database
// first: drizzle's `db` (or a transaction), or postgres.js `pg` (the context's `sql`) for raw statements.

// ---------------------------------------------------------------------------------------------
// Campaign rows
// ---------------------------------------------------------------------------------------------

/** One campaign by id (any workspace: job handlers and the engine), or undefined. */
export async function selectCampaign(db: DbOrTx, id: number): Promise<Campaign | undefined> {
  const [c] = await db.select().from(campaigns).where(eq(campaigns.id, id));
  return c;
}

/** One campaign of `workspaceId`, or undefined. */
export async function selectWorkspaceCampaign(
  db: DbOrTx,
  workspaceId: string,
  id: number,
): Promise<Campaign | undefined> {
  const [c] = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId)));
  return c;
}

/** The ids of `workspaceId`'s campaigns a cancel would end (CANCELLABLE: a workspace's deletion cancels them). */
export async function selectCancellableCampaignIds(db: DbOrTx, workspaceId: string): Promise<number[]> {
  const rows = await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, workspaceId), inArray(campaigns.status, [...CANCELLABLE])));
  return rows.map((r) => r.id);
}

/** The ids of `workspaceId`'s campaigns on `channel` (a workspace's deletion removes their stored files). */
export async function selectWorkspaceCampaignIds(
  db: DbOrTx,
  workspaceId: string,
  channel: CampaignChannel,
): Promise<number[]> {
  const rows = await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.channel, channel)));
  return rows.map((r) => r.id);
}

/** Campaigns with the given ids (any workspace: the engine groups claimed rows by campaign). */
export async function selectCampaignsByIds(db: DbOrTx, ids: number[]): Promise<Campaign[]> {
  return db.select().from(campaigns).where(inArray(campaigns.id, ids));
}

/** Ids of every campaign in status `sending` (worker boot). */
export async function selectSendingCampaignIds(db: DbOrTx): Promise<number[]> {
  const rows = await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.status, "sending"));
  return rows.map((r) => r.id);
}

/** The content of one campaign (its tracked links), or undefined. */
export async function selectCampaignContent(
  db: DbOrTx,
  id: number,
): Promise<Campaign["content"] | undefined> {
  const [c] = await db.select({ content: campaigns.content }).from(campaigns).where(eq(campaigns.id, id));
  return c?.content;
}

/**
 * How many of `workspaceId`'s campaigns went out (the dashboard's Total Campaigns): those that began
 * sending (started_at set: sending, paused, completed), except a cancelled one none of whose messages
 * was handed to the provider. Drafts and scheduled campaigns (started_at null until their time) do not
 * count; with `before`, only those that began sending before it.
 */
export async function countWorkspaceCampaigns(
  db: DbOrTx,
  workspaceId: string,
  before?: Date,
): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.workspaceId, workspaceId),
        isNotNull(campaigns.startedAt),
        before ? lt(campaigns.startedAt, before) : undefined,
        sql`(${campaigns.status} <> 'cancelled' or exists (
          select 1 from ${campaignRecipients} r
          where r.campaign_id = ${campaigns.id} and r.sent_at is not null))`,
      ),
    );
  return row?.n ?? 0;
}

/**
 * Campaigns of `workspaceId`, newest first (created_at desc, id desc), at most `limit`; with
 * `beforeId`, only those after that campaign in this order (keyset of the public API's cursor pages).
 */
export async function selectWorkspaceCampaigns(
  db: DbOrTx,
  workspaceId: string,
  limit: number,
  beforeId?: number,
): Promise<Campaign[]> {
  return db
    .select()
    .from(campaigns)
    .where(
      and(
        eq(campaigns.workspaceId, workspaceId),
        beforeId
          ? sql`(${campaigns.createdAt}, ${campaigns.id}) < (select c2.created_at, c2.id from campaigns c2 where c2.id = ${beforeId} and c2.workspace_id = ${workspaceId})`
          : undefined,
      ),
    )
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(limit);
}

/** The campaign of `workspaceId` a launch with `launchToken` created, or undefined. */
export async function selectCampaignByLaunchToken(
  db: DbOrTx,
  workspaceId: string,
  launchToken: string,
): Promise<Campaign | undefined> {
  const [c] = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.launchToken, launchToken)));
  return c;
}

/**
 * In the launch transaction `tx`: takes the transaction-scoped advisory lock of (`workspaceId`,
 * `fingerprint`), then returns the newest campaign of the workspace with that launch fingerprint
 * created within the last `windowMinutes` and not cancelled, or undefined. The select is a statement
 * of its own, sent in the same pipeline after the lock: its snapshot is taken once the lock is granted,
 * so a concurrent launch of the same fingerprint that held the lock has committed its campaign by then
 * (and the next one waits until this transaction ends). Call it before the transaction's first write.
 */
export async function lockLaunchFingerprint(
  tx: DbOrTx,
  workspaceId: string,
  fingerprint: string,
  windowMinutes: number,
): Promise<Campaign | undefined> {
  const [, rows] = await Promise.all([
    advisoryXactLock(tx, ADVISORY_LOCK.launchFingerprint, `${workspaceId}:${fingerprint}`),
    tx
      .select()
      .from(campaigns)
      .where(
        and(
          eq(campaigns.workspaceId, workspaceId),
          eq(campaigns.launchFingerprint, fingerprint),
          sql`${campaigns.createdAt} > now() - make_interval(mins => ${windowMinutes})`,
          sql`${campaigns.status} <> 'cancelled'`,
        ),
      )
      .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
      .limit(1),
  ]);
  return rows[0];
}

/**
 * True when `e` is the unique violation of (workspace_id, launch_token): another launch with the
 * same token committed its campaign first (this insert waited for it on the index).
 */
export function isLaunchTokenConflict(e: unknown): boolean {
  return isConstraintViolation(e, "23505", "campaigns_workspace_launch_token_idx");
}

/** Inserts a campaign and returns it. */
export async function insertCampaign(db: DbOrTx, values: typeof campaigns.$inferInsert): Promise<Campaign> {
  const [c] = await db.insert(campaigns).values(values).returning();
  if (!c) throw new Error("insert into campaigns returned no row");
  return c;
}

/**
 * Campaign state transitions are compare-and-set: each UPDATE names the statuses it may leave
 * (`where id and workspace_id and status in (...)`) and returns the row it changed, so of two
 * concurrent requests (pause and cancel, ten resumes) exactly the ones whose starting state still
 * holds win; Postgres re-checks the WHERE on the row version a concurrent winner committed. A
 * caller that gets `undefined` re-reads the campaign and answers 404 or 409 with its status.
 */

/** Statuses a campaign can be cancelled from: anything not finished. */
/** The statuses a cancel ends (cancelCampaignRows). */
const CANCELLABLE = ["draft", "scheduled", "sending", "paused", "failed"] as const;

/** A scheduled campaign is still ahead when its time is more than this away (the launch's rule). */
const SCHEDULE_AHEAD = sql`now() + interval '5 seconds'`;

/**
 * `sending` or `scheduled` -> `paused` by a person (Pause button, POST /campaigns/{id}/pause): no
 * reason and no cause (`pause_cause` null). The paused campaign, or undefined when it was in no such state.
 */
export async function pauseCampaignRow(
  db: DbOrTx,
  workspaceId: string,
  id: number,
): Promise<Campaign | undefined> {
  const [c] = await db
    .update(campaigns)
    .set({ status: "paused", pauseCause: null, updatedAt: new Date() })
    .where(
      and(
        eq(campaigns.id, id),
        eq(campaigns.workspaceId, workspaceId),
        inArray(campaigns.status, ["sending", "scheduled"]),
      ),
    )
    .returning();
  return c;
}

/**
 * The send engine's pause of a `sending` campaign the workspace's plan no longer allows (billing
 * campaignPlanStop): `paused` with `reason` kept in `error` and `pause_cause` 'plan' until it is
 * resumed or cancelled. False when it was no longer sending (paused, cancelled or completed meanwhile).
 */
export async function pauseCampaignForPlan(
  db: DbOrTx,
  workspaceId: string,
  id: number,
  reason: string,
): Promise<boolean> {
  const rows = await db
    .update(campaigns)
    .set({ status: "paused", error: reason, pauseCause: "plan", updatedAt: new Date() })
    .where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, "sending")))
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

/**
 * A member's departure (campaigns.departure pauseScheduledCampaignsOfDeparting): every campaign of
 * `workspaceId` that `userId` launched and that is still `scheduled` (not started) becomes `paused`
 * with `reason` kept in `error` and `pause_cause` 'departure' until it is resumed (resumeCampaignRow
 * clears both) or cancelled. One UPDATE, so a
 * fan-out that starts one of them at the same moment either wins (it is sending: not paused) or finds
 * it paused. Returns the paused campaigns' ids and names.
 */
export async function pauseScheduledCampaignsOf(
  db: DbOrTx,
  workspaceId: string,
  userId: string,
  reason: string,
): Promise<{ id: number; name: string }[]> {
  return db
    .update(campaigns)
    .set({ status: "paused", error: reason, pauseCause: "departure", updatedAt: new Date() })
    .where(
      and(
        eq(campaigns.workspaceId, workspaceId),
        eq(campaigns.createdBy, userId),
        eq(campaigns.status, "scheduled"),
      ),
    )
    .returning({ id: campaigns.id, name: campaigns.name });
}

/**
 * `paused` -> `scheduled` when its scheduled time is still more than 5 s ahead (the fan-out waits for
 * that time; no round starts), else -> `sending` in a new round (round + 1: fresh deterministic send
 * job ids; completed_at cleared; started_at kept or now), its pause's reason and cause cleared.
 * Returns the resumed campaign, or undefined when it was not paused (another request resumed or
 * cancelled it first).
 */
export async function resumeCampaignRow(
  db: DbOrTx,
  workspaceId: string,
  id: number,
): Promise<Campaign | undefined> {
  const ahead = sql`(${campaigns.scheduledAt} is not null and ${campaigns.scheduledAt} > ${SCHEDULE_AHEAD})`;
  const [c] = await db
    .update(campaigns)
    .set({
      status: sql`case when ${ahead} then 'scheduled' else 'sending' end`,
      round: sql`case when ${ahead} then ${campaigns.round} else ${campaigns.round} + 1 end`,
      startedAt: sql`case when ${ahead} then ${campaigns.startedAt} else coalesce(${campaigns.startedAt}, now()) end`,
      completedAt: null,
      // a pause's reason and cause (the plan, a departure) end with the pause
      error: null,
      pauseCause: null,
      updatedAt: new Date(),
    })
    .where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, "paused")))
    .returning();
  return c;
}

/**
 * A scheduled campaign whose time came: `scheduled` -> `sending` (started_at now). False when it is
 * no longer scheduled (paused or cancelled meanwhile, or another fan-out started it) or its time is
 * more than a second ahead (rescheduled later after the fan-out read it: that time's job starts it).
 */
export async function beginScheduledCampaign(db: DbOrTx, id: number): Promise<boolean> {
  const rows = await db
    .update(campaigns)
    .set({ status: "sending", startedAt: new Date(), updatedAt: new Date() })
    .where(
      and(
        eq(campaigns.id, id),
        eq(campaigns.status, "scheduled"),
        sql`(${campaigns.scheduledAt} is null or ${campaigns.scheduledAt} <= now() + interval '1 second')`,
      ),
    )
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

/**
 * Moves a scheduled campaign of `workspaceId` to `at`, in one transaction holding the campaign row
 * (FOR UPDATE), so it never races the fan-out's start (beginScheduledCampaign), a pause or a cancel:
 * only a campaign still `scheduled` is moved. `move` runs in the transaction first with the campaign
 * as read (the plan's units to the billing period of `at`; throwing rolls everything back) and
 * returns the period start that then holds its unsent units; `moved`, when given, runs in the
 * transaction after the campaign row was updated (its `campaign.rescheduled` webhook event: the
 * outbox row commits or rolls back with the move). Returns the campaign as read (undefined: not the
 * workspace's) and as moved (undefined when it was not scheduled).
 */
export async function rescheduleCampaignRow(
  db: DbOrTx,
  workspaceId: string,
  id: number,
  at: Date,
  move: (tx: DbOrTx, campaign: Campaign) => Promise<Date>,
  moved: (tx: DbOrTx, before: Campaign, after: Campaign) => Promise<void> = async () => {},
): Promise<{ before?: Campaign; after?: Campaign }> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId)))
      .for("update");
    if (before?.status !== "scheduled") return { before };
    const meterPeriodStart = await move(tx, before);
    const [after] = await tx
      .update(campaigns)
      .set({ scheduledAt: at, meterPeriodStart, updatedAt: new Date() })
      .where(eq(campaigns.id, id))
      .returning();
    if (after) await moved(tx, before, after);
    return { before, after };
  });
}

/**
 * "Resend to failed only", in one transaction holding the campaign row (FOR UPDATE): unless it is
 * cancelled, its failed recipients are queued again (requeueFailedRecipients: attempts, reason,
 * failed_at and the vendor message id reset), and a
 * campaign that is not paused or scheduled (those send them when they resume or start) begins a new
 * round (status sending, round + 1, completed_at cleared, started_at kept or now). `reserve` is
 * called in the transaction with the number requeued (the plan's units for them; throwing rolls the
 * requeue back). Returns the campaign as it was read (undefined: not the workspace's), how many rows were requeued, and the
 * campaign after a new round began (undefined when none did).
 */
export async function resendFailedRows(
  db: DbOrTx,
  workspaceId: string,
  id: number,
  reserve: (tx: DbOrTx, campaign: Campaign, requeued: number) => Promise<void> = async () => {},
): Promise<{ before?: Campaign; requeued: number; restarted?: Campaign }> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId)))
      .for("update");
    if (!before || before.status === "cancelled") return { before, requeued: 0 };
    const requeued = await requeueFailedRecipients(tx, id);
    // the plan's units for the messages sent again, in this transaction (a refusal undoes the requeue)
    if (requeued > 0) await reserve(tx, before, requeued);
    if (requeued === 0 || before.status === "paused" || before.status === "scheduled")
      return { before, requeued };
    const [restarted] = await tx
      .update(campaigns)
      .set({
        status: "sending",
        round: sql`${campaigns.round} + 1`,
        completedAt: null,
        startedAt: sql`coalesce(${campaigns.startedAt}, now())`,
        updatedAt: new Date(),
      })
      .where(eq(campaigns.id, id))
      .returning();
    return { before, requeued, restarted };
  });
}

/** Records the billing period start whose meter holds a campaign's unsent units (billing CampaignMetering). */
export async function setCampaignMeterPeriod(db: DbOrTx, id: number, periodStart: Date): Promise<void> {
  await db
    .update(campaigns)
    .set({ meterPeriodStart: periodStart, updatedAt: new Date() })
    .where(eq(campaigns.id, id));
}

/** Completes a campaign that is still `sending`; false when another pass (or a pause) got there first. */
export async function completeSendingCampaign(db: DbOrTx, id: number): Promise<boolean> {
  const done = await db
    .update(campaigns)
    .set({ status: "completed", completedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(campaigns.id, id), eq(campaigns.status, "sending")))
    .returning({ id: campaigns.id });
  return done.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Recipients: launch, lists, counts, state changes
// ---------------------------------------------------------------------------------------------

/**
 * Inserts a campaign's recipients, one jsonb parameter per 10,000 rows (far cheaper than a
 * 10,000-row VALUES list). Returns the ids of the rows inserted as `queued`.
 */
export async function insertRecipients(
  db: DbOrTx,
  campaign: Pick<Campaign, "id" | "workspaceId" | "channel">,
  rows: {
    contactId: number;
    address: string;
    status: RecipientStatus;
    reason: string | null;
    token: string;
  }[],
): Promise<number[]> {
  const queuedIds: number[] = [];
  for (let i = 0; i < rows.length; i += 10_000) {
    const json = JSON.stringify(
      rows
        .slice(i, i + 10_000)
        .map((r) => ({ c: r.contactId, a: r.address, s: r.status, r: r.reason, t: r.token })),
    );
    const inserted = (await db.execute(sql`
      insert into campaign_recipients (campaign_id, workspace_id, contact_id, channel, address, status, reason, token)
      select ${campaign.id}, ${campaign.workspaceId}, v.c, ${campaign.channel}, v.a, v.s, v.r, v.t
      from jsonb_to_recordset(${json}::jsonb) as v(c bigint, a text, s text, r text, t text)
      returning id, status`)) as unknown as { id: string; status: string }[];
    for (const r of inserted) if (r.status === "queued") queuedIds.push(Number(r.id));
  }
  return queuedIds;
}

/** Recipients per status of each campaign in `ids`: campaign id -> {status: n}. */
export async function countRecipientsByStatus(
  db: DbOrTx,
  ids: number[],
): Promise<Map<number, Record<string, number>>> {
  const out = new Map<number, Record<string, number>>();
  if (ids.length === 0) return out;
  const rows = await db
    .select({ id: campaignRecipients.campaignId, status: campaignRecipients.status, n: count() })
    .from(campaignRecipients)
    .where(inArray(campaignRecipients.campaignId, ids))
    .groupBy(campaignRecipients.campaignId, campaignRecipients.status);
  for (const r of rows) {
    const m = out.get(r.id) ?? {};
    m[r.status] = r.n;
    out.set(r.id, m);
  }
  return out;
}

/**
 * Recipients of a campaign still queued or sending, read on `db`: in a transaction, its own
 * uncommitted changes counted (campaigns.service resendFailed counts in its requeue's transaction,
 * so a resend holds one pooled connection, not two).
 */
export async function countPendingRecipients(db: DbOrTx, campaignId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(campaignRecipients)
    .where(
      and(
        eq(campaignRecipients.campaignId, campaignId),
        inArray(campaignRecipients.status, ["queued", "sending"]),
      ),
    );
  return row?.n ?? 0;
}

/** A page of a campaign's recipients (by id), optionally of one status, with the total. */
export async function selectRecipientPage(
  db: DbOrTx,
  campaignId: number,
  opts: { status?: RecipientStatus; limit: number; offset: number; afterId?: number },
): Promise<{ rows: CampaignRecipient[]; total: number }> {
  const where = and(
    eq(campaignRecipients.campaignId, campaignId),
    opts.status ? eq(campaignRecipients.status, opts.status) : undefined,
  );
  const [[n], rows] = await Promise.all([
    db.select({ n: count() }).from(campaignRecipients).where(where),
    db
      .select()
      .from(campaignRecipients)
      .where(and(where, opts.afterId !== undefined ? gt(campaignRecipients.id, opts.afterId) : undefined))
      .orderBy(asc(campaignRecipients.id))
      .limit(opts.limit)
      .offset(opts.offset),
  ]);
  return { rows, total: n?.n ?? 0 };
}

/**
 * The ids of every recipient of the workspace's campaign `campaignId` in send order: by recipient id,
 * the order the launch queued them, which is the order the send engine takes them
 * (selectQueuedRecipients; a recipient deferred by quiet hours or retried keeps its place). One read of
 * the campaign's rows (index campaign_recipients_campaign_status_idx) and a sort of their ids (8 bytes
 * each); a keyset on the id with a LIMIT walked the primary key from the table's first row instead,
 * filtering other campaigns' rows out, or sorted the whole campaign again for every page.
 */
export async function selectRecipientIdsInSendOrder(
  db: DbOrTx,
  workspaceId: string,
  campaignId: number,
): Promise<number[]> {
  const rows = await db
    .select({ id: campaignRecipients.id })
    .from(campaignRecipients)
    .where(
      and(eq(campaignRecipients.workspaceId, workspaceId), eq(campaignRecipients.campaignId, campaignId)),
    )
    .orderBy(asc(campaignRecipients.id));
  return rows.map((r) => r.id);
}

/**
 * The recipients `ids` (a page of selectRecipientIdsInSendOrder) of the workspace's campaign
 * `campaignId`, by id, with the columns the results CSV writes (campaigns.service exportRecipientsCsv);
 * primary-key lookups. An id no longer there (its campaign deleted meanwhile) is left out.
 */
export async function selectRecipientsByIds(
  db: DbOrTx,
  workspaceId: string,
  campaignId: number,
  ids: number[],
) {
  if (ids.length === 0) return [];
  return db
    .select({
      id: campaignRecipients.id,
      contactId: campaignRecipients.contactId,
      address: campaignRecipients.address,
      status: campaignRecipients.status,
      reason: campaignRecipients.reason,
      sentAt: campaignRecipients.sentAt,
      deliveredAt: campaignRecipients.deliveredAt,
      openedAt: campaignRecipients.openedAt,
      clickedAt: campaignRecipients.clickedAt,
      repliedAt: campaignRecipients.repliedAt,
      replyText: campaignRecipients.replyText,
      optedOutAt: campaignRecipients.optedOutAt,
      answeredBy: campaignRecipients.answeredBy,
      callSeconds: campaignRecipients.callSeconds,
    })
    .from(campaignRecipients)
    .where(
      and(
        eq(campaignRecipients.workspaceId, workspaceId),
        eq(campaignRecipients.campaignId, campaignId),
        inArray(campaignRecipients.id, ids),
      ),
    )
    .orderBy(asc(campaignRecipients.id));
}

/** Recipients of a campaign in one of `statuses`. */
export async function selectRecipientsWithStatus(
  db: DbOrTx,
  campaignId: number,
  statuses: RecipientStatus[],
): Promise<CampaignRecipient[]> {
  return db
    .select()
    .from(campaignRecipients)
    .where(and(eq(campaignRecipients.campaignId, campaignId), inArray(campaignRecipients.status, statuses)));
}

/**
 * Cancels a campaign of `workspaceId` that is not finished (compare-and-set from draft, scheduled,
 * sending, paused or failed) and its queued recipients (reason 'campaign cancelled'), in one
 * transaction. Returns the cancelled campaign and how many queued recipients it cancelled, or
 * undefined when it was not cancellable (completed or already cancelled, or not the workspace's). A pause or resume racing it loses: neither leaves
 * `cancelled`.
 */
export async function cancelCampaignRows(
  db: DbOrTx,
  workspaceId: string,
  id: number,
): Promise<{ campaign: Campaign; cancelledRecipients: number } | undefined> {
  return db.transaction(async (tx) => {
    const [c] = await tx
      .update(campaigns)
      // a paused campaign's cause ends with the pause (only a paused campaign has one); its
      // reason stays in `error`, which the screens show only while it is paused
      .set({ status: "cancelled", pauseCause: null, completedAt: new Date(), updatedAt: new Date() })
      .where(
        and(
          eq(campaigns.id, id),
          eq(campaigns.workspaceId, workspaceId),
          inArray(campaigns.status, [...CANCELLABLE]),
        ),
      )
      .returning();
    if (!c) return undefined;
    const cancelled = await tx
      .update(campaignRecipients)
      .set({ status: "cancelled", reason: "campaign cancelled", updatedAt: new Date() })
      .where(and(eq(campaignRecipients.campaignId, id), eq(campaignRecipients.status, "queued")))
      .returning({ id: campaignRecipients.id });
    return { campaign: c, cancelledRecipients: cancelled.length };
  });
}

/**
 * Queues a campaign's failed recipients again (attempts, reason and failed_at reset; the failed
 * attempt's vendor message id cleared, so a late status callback of that attempt matches no row
 * instead of landing on the row being resent); returns how many.
 */
export async function requeueFailedRecipients(db: DbOrTx, campaignId: number): Promise<number> {
  const requeued = await db
    .update(campaignRecipients)
    .set({
      status: "queued",
      reason: null,
      attempts: 0,
      notBefore: null,
      failedAt: null,
      providerMessageId: null,
      updatedAt: new Date(),
    })
    .where(and(eq(campaignRecipients.campaignId, campaignId), eq(campaignRecipients.status, "failed")))
    .returning({ id: campaignRecipients.id });
  return requeued.length;
}

/**
 * Applies an event's change to one recipient row (status, timestamps, reason) only when the fields
 * the event's decision read are still as `seen` had them: status, reason, and which of
 * delivered/opened/clicked/replied are set (optimistic concurrency: two concurrent clicks or a
 * double-posted unsubscribe change the row, and emit their webhook event, once). True when applied;
 * false when another writer changed the row first (the caller re-reads and decides again).
 */
export async function updateRecipientIfUnchanged(
  db: DbOrTx,
  seen: CampaignRecipient,
  set: Partial<typeof campaignRecipients.$inferInsert>,
): Promise<boolean> {
  const r = campaignRecipients;
  const same = (col: AnyColumn, v: Date | null) => (v ? isNotNull(col) : isNull(col));
  const rows = await db
    .update(r)
    .set(set)
    .where(
      and(
        eq(r.id, seen.id),
        eq(r.status, seen.status),
        seen.reason === null ? isNull(r.reason) : eq(r.reason, seen.reason),
        same(r.deliveredAt, seen.deliveredAt),
        same(r.openedAt, seen.openedAt),
        same(r.clickedAt, seen.clickedAt),
        same(r.repliedAt, seen.repliedAt),
      ),
    )
    .returning({ id: r.id });
  return rows.length > 0;
}

/**
 * Sets the text of recipient `id`'s latest SMS reply (`text`, as the person sent it, up to 1,600
 * characters): a second reply to a campaign's message replaces the first in the report.
 */
export async function updateRecipientReplyText(db: DbOrTx, id: number, text: string): Promise<void> {
  await db
    .update(campaignRecipients)
    .set({ replyText: text, updatedAt: new Date() })
    .where(eq(campaignRecipients.id, id));
}

/** One recipient by id (any workspace: event handlers re-read a row another writer changed), or undefined. */
export async function selectRecipientById(db: DbOrTx, id: number): Promise<CampaignRecipient | undefined> {
  const [r] = await db.select().from(campaignRecipients).where(eq(campaignRecipients.id, id));
  return r;
}

/**
 * Clears the `unsubscribed` mark of a workspace's recipients on `channels` at `address` (the address
 * re-subscribed: SMS START, Postmark reactivation), so a later opt-out is a new one. Returns how many.
 */
export async function clearRecipientOptOut(
  db: DbOrTx,
  workspaceId: string,
  channels: CampaignChannel[],
  address: string,
): Promise<number> {
  const rows = await db
    .update(campaignRecipients)
    .set({ reason: null, updatedAt: new Date() })
    .where(
      and(
        eq(campaignRecipients.workspaceId, workspaceId),
        inArray(campaignRecipients.channel, channels),
        eq(campaignRecipients.address, address),
        eq(campaignRecipients.reason, "unsubscribed"),
      ),
    )
    .returning({ id: campaignRecipients.id });
  return rows.length;
}

/** A recipient by its public token, or undefined. */
export async function selectRecipientByToken(
  db: DbOrTx,
  token: string,
): Promise<CampaignRecipient | undefined> {
  const [r] = await db.select().from(campaignRecipients).where(eq(campaignRecipients.token, token));
  return r;
}

/** A recipient by the vendor's message id, or undefined. */
export async function selectRecipientByProviderId(
  db: DbOrTx,
  providerMessageId: string,
): Promise<CampaignRecipient | undefined> {
  const [r] = await db
    .select()
    .from(campaignRecipients)
    .where(eq(campaignRecipients.providerMessageId, providerMessageId));
  return r;
}

/**
 * The latest recipient of each workspace (any workspace) on `channels` at `address` (its most recently
 * sent one, else an unsent one), most recently sent first, at most 200 workspaces. One row per
 * workspace, so a workspace that reached the address many times cannot push the others out of the
 * list an inbound STOP or a callback-menu "9" acts on (index campaign_recipients_address_idx).
 */
export async function selectRecipientsAtAddress(db: DbOrTx, channels: CampaignChannel[], address: string) {
  const latest = await db
    .selectDistinctOn([campaignRecipients.workspaceId])
    .from(campaignRecipients)
    .where(and(eq(campaignRecipients.address, address), inArray(campaignRecipients.channel, channels)))
    .orderBy(
      campaignRecipients.workspaceId,
      sql`${campaignRecipients.sentAt} desc nulls last`,
      desc(campaignRecipients.id),
    );
  const at = (r: { sentAt: Date | null }) => r.sentAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  return latest.sort((a, b) => at(b) - at(a) || b.id - a.id).slice(0, 200);
}

/** Records (provider, eventKey) of an inbound webhook; true the first time only (replay protection). */
export async function insertWebhookEventKey(
  db: DbOrTx,
  provider: string,
  eventKey: string,
): Promise<boolean> {
  const rows = await db
    .insert(webhookEvents)
    .values({ provider, eventKey })
    .onConflictDoNothing()
    .returning({ k: webhookEvents.eventKey });
  return rows.length > 0;
}

/**
 * Forgets (provider, eventKey) of an inbound webhook whose work failed, so the provider's retry of
 * the same delivery is not taken for a replay (campaigns.events onFirstDelivery).
 */
export async function deleteWebhookEventKey(db: DbOrTx, provider: string, eventKey: string): Promise<void> {
  await db
    .delete(webhookEvents)
    .where(and(eq(webhookEvents.provider, provider), eq(webhookEvents.eventKey, eventKey)));
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

/**
 * A campaign's report figures, each counted from the recipients' own rows: sent = handed to the
 * provider (sent_at set, whatever happened after), delivered / clicked / replied = their timestamp
 * set, opened = opened or clicked (a click implies the message was opened), bounced / failed /
 * skipped rows per reason = current status, softBounced = failed by a soft bounce (reason 'soft
 * bounce ...', campaigns.events SOFT_BOUNCE), answered / voicemail = completed calls a person / an
 * answering machine picked up (answered_by), noAnswer / busy = calls failed with Twilio's CallStatus
 * 'no-answer' / 'busy' (their reason; both are in `failed` too), talkSeconds = the seconds of the
 * completed calls (call_seconds, Twilio CallDuration; machine-answered calls included), and
 * `segments`: the SMS segments handed to the provider, of every attempt (segments_sent), so a resent
 * message's first attempt still counts.
 * optedOut = recipients who opted out from this campaign (opted_out_at: the unsubscribe link, a STOP
 * reply, a spam complaint, a key pressed during the call), kept when a later START re-subscribes the
 * number, so a past campaign's report keeps its opt-outs. A recipient not sent to yet is counted once:
 * one who opted out while waiting (quiet hours, a schedule) is opted out, not pending or cancelled;
 * once the send skips them for it, skipped (with the skip's reason), not opted out. So pending,
 * cancelled, skipped and optedOut never share a recipient.
 */
export async function selectReportFigures(pg: Sql, campaignId: number) {
  const [[f], skipped] = await Promise.all([
    pg<
      {
        sent: number;
        delivered: number;
        opened: number;
        clicked: number;
        replied: number;
        bounced: number;
        failed: number;
        softBounced: number;
        cancelled: number;
        pending: number;
        optedOut: number;
        answered: number;
        voicemail: number;
        noAnswer: number;
        busy: number;
        talkSeconds: number;
        segments: number | null;
      }[]
    >`
      select count(*) filter (where sent_at is not null)::int as sent,
        count(*) filter (where delivered_at is not null)::int as delivered,
        count(*) filter (where opened_at is not null or clicked_at is not null)::int as opened,
        count(*) filter (where clicked_at is not null)::int as clicked,
        count(*) filter (where replied_at is not null)::int as replied,
        count(*) filter (where status = 'bounced')::int as bounced,
        count(*) filter (where status = 'failed')::int as failed,
        count(*) filter (where status = 'failed' and reason like 'soft bounce%')::int as "softBounced",
        count(*) filter (where status = 'cancelled' and opted_out_at is null)::int as cancelled,
        count(*) filter (where status in ('queued', 'sending') and opted_out_at is null)::int as pending,
        count(*) filter (where opted_out_at is not null and status <> 'skipped')::int as "optedOut",
        count(*) filter (where delivered_at is not null and answered_by = 'human')::int as answered,
        count(*) filter (where delivered_at is not null and answered_by like 'machine%')::int as voicemail,
        count(*) filter (where status = 'failed' and reason = 'no-answer')::int as "noAnswer",
        count(*) filter (where status = 'failed' and reason = 'busy')::int as busy,
        coalesce(sum(call_seconds) filter (where delivered_at is not null), 0)::int as "talkSeconds",
        sum(segments_sent)::int as segments
      from campaign_recipients where campaign_id = ${campaignId}`,
    pg<{ reason: string | null; n: number }[]>`
      select reason, count(*)::int as n from campaign_recipients
      where campaign_id = ${campaignId} and status = 'skipped'
      group by reason order by n desc, reason`,
  ]);
  // an aggregate without GROUP BY always returns its one row
  const { segments, ...figures } = f as NonNullable<typeof f>;
  return { figures, skipped, segments: segments ?? 0 };
}

/** A report timeline's bucket size (selectReportTimeline). */
export type ReportBucket = "minute" | "hour" | "day" | "week";

/**
 * The bucket size of a report timeline whose activity runs from `first` to `last`: minutes up to 3
 * hours, hours up to 3 days, days up to 400 days, weeks after that, so a timeline has at most about
 * 400 buckets (selectReportTimeline also stops at 500).
 */
export function reportBucket(first: Date | null, last: Date | null): ReportBucket {
  const hours = first && last ? (last.getTime() - first.getTime()) / 3_600_000 : 0;
  return hours <= 3 ? "minute" : hours <= 72 ? "hour" : hours <= 400 * 24 ? "day" : "week";
}

/**
 * Sent / delivered / opened / clicked / replied / failed per bucket of a campaign, every bucket from
 * the first event's to the last one's (a bucket without activity is all zeros, so points far apart are
 * drawn far apart), at most 500. The bucket size follows the activity's span (reportBucket); buckets
 * are cut in IANA zone `timeZone` (the viewer's: an hour in Asia/Kolkata starts at :30 UTC, a day at
 * local midnight). `t` is each bucket's start. A local hour a daylight-saving change skips is left out.
 * A zone Postgres does not know (its tz database older than the runtime's) falls back to UTC;
 * `timeZone` in the answer is the zone the buckets were cut in.
 */
export async function selectReportTimeline(pg: Sql, campaignId: number, timeZone = "UTC") {
  const [span] = await pg<{ first: Date | null; last: Date | null }[]>`
    select least(min(sent_at), min(delivered_at), min(opened_at), min(clicked_at), min(replied_at), min(failed_at)) as first,
      greatest(max(sent_at), max(delivered_at), max(opened_at), max(clicked_at), max(replied_at), max(failed_at)) as last
    from campaign_recipients where campaign_id = ${campaignId}`;
  const first = span?.first ? new Date(span.first) : null;
  const last = span?.last ? new Date(span.last) : null;
  const unit = reportBucket(first, last);
  if (!first || !last) return { unit, timeZone, buckets: [] };
  const buckets = (tz: string) => pg<
    {
      t: Date;
      sent: number;
      delivered: number;
      opened: number;
      clicked: number;
      replied: number;
      failed: number;
    }[]
  >`
    with e as (
      select date_trunc(${unit}, sent_at at time zone ${tz}) as k, 1 as sent, 0 as delivered, 0 as opened, 0 as clicked, 0 as replied, 0 as failed from campaign_recipients where campaign_id = ${campaignId} and sent_at is not null
      union all select date_trunc(${unit}, delivered_at at time zone ${tz}), 0, 1, 0, 0, 0, 0 from campaign_recipients where campaign_id = ${campaignId} and delivered_at is not null
      union all select date_trunc(${unit}, opened_at at time zone ${tz}), 0, 0, 1, 0, 0, 0 from campaign_recipients where campaign_id = ${campaignId} and opened_at is not null
      union all select date_trunc(${unit}, clicked_at at time zone ${tz}), 0, 0, 0, 1, 0, 0 from campaign_recipients where campaign_id = ${campaignId} and clicked_at is not null
      union all select date_trunc(${unit}, replied_at at time zone ${tz}), 0, 0, 0, 0, 1, 0 from campaign_recipients where campaign_id = ${campaignId} and replied_at is not null
      union all select date_trunc(${unit}, failed_at at time zone ${tz}), 0, 0, 0, 0, 0, 1 from campaign_recipients where campaign_id = ${campaignId} and failed_at is not null
    ), c as (
      select k, sum(sent)::int as sent, sum(delivered)::int as delivered, sum(opened)::int as opened,
        sum(clicked)::int as clicked, sum(replied)::int as replied, sum(failed)::int as failed
      from e group by k
    ), s as (
      select k from generate_series(
        date_trunc(${unit}, ${first.toISOString()}::timestamptz at time zone ${tz}),
        date_trunc(${unit}, ${last.toISOString()}::timestamptz at time zone ${tz}),
        ${`1 ${unit}`}::interval) k
      limit 500
    )
    select s.k at time zone ${tz} as t, coalesce(c.sent, 0) as sent, coalesce(c.delivered, 0) as delivered,
      coalesce(c.opened, 0) as opened, coalesce(c.clicked, 0) as clicked, coalesce(c.replied, 0) as replied,
      coalesce(c.failed, 0) as failed
    from s left join c using (k)
    where ${unit} in ('day', 'week') or (s.k at time zone ${tz}) at time zone ${tz} = s.k
    order by s.k`;
  try {
    return { unit, timeZone, buckets: await buckets(timeZone) };
  } catch (e) {
    // 22023 invalid_parameter_value: 'time zone "..." not recognized'
    if ((e as { code?: string }).code !== "22023" || timeZone === "UTC") throw e;
    return { unit, timeZone: "UTC", buckets: await buckets("UTC") };
  }
}

// ---------------------------------------------------------------------------------------------
// The send engine (claims, leases, outcomes, watchdog)
// ---------------------------------------------------------------------------------------------

/** A claimed recipient; `lease` is the exact lease_until text (microseconds) that identifies the claim. */
export type ClaimedRecipient = Pick<
  CampaignRecipient,
  | "id"
  | "campaignId"
  | "workspaceId"
  | "contactId"
  | "channel"
  | "address"
  | "token"
  | "attempts"
  | "updatedAt"
  | "providerMessageId"
  | "outcomeUnknown"
> & { prevStatus: string; lease: string };

/**
 * Claims the sendable rows among `ids` (queued and due, or sending with an expired lease, of a
 * `sending` campaign): one UPDATE ... FOR UPDATE SKIP LOCKED moves them to `sending` with a lease of
 * `leaseSeconds` and counts the attempt. Only the claimer sends.
 */
export async function claimRecipients(
  pg: Sql,
  ids: number[],
  leaseSeconds: number,
): Promise<ClaimedRecipient[]> {
  if (ids.length === 0) return [];
  const rows = await pg<Record<string, unknown>[]>`
    with cand as (
      select r.id, r.status as prev_status
      from campaign_recipients r
      join campaigns c on c.id = r.campaign_id and c.status = 'sending'
      where r.id = any(${ids}::bigint[])
        and ((r.status = 'queued' and (r.not_before is null or r.not_before <= now()))
          or (r.status = 'sending' and r.lease_until < now()))
      for update of r skip locked
    )
    update campaign_recipients r
    set status = 'sending', lease_until = now() + make_interval(secs => ${leaseSeconds}),
        attempts = r.attempts + 1, updated_at = now()
    from cand where r.id = cand.id
    returning r.id, r.campaign_id, r.workspace_id, r.contact_id, r.channel, r.address, r.token, r.attempts,
      r.updated_at, r.provider_message_id, r.outcome_unknown, cand.prev_status, r.lease_until::text as lease`;
  return rows.map((r) => ({
    id: Number(r.id),
    campaignId: Number(r.campaign_id),
    workspaceId: String(r.workspace_id),
    contactId: r.contact_id === null ? null : Number(r.contact_id),
    channel: r.channel as CampaignChannel,
    address: String(r.address),
    token: String(r.token),
    attempts: Number(r.attempts),
    updatedAt: new Date(r.updated_at as string),
    providerMessageId: (r.provider_message_id as string | null) ?? null,
    outcomeUnknown: r.outcome_unknown === true,
    prevStatus: String(r.prev_status),
    lease: String(r.lease),
  }));
}

/**
 * Extends the lease of each row still held by the given claim (same lease_until text) by
 * `leaseSeconds`; returns id -> new lease for the rows still ours.
 */
export async function extendLeases(
  pg: Sql,
  rows: { id: number; lease: string }[],
  leaseSeconds: number,
): Promise<Map<number, string>> {
  if (rows.length === 0) return new Map();
  const json = JSON.stringify(rows.map((r) => ({ id: r.id, lease: r.lease })));
  const kept = await pg<{ id: string; lease: string }[]>`
    update campaign_recipients r set lease_until = now() + make_interval(secs => ${leaseSeconds})
    from jsonb_to_recordset(${json}::jsonb) as v(id bigint, lease text)
    where r.id = v.id and r.status = 'sending' and r.lease_until = v.lease::timestamptz
    returning r.id, r.lease_until::text as lease`;
  return new Map(kept.map((k) => [Number(k.id), k.lease]));
}

/**
 * How many of the workspace's campaign's rows a send engine holds right now: `sending` with a live lease (claimed,
 * and waiting for the send throttle, being screened or being handed to the provider). A claim ends
 * when its rows are sent, failed, queued again or released (a paused or cancelled campaign's part
 * releases them at its next status check), or when its lease lapses (a crashed worker).
 */
export async function countLiveClaims(pg: Sql, workspaceId: string, campaignId: number): Promise<number> {
  const [r] = await pg<{ n: number }[]>`
    select count(*)::int as n from campaign_recipients
    where workspace_id = ${workspaceId} and campaign_id = ${campaignId}
      and status = 'sending' and lease_until > now()`;
  return r?.n ?? 0;
}

/** A campaign's status (any workspace: the send engine between paced parts), or undefined. */
export async function selectCampaignStatus(db: DbOrTx, id: number): Promise<Campaign["status"] | undefined> {
  const [c] = await db.select({ status: campaigns.status }).from(campaigns).where(eq(campaigns.id, id));
  return c?.status;
}

/**
 * Gives back claimed rows not sent yet, each only while still held by that claim (`sending`, same
 * lease_until): with `cancelled` they end `cancelled` ('campaign cancelled', as the cancel did to the
 * queued rows); otherwise they are queued again, due now, their attempt given back (a paused
 * campaign's resume sends them). Returns how many rows it changed.
 */
export async function releaseClaims(
  pg: Sql,
  rows: { id: number; lease: string }[],
  cancelled: boolean,
): Promise<number> {
  if (rows.length === 0) return 0;
  const json = JSON.stringify(rows.map((r) => ({ id: r.id, lease: r.lease })));
  const released = await pg`
    update campaign_recipients r
    set status = ${cancelled ? "cancelled" : "queued"},
        reason = ${cancelled ? "campaign cancelled" : null},
        lease_until = null, not_before = null, updated_at = now(),
        attempts = greatest(r.attempts - 1, 0)
    from jsonb_to_recordset(${json}::jsonb) as v(id bigint, lease text)
    where r.id = v.id and r.status = 'sending' and r.lease_until = v.lease::timestamptz
    returning r.id`;
  return released.length;
}

/**
 * Marks claimed rows sent (vendor id, segments, opt-out notice; only rows still `sending`), adding
 * the message's segments to the row's segments_sent (every attempt's count); a row a click or view
 * reached before this record (campaigns.events: only its timestamps were set) takes the furthest
 * status they show (replied, clicked, opened, delivered) instead of `sent`; and
 * returns `{id, contactId, address, providerMessageId}` of those it changed.
 */
export async function markRecipientsSent(
  db: DbOrTx,
  rows: {
    id: number;
    providerMessageId: string;
    segments: number;
    optOutNotice: boolean;
    /** the address it went to when not the launch's (the contact's changed since); null keeps it */
    address?: string | null;
  }[],
): Promise<{ id: number; contactId: number | null; address: string; providerMessageId: string }[]> {
  if (rows.length === 0) return [];
  const json = JSON.stringify(
    rows.map((o) => ({
      id: o.id,
      pid: o.providerMessageId,
      seg: o.segments,
      notice: o.optOutNotice,
      addr: o.address ?? null,
    })),
  );
  const updated = (await db.execute(sql`
    update campaign_recipients r set
      status = case when r.replied_at is not null then 'replied' when r.clicked_at is not null then 'clicked'
        when r.opened_at is not null then 'opened' when r.delivered_at is not null then 'delivered' else 'sent' end,
      provider_message_id = v.pid, sent_at = now(),
      segments = v.seg, segments_sent = r.segments_sent + v.seg, opt_out_notice = v.notice,
      address = coalesce(v.addr, r.address), lease_until = null, reason = null, updated_at = now()
    from jsonb_to_recordset(${json}::jsonb) as v(id bigint, pid text, seg int, notice boolean, addr text)
    where r.id = v.id and r.status = 'sending'
    returning r.id, r.contact_id, r.address, v.pid`)) as unknown as {
    id: string;
    contact_id: string | null;
    address: string;
    pid: string;
  }[];
  return updated.map((u) => ({
    id: Number(u.id),
    contactId: u.contact_id === null ? null : Number(u.contact_id),
    address: u.address,
    providerMessageId: u.pid,
  }));
}

/**
 * Puts claimed rows back in the queue until `notBefore` (retry after a transient error, or deferred
 * by quiet hours: a deferral gives its attempt back and keeps its `outcome_unknown`). A retry's
 * `unknown` (default false: whether the vendor may have taken this attempt) sets `outcome_unknown`,
 * which stays set once set: a later attempt refused (429) says nothing of the earlier one the vendor
 * may have taken, whose lookup may have come before the vendor's search showed it. It was replaced by
 * each retry's, so the attempt after a refusal sent again without asking. Only rows still `sending`.
 */
export async function requeueRecipients(
  db: DbOrTx,
  rows: { id: number; notBefore: Date; reason: string | null; deferred: boolean; unknown?: boolean }[],
): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(
    rows.map((o) => ({
      id: o.id,
      nb: o.notBefore.toISOString(),
      reason: o.reason,
      deferred: o.deferred,
      unknown: o.unknown ?? false,
    })),
  );
  await db.execute(sql`
    update campaign_recipients r set status = 'queued', not_before = v.nb, reason = v.reason,
      lease_until = null, updated_at = now(),
      attempts = case when v.deferred then greatest(r.attempts - 1, 0) else r.attempts end,
      outcome_unknown = r.outcome_unknown or (not v.deferred and v.unknown)
    from jsonb_to_recordset(${json}::jsonb) as v(id bigint, nb timestamptz, reason text, deferred boolean, unknown boolean)
    where r.id = v.id and r.status = 'sending'`);
}

/**
 * Ends claimed rows as failed (failed_at now) or skipped, with their reason and, when given, the
 * address they were screened at (the contact's, changed since the launch). `unknown`: a failure
 * after which the vendor may still have taken the message (a last attempt that timed out), set as
 * `outcome_unknown` (never cleared here: an earlier attempt's unknown outcome stays), so a resend of
 * failed rows looks it up before sending again. Only rows still `sending`; returns how many it ended.
 */
export async function finishRecipients(
  db: DbOrTx,
  rows: {
    id: number;
    status: "failed" | "skipped";
    reason: string | null;
    address?: string | null;
    unknown?: boolean;
  }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const json = JSON.stringify(
    rows.map((r) => ({ ...r, address: r.address ?? null, unknown: r.unknown ?? false })),
  );
  const done = await db.execute(sql`
    update campaign_recipients r set status = v.status, reason = v.reason, lease_until = null,
      address = coalesce(v.address, r.address), outcome_unknown = r.outcome_unknown or v.unknown,
      failed_at = case when v.status = 'failed' then now() else r.failed_at end, updated_at = now()
    from jsonb_to_recordset(${json}::jsonb) as v(id bigint, status text, reason text, address text, unknown boolean)
    where r.id = v.id and r.status = 'sending'
    returning r.id`);
  return (done as unknown as unknown[]).length;
}

/**
 * Which of a part's rows (`rows`: claimed, screened and about to be sent, each at the address it
 * goes to, `moved` when that is its contact's address changed since the launch) would be a second
 * message to an address: another row of campaign `campaignId` was sent there (sent_at set) or is
 * being sent there (`sending`: a row claimed at its launch address, or a moved row another part
 * reserved), other than the part's own rows (`partIds`: `rows` and those the screen ended or
 * deferred, still `sending` until recorded; twice in one part is the screen's). The moved rows not
 * taken reserve their address on their row (only while still held by their claim: `sending`, same
 * lease_until), so a concurrent part whose contact moved onto the same address sees it. The check
 * and the reservation hold the campaign's advisory lock (ADVISORY_LOCK.campaignAddresses) in one
 * transaction: two parts of one campaign (two chunks, two workers) each checked before either had
 * written its moved address, and both sent. Returns the ids of the rows whose address was taken.
 * Served by (campaign_id, address) (migration 0051).
 */
export async function reserveAddresses(
  pg: Sql,
  campaignId: number,
  rows: { id: number; address: string; lease: string; moved: boolean }[],
  partIds: number[],
): Promise<Set<number>> {
  if (rows.length === 0) return new Set();
  const ids = [...new Set([...partIds, ...rows.map((r) => r.id)])];
  const addresses = [...new Set(rows.map((r) => r.address))];
  return pg.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${ADVISORY_LOCK.campaignAddresses}, hashtext(${String(campaignId)}::text))`;
    const reached = await tx<{ address: string }[]>`
      select distinct address from campaign_recipients
      where campaign_id = ${campaignId} and address = any(${addresses}::text[])
        and not (id = any(${ids}::bigint[]))
        and (sent_at is not null or status = 'sending')`;
    const taken = new Set(reached.map((r) => r.address));
    const mine = rows.filter((r) => r.moved && !taken.has(r.address));
    if (mine.length) {
      const json = JSON.stringify(mine.map((r) => ({ id: r.id, address: r.address, lease: r.lease })));
      await tx`
        update campaign_recipients r set address = v.address
        from jsonb_to_recordset(${json}::jsonb) as v(id bigint, address text, lease text)
        where r.id = v.id and r.status = 'sending' and r.lease_until = v.lease::timestamptz`;
    }
    return new Set(rows.filter((r) => taken.has(r.address)).map((r) => r.id));
  }) as Promise<Set<number>>;
}

/** Which of `addresses` already got the SMS opt-out notice from `workspaceId` (a sent sms / video_sms). */
export async function selectNoticedSmsAddresses(pg: Sql, workspaceId: string, addresses: string[]) {
  const prior = await pg<{ address: string }[]>`
    select distinct address from campaign_recipients
    where workspace_id = ${workspaceId} and channel in ('sms', 'video_sms') and address = any(${addresses}::text[])
      and opt_out_notice and sent_at is not null`;
  return new Set(prior.map((p) => p.address));
}

/** A campaign's queued rows by id, each with its not_before in epoch milliseconds (null: due). */
export async function selectQueuedRecipients(pg: Sql, campaignId: number) {
  const rows = await pg<{ id: string; nb: string | null }[]>`
    select id, (extract(epoch from not_before) * 1000)::bigint::text as nb
    from campaign_recipients
    where campaign_id = ${campaignId} and status = 'queued'
    order by id`;
  return rows.map((r) => ({ id: Number(r.id), notBefore: r.nb === null ? null : Number(r.nb) }));
}

/** Rows of a campaign still queued (not claimed by a send). */
export async function countQueuedRecipients(pg: Sql, campaignId: number): Promise<number> {
  const [row] = await pg<{ n: number }[]>`
    select count(*)::int as n from campaign_recipients
    where campaign_id = ${campaignId} and status = 'queued'`;
  return row?.n ?? 0;
}

/** Rows of a campaign still queued or sending (the watchdog's completion test). */
export async function countQueuedOrSending(pg: Sql, campaignId: number): Promise<number> {
  const [row] = await pg<{ pending: number }[]>`
    select count(*)::int as pending from campaign_recipients
    where campaign_id = ${campaignId} and status in ('queued', 'sending')`;
  return row?.pending ?? 0;
}

/** True when a row of the campaign other than a queued one changed in the last `seconds`. */
export async function campaignMoved(pg: Sql, campaignId: number, seconds: number): Promise<boolean> {
  const [row] = await pg<{ moving: boolean }[]>`
    select exists (
      select 1 from campaign_recipients
      where campaign_id = ${campaignId} and status <> 'queued'
        and updated_at > now() - make_interval(secs => ${seconds})) as moving`;
  return !!row?.moving;
}

/**
 * Touches (updated_at = now) and returns the ids of up to 5,000 stalled rows of a campaign: sending
 * past their lease, and with `includeQueued`, due queued rows untouched for `leaseSeconds`. Never
 * waits on a row a worker is recording or claiming right now (SKIP LOCKED: no deadlock with its
 * multi-row UPDATE; that row is being resolved anyway).
 */
export async function touchStalledRecipients(
  pg: Sql,
  campaignId: number,
  leaseSeconds: number,
  includeQueued: boolean,
): Promise<number[]> {
  const stuck = await pg<{ id: string }[]>`
    update campaign_recipients set updated_at = now()
    where id in (
      select id from campaign_recipients
      where campaign_id = ${campaignId}
        and ((status = 'sending' and lease_until < now())
          or (${includeQueued} and status = 'queued' and (not_before is null or not_before <= now())
              and updated_at < now() - make_interval(secs => ${leaseSeconds})))
      order by id
      limit 5000
      for update skip locked)
    returning id`;
  return stuck.map((s) => Number(s.id));
}

// ---------------------------------------------------------------------------------------------
// SMS opt-out decisions (STOP / START replies)
// ---------------------------------------------------------------------------------------------

/** Records a STOP or START reply; returns its id, or undefined when that provider message was recorded before. */
export async function insertSmsOptEvent(
  db: DbOrTx,
  values: { phone: string; kind: "stop" | "start"; providerMessageId: string; providerTime: Date },
): Promise<number | undefined> {
  const [row] = await db
    .insert(smsOptEvents)
    .values(values)
    .onConflictDoNothing()
    .returning({ id: smsOptEvents.id });
  return row?.id;
}

/**
 * The opt-out decision recorded for the provider's message `providerMessageId` (an SMS's
 * MessageSid): `{id, phone, kind, providerTime}`, or undefined.
 */
export async function selectSmsOptEventByMessage(db: DbOrTx, providerMessageId: string) {
  const [row] = await db
    .select({
      id: smsOptEvents.id,
      phone: smsOptEvents.phone,
      kind: smsOptEvents.kind,
      providerTime: smsOptEvents.providerTime,
    })
    .from(smsOptEvents)
    .where(eq(smsOptEvents.providerMessageId, providerMessageId));
  return row;
}

/** The id of a number's latest opt-out decision (latest provider time; ties: the later arrival). */
export async function latestSmsOptEventId(db: DbOrTx, phone: string): Promise<number | undefined> {
  const [latest] = await db
    .select({ id: smsOptEvents.id })
    .from(smsOptEvents)
    .where(eq(smsOptEvents.phone, phone))
    .orderBy(desc(smsOptEvents.providerTime), desc(smsOptEvents.id))
    .limit(1);
  return latest?.id;
}

/** How long a provider event whose message id matched no recipient is held (campaign_early_events). */
const EARLY_EVENT_HOLD = sql`interval '1 hour'`;

/**
 * Holds a provider event whose message id matched no recipient yet (campaign_early_events) and purges
 * the held events older than an hour. Returns the held event's id.
 */
export async function insertEarlyEvent(
  db: DbOrTx,
  e: { provider: string; providerMessageId: string; payload: Record<string, unknown> },
): Promise<number> {
  await db
    .delete(campaignEarlyEvents)
    .where(lt(campaignEarlyEvents.receivedAt, sql`now() - ${EARLY_EVENT_HOLD}`));
  const [row] = await db.insert(campaignEarlyEvents).values(e).returning({ id: campaignEarlyEvents.id });
  return (row as { id: number }).id;
}

/**
 * The drop id of a Drop Cowboy status callback held for the drop sent with `foreignId` (our
 * recipient key, campaigns.delivery vendorKey), or null: a callback whose drop id matched no recipient
 * because the drop's answer was lost (holdEarlyEvent keeps it an hour; the route checked its token
 * for that foreign_id before holding it). Drop Cowboy has no API to look a drop up, so this is how a
 * retry learns that the attempt whose answer was lost was taken.
 */
export async function selectHeldDropId(db: DbOrTx, foreignId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: campaignEarlyEvents.providerMessageId })
    .from(campaignEarlyEvents)
    .where(
      and(
        eq(campaignEarlyEvents.provider, "dropcowboy"),
        sql`${campaignEarlyEvents.payload}->>'foreign_id' = ${foreignId}`,
      ),
    )
    .orderBy(campaignEarlyEvents.id)
    .limit(1);
  return row?.id ?? null;
}

/** Takes (deletes and returns) the held event `id`, or null when another caller took it first. */
export async function takeEarlyEvent(
  db: DbOrTx,
  id: number,
): Promise<{ provider: string; providerMessageId: string; payload: Record<string, unknown> } | null> {
  const [row] = await db.delete(campaignEarlyEvents).where(eq(campaignEarlyEvents.id, id)).returning({
    provider: campaignEarlyEvents.provider,
    providerMessageId: campaignEarlyEvents.providerMessageId,
    payload: campaignEarlyEvents.payload,
  });
  return row ?? null;
}

/** Takes (deletes and returns, oldest first) the held events of the message ids `ids`. */
export async function takeEarlyEventsOf(
  db: DbOrTx,
  ids: string[],
): Promise<{ provider: string; providerMessageId: string; payload: Record<string, unknown> }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .delete(campaignEarlyEvents)
    .where(inArray(campaignEarlyEvents.providerMessageId, ids))
    .returning({
      id: campaignEarlyEvents.id,
      provider: campaignEarlyEvents.provider,
      providerMessageId: campaignEarlyEvents.providerMessageId,
      payload: campaignEarlyEvents.payload,
    });
  return rows.sort((a, b) => a.id - b.id).map(({ id: _id, ...r }) => r);
}
