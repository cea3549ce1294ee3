import type { DbOrTx } from "../../db/client";
import type { Campaign } from "../../db/schema";
import type { JobDeps } from "../../jobs/define";
import { uuidFromKey } from "../../lib/ids";
import { recordActivities } from "../crm/crm.service";
import { emitWebhookEvent, queueWebhookDeliveries } from "../webhooks/webhooks.service";
import { campaignEventBase, laterJobs, mapLimit, SEND_CHUNK, sendJobs } from "./campaigns.delivery";
import {
  notifyCampaignCompletedJob,
  sendMessageJob,
  simulateEngagementJob,
  watchCampaignJob,
} from "./campaigns.jobs";
import {
  type ClaimedRecipient,
  campaignMoved,
  claimRecipients,
  completeSendingCampaign,
  countPendingRecipients,
  countQueuedOrSending,
  selectCampaign,
  selectCampaignsByIds,
  selectQueuedRecipients,
  selectSendingCampaignIds,
  touchStalledRecipients,
} from "./campaigns.queries";
import { sendClaimed } from "./campaigns.send";

export {
  backoffSeconds,
  deliveryKind,
  MAX_ATTEMPTS,
  SEND_CHUNK,
  sentActivity,
  suppressionChannel,
  vendorKey,
} from "./campaigns.delivery";

/*
 * The send engine. Guarantee (documented honestly, see also the report):
 *
 * 1. Idempotency key: one campaign_recipients row per (campaign, contact, channel) (unique index).
 *    A send job carries up to 500 row ids; its pg-boss id is derived from (campaign, round, id
 *    range), so a re-enqueue is ignored. Jobs only point at rows: a duplicate, stale or overlapping
 *    job sends nothing twice, because only the claim below decides who sends.
 * 2. Claim: a worker moves rows queued -> sending with a lease (CAMPAIGN_SEND_LEASE_SECONDS) in one
 *    UPDATE ... FOR UPDATE SKIP LOCKED. Only the claimer sends. A row still `sending` after its lease
 *    (the worker died) may be re-claimed by anyone.
 * 3. A re-claimed row, and a retry whose last attempt's outcome is unknown (`outcome_unknown`: a
 *    timeout or 5xx may come after the vendor accepted the message; a 429 did not and is retried
 *    without a lookup, unless an earlier attempt's outcome is unknown: the flag stays set once set;
 *    a failed row whose last attempt's outcome was unknown keeps the flag, so "Resend to failed
 *    only" looks it up too), is first looked up at the provider by its idempotency key
 *    (`findSent`: the outbox row for local providers, Postmark metadata search, Twilio list by
 *    To+body; Drop Cowboy, which has no lookup, by its status callback held for the drop's foreign_id,
 *    waited for DROP_REPORT_WAIT_MS); found -> recorded as sent without sending again.
 * 4. The outcome (sent / retry / failed) and the contact activity are written in one transaction,
 *    guarded by `status = 'sending'`.
 * 5. A per-campaign watchdog job completes the campaign and re-enqueues rows whose job was lost.
 *
 * So with the local providers a kill -9 at any point yields no duplicate and no loss (the outbox
 * write is atomic and findSent is exact). With vendors, a duplicate is possible only when the vendor
 * accepted a message but its lookup cannot see it (Twilio's list lags, or a body changed), or when a
 * worker is frozen (not dead) longer than the lease while its HTTP call is in flight; the HTTP
 * timeout (15 s) is far below the default lease (60 s).
 */

/**
 * Chunks of one pg-boss fetch in flight at once: overlaps rendering with database round trips
 * (with the worker's 2 fetch loops of 2 jobs each, 4 chunks of 500 per process).
 */
const CHUNK_CONCURRENCY = 2;

/**
 * Processes send jobs for `recipientIds` (any campaigns): claim, then part by part (one second's
 * worth of the channel's rate) compliance re-check (contact deleted, suppression list, channel
 * opt-in, quiet hours), crash recovery lookup, throttled send, outcome recording (campaigns.send.ts).
 * Safe to call with ids that are already sent, in flight, paused or cancelled: they are simply not
 * claimed. Ids are handled in chunks of SEND_CHUNK (a few chunks concurrently).
 */
export async function processRecipients(deps: JobDeps, recipientIds: number[]): Promise<void> {
  const unique = [...new Set(recipientIds)];
  const chunks: number[][] = [];
  for (let i = 0; i < unique.length; i += SEND_CHUNK) chunks.push(unique.slice(i, i + SEND_CHUNK));
  await mapLimit(chunks, CHUNK_CONCURRENCY, (ids) => processChunk(deps, ids));
}

/** Claims one chunk's sendable rows and sends them campaign by campaign. */
async function processChunk(deps: JobDeps, recipientIds: number[]): Promise<void> {
  const claimedAt = Date.now();
  const claimed = await claimRecipients(deps.sql, recipientIds, deps.env.CAMPAIGN_SEND_LEASE_SECONDS);
  if (claimed.length === 0) return;
  const byCampaign = new Map<number, ClaimedRecipient[]>();
  for (const r of claimed) {
    const list = byCampaign.get(r.campaignId);
    if (list) list.push(r);
    else byCampaign.set(r.campaignId, [r]);
  }
  for (const campaign of await selectCampaignsByIds(deps.db, [...byCampaign.keys()]))
    await sendClaimed(deps, campaign, byCampaign.get(campaign.id) ?? [], claimedAt);
}

/**
 * Enqueues send jobs for due queued recipients `ids` (ascending) of a campaign, SEND_CHUNK per job,
 * with job ids deterministic per campaign round (fanOut and launch produce the same ids).
 */
export async function enqueueDue(
  deps: Pick<JobDeps, "jobs">,
  campaign: Pick<Campaign, "id" | "round">,
  ids: number[],
): Promise<void> {
  if (ids.length === 0) return;
  await deps.jobs.sendMany(
    sendMessageJob,
    sendJobs(ids, (a, b, n) => `send:${campaign.id}:${campaign.round}:${a}-${b}:${n}`),
  );
}

/**
 * Enqueues send jobs for the campaign's queued recipients: due rows in jobs of SEND_CHUNK ids (a few
 * large pg-boss jobs instead of one per recipient), deferred rows (quiet hours) one job each at
 * their time. Job ids are deterministic per campaign round, so re-running is harmless. Returns how
 * many rows were queued.
 */
export async function fanOut(deps: JobDeps, campaign: Campaign): Promise<number> {
  const rows = await selectQueuedRecipients(deps.sql, campaign.id);
  const now = Date.now();
  const due: number[] = [];
  const later: { id: number; at: number }[] = [];
  for (const r of rows) {
    const at = r.notBefore ?? 0;
    if (at > now) later.push({ id: r.id, at });
    else due.push(r.id);
  }
  await enqueueDue(deps, campaign, due);
  await deps.jobs.sendMany(
    sendMessageJob,
    laterJobs(later, (a, b, n, at) => `send:${campaign.id}:${campaign.round}:${a}-${b}:${n}:${at}`),
  );
  return rows.length;
}

/**
 * The watchdog pass for one campaign: completes it when nothing is queued or sending (emitting
 * `campaign.completed`); otherwise re-enqueues rows whose job was lost (queued and untouched for a
 * lease, or sending past the lease) and schedules the next pass. Returns the campaign's status
 * after the pass (null for an unknown campaign).
 */
export async function watchCampaign(deps: JobDeps, campaignId: number): Promise<string | null> {
  const campaign = await selectCampaign(deps.db, campaignId);
  if (campaign?.status !== "sending") return campaign?.status ?? null;
  if ((await countQueuedOrSending(deps.sql, campaignId)) === 0) {
    await completeCampaign(deps, campaign);
    return "completed";
  }
  await recoverStalled(deps, campaignId);
  const every = deps.env.CAMPAIGN_WATCHDOG_SECONDS;
  const at = Math.ceil(Date.now() / 1000 / every) * every;
  await deps.jobs.send(
    watchCampaignJob,
    { campaignId },
    { id: uuidFromKey(`watch:${campaignId}:${at}`), startAfter: new Date(at * 1000) },
  );
  return "sending";
}

/**
 * Marks a sending campaign completed (once) and stores `campaign.completed` in the same transaction
 * (the webhooks outbox; its deliveries queued after the commit), queues the campaign-finished email
 * (campaigns.notify: one job per campaign and round), and with the local providers simulates
 * engagement.
 */
async function completeCampaign(deps: JobDeps, campaign: Campaign): Promise<void> {
  const emitted = await deps.db.transaction(async (tx) => {
    if (!(await completeSendingCampaign(tx, campaign.id))) return null;
    return emitWebhookEvent({ db: tx, log: deps.log }, campaign.workspaceId, "campaign.completed", {
      ...campaignEventBase(campaign),
      status: "completed",
      completed_at: new Date().toISOString(),
    });
  });
  if (!emitted) return;
  await queueWebhookDeliveries(deps, emitted);
  await deps.jobs.send(
    notifyCampaignCompletedJob,
    { campaignId: campaign.id },
    { id: uuidFromKey(`notify-completed:${campaign.id}:${campaign.round}`) },
  );
  if (shouldSimulate(deps))
    await deps.jobs.send(
      simulateEngagementJob,
      { campaignId: campaign.id },
      { id: uuidFromKey(`simulate:${campaign.id}:${campaign.round}`) },
    );
}

/**
 * Stall detector: queued rows are re-enqueued only when the campaign made no progress for a whole
 * lease (their jobs were lost with a killed worker); while rows keep moving, their jobs exist and
 * re-enqueueing them would only flood the queue. Expired `sending` rows are always recovered.
 */
async function recoverStalled(deps: JobDeps, campaignId: number): Promise<void> {
  const lease = deps.env.CAMPAIGN_SEND_LEASE_SECONDS;
  const moving = await campaignMoved(deps.sql, campaignId, lease);
  const stuck = await touchStalledRecipients(deps.sql, campaignId, lease, !moving);
  if (stuck.length === 0) return;
  const slot = Math.floor(Date.now() / 1000);
  const ids = stuck.sort((a, b) => a - b);
  await deps.jobs.sendMany(
    sendMessageJob,
    sendJobs(ids, (a, b, n) => `recover:${a}-${b}:${n}:${slot}`),
  );
}

/** True when the local providers should simulate delivery, opens and clicks. */
export function shouldSimulate(deps: Pick<JobDeps, "env" | "providers">): boolean {
  const flag = deps.env.CAMPAIGN_SIMULATE_ENGAGEMENT;
  if (flag !== undefined) return flag === "true" || flag === "1";
  return !deps.env.isProduction;
}

/** Re-arms the watchdog of every sending campaign (worker boot after a crash). Returns how many. */
export async function recoverCampaigns(deps: JobDeps): Promise<number> {
  const ids = await selectSendingCampaignIds(deps.db);
  for (const id of ids) await watchCampaign(deps, id);
  return ids.length;
}

/** Rows of a campaign still queued or sending. */
export async function pendingCount(db: DbOrTx, campaignId: number): Promise<number> {
  return countPendingRecipients(db, campaignId);
}

/** Records contact activities for campaign events (thin wrapper so webhooks and pages share it). */
export async function recordCampaignActivities(
  db: DbOrTx,
  rows: {
    workspaceId: string;
    contactId: number;
    activityType: string;
    metadata?: Record<string, unknown>;
  }[],
) {
  await recordActivities(db, rows);
}
