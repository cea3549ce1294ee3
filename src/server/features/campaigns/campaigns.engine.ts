import { createHash } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import {
  type Campaign,
  type CampaignChannel,
  type CampaignRecipient,
  campaignRecipients,
  campaigns,
} from "../../db/schema";
import type { JobDeps } from "../../jobs/define";
import { ProviderError } from "../../providers/errors";
import { findSuppressed, type SuppressionChannel } from "../compliance/compliance.service";
import { quietHoursCheck } from "../compliance/quiet-hours";
import { getContactsByIds, recordActivities } from "../crm/crm.service";
import { emitWebhookEvent } from "../webhooks/webhooks.service";
import { getSenderProfile } from "../workspaces/workspaces.service";
import {
  buildEmailTemplate,
  type EmailTemplate,
  mergeSource,
  renderEmailFor,
  renderScriptFor,
  renderSmsFor,
} from "./campaigns.content";
import { sendMessageJob, simulateEngagementJob, watchCampaignJob } from "./campaigns.jobs";

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
 * 3. A re-claimed row is first looked up at the provider by its idempotency key (`findSent`: the
 *    outbox row for local providers, Postmark metadata search, Twilio list by To+body); found ->
 *    recorded as sent without sending again.
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

export const MAX_ATTEMPTS = 5;
const SENDABLE = ["queued", "sending"] as const;

/** The provider channel a campaign channel sends through. */
export function deliveryKind(channel: CampaignChannel): "email" | "sms" | "voice" | "voicemail" {
  if (channel === "video_email") return "email";
  if (channel === "video_sms") return "sms";
  return channel;
}

/** Suppression-list channel of a campaign channel. */
export function suppressionChannel(channel: CampaignChannel): SuppressionChannel {
  return deliveryKind(channel);
}

/** The contact activity a successful send records. */
export function sentActivity(channel: CampaignChannel): string {
  return { email: "email_sent", sms: "sms_sent", voice: "call_made", voicemail: "voicemail_sent" }[
    deliveryKind(channel)
  ];
}

/** A deterministic UUID (v4 layout) from a string key: the pg-boss job id for an idempotent enqueue. */
export function uuidFromKey(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The vendor idempotency key of one recipient: its row id. It does not change across pause/resume
 * rounds, so a row claimed before a pause and re-claimed after is still recognised by `findSent`.
 */
export function vendorKey(r: Pick<CampaignRecipient, "id">): string {
  return `cr-${r.id}`;
}

/** Exponential backoff for transient vendor errors: 2^attempts seconds, 2 s .. 10 min. */
export function backoffSeconds(attempts: number): number {
  return Math.min(600, 2 ** Math.max(1, attempts));
}

/** Token bucket per channel per process (`SEND_RATE_*_PER_SEC`). */
class Throttle {
  private tokens: number;
  private last = Date.now();
  constructor(private readonly rate: number) {
    this.tokens = rate;
  }
  async take(n: number): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.rate, this.tokens + ((now - this.last) / 1000) * this.rate);
      this.last = now;
      if (this.tokens >= Math.min(n, this.rate)) {
        this.tokens -= n;
        return;
      }
      const wait = ((Math.min(n, this.rate) - this.tokens) / this.rate) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(5, wait)));
    }
  }
}
const throttles = new Map<string, Throttle>();
function throttleFor(deps: JobDeps, kind: ReturnType<typeof deliveryKind>): Throttle {
  const rate =
    kind === "email"
      ? deps.env.SEND_RATE_EMAIL_PER_SEC
      : kind === "sms"
        ? deps.env.SEND_RATE_SMS_PER_SEC
        : deps.env.SEND_RATE_VOICE_PER_SEC;
  const key = `${kind}:${rate}`;
  let t = throttles.get(key);
  if (!t) {
    t = new Throttle(rate);
    throttles.set(key, t);
  }
  return t;
}

/** A claimed row; `lease` is the exact lease_until text (microseconds) that identifies this claim. */
type Claimed = CampaignRecipient & { prevStatus: string; lease: string };

/**
 * Re-checks that each row is still ours (same lease_until as our claim) and extends the lease, just
 * before the provider call. A row whose lease expired and was re-claimed elsewhere (a throttle wait
 * longer than the lease) is dropped here, so two workers never both send it.
 */
async function confirmLease(deps: JobDeps, rows: Claimed[]): Promise<Claimed[]> {
  if (rows.length === 0) return rows;
  const json = JSON.stringify(rows.map((r) => ({ id: r.id, lease: r.lease })));
  const kept = await deps.sql<{ id: string; lease: string }[]>`
    update campaign_recipients r set lease_until = now() + make_interval(secs => ${deps.env.CAMPAIGN_SEND_LEASE_SECONDS})
    from jsonb_to_recordset(${json}::jsonb) as v(id bigint, lease text)
    where r.id = v.id and r.status = 'sending' and r.lease_until = v.lease::timestamptz
    returning r.id, r.lease_until::text as lease`;
  const mine = new Map(kept.map((k) => [Number(k.id), k.lease]));
  return rows.filter((r) => mine.has(r.id)).map((r) => ({ ...r, lease: mine.get(r.id) as string }));
}

/** Claims sendable rows among `ids` (queued and due, or sending with an expired lease) for this worker. */
async function claim(deps: JobDeps, ids: number[]): Promise<Claimed[]> {
  if (ids.length === 0) return [];
  const lease = deps.env.CAMPAIGN_SEND_LEASE_SECONDS;
  const rows = await deps.sql<Record<string, unknown>[]>`
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
    set status = 'sending', lease_until = now() + make_interval(secs => ${lease}),
        attempts = r.attempts + 1, updated_at = now()
    from cand where r.id = cand.id
    returning r.id, r.campaign_id, r.workspace_id, r.contact_id, r.channel, r.address, r.token, r.attempts,
      r.updated_at, r.provider_message_id, cand.prev_status, r.lease_until::text as lease`;
  return rows.map((r) => ({
    id: Number(r.id),
    campaignId: Number(r.campaign_id),
    workspaceId: String(r.workspace_id),
    contactId: Number(r.contact_id),
    channel: r.channel as CampaignChannel,
    address: String(r.address),
    token: String(r.token),
    attempts: Number(r.attempts),
    updatedAt: new Date(r.updated_at as string),
    providerMessageId: (r.provider_message_id as string | null) ?? null,
    prevStatus: String(r.prev_status),
    lease: String(r.lease),
  })) as Claimed[];
}

interface Outcome {
  id: number;
  contactId: number;
  kind: "sent" | "retry" | "failed" | "skipped" | "deferred";
  providerMessageId?: string;
  segments?: number;
  optOutNotice?: boolean;
  reason?: string;
  notBefore?: Date;
  attempts: number;
}

/** Writes outcomes (status, vendor id, reason) and the contacts' activities in one transaction. */
async function record(deps: JobDeps, campaign: Campaign, outcomes: Outcome[]) {
  if (outcomes.length === 0) return;

  const sent = outcomes.filter((o) => o.kind === "sent");
  const waiting = outcomes.filter((o) => o.kind === "retry" || o.kind === "deferred");
  const done = outcomes.filter((o) => o.kind === "failed" || o.kind === "skipped");
  await deps.db.transaction(async (tx) => {
    if (sent.length) {
      const json = JSON.stringify(
        sent.map((o) => ({
          id: o.id,
          pid: o.providerMessageId ?? "",
          seg: o.segments ?? 1,
          notice: o.optOutNotice ?? false,
        })),
      );
      const updated = (await tx.execute(sql`
        update campaign_recipients r set status = 'sent', provider_message_id = v.pid, sent_at = now(),
          segments = v.seg, opt_out_notice = v.notice, lease_until = null, reason = null, updated_at = now()
        from jsonb_to_recordset(${json}::jsonb) as v(id bigint, pid text, seg int, notice boolean)
        where r.id = v.id and r.status = 'sending'
        returning r.id, r.contact_id, v.pid`)) as unknown as {
        id: string;
        contact_id: string;
        pid: string;
      }[];
      const type = sentActivity(campaign.channel);
      // the CRM's recordActivities, in this same transaction
      await recordActivities(
        tx,
        updated.map((u) => ({
          workspaceId: campaign.workspaceId,
          contactId: Number(u.contact_id),
          activityType: type,
          metadata: {
            campaignId: campaign.id,
            campaignName: campaign.name,
            recipientId: Number(u.id),
            messageId: u.pid,
          },
        })),
      );
    }
    if (waiting.length) {
      const json = JSON.stringify(
        waiting.map((o) => ({
          id: o.id,
          nb: (o.notBefore ?? new Date()).toISOString(),
          reason: o.reason ?? null,
          deferred: o.kind === "deferred",
        })),
      );
      await tx.execute(sql`
        update campaign_recipients r set status = 'queued', not_before = v.nb, reason = v.reason,
          lease_until = null, updated_at = now(),
          attempts = case when v.deferred then greatest(r.attempts - 1, 0) else r.attempts end
        from jsonb_to_recordset(${json}::jsonb) as v(id bigint, nb timestamptz, reason text, deferred boolean)
        where r.id = v.id and r.status = 'sending'`);
    }
    if (done.length) {
      const json = JSON.stringify(
        done.map((o) => ({
          id: o.id,
          status: o.kind === "failed" ? "failed" : "skipped",
          reason: o.reason ?? null,
        })),
      );
      await tx.execute(sql`
        update campaign_recipients r set status = v.status, reason = v.reason, lease_until = null,
          failed_at = case when v.status = 'failed' then now() else r.failed_at end, updated_at = now()
        from jsonb_to_recordset(${json}::jsonb) as v(id bigint, status text, reason text)
        where r.id = v.id and r.status = 'sending'`);
    }
  });
  // transient errors and quiet hours: come back later with a fresh, deterministic job id
  if (waiting.length) {
    await deps.jobs.sendMany(
      sendMessageJob,
      laterJobs(
        waiting.map((o) => ({ id: o.id, at: (o.notBefore ?? new Date()).getTime() })),
        (a, b, n, at) => `wait:${campaign.id}:${campaign.round}:${a}-${b}:${n}:${at}`,
      ),
    );
  }
}

const templateCache = new Map<string, EmailTemplate>();

async function emailTemplate(deps: JobDeps, campaign: Campaign, senderName: string) {
  const key = `${campaign.id}:${campaign.updatedAt.getTime()}`;
  let t = templateCache.get(key);
  if (!t) {
    t = await buildEmailTemplate(campaign, { appUrl: deps.env.APP_URL, senderName });
    if (templateCache.size > 200) templateCache.clear();
    templateCache.set(key, t);
  }
  return t;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(workers);
  return out;
}

function failureOutcome(r: Claimed, e: unknown): Outcome {
  const pe =
    e instanceof ProviderError
      ? e
      : new ProviderError((e as Error)?.message ?? "send failed", { transient: true });
  const reason = pe.vendorCode !== undefined ? `${pe.message} (code ${pe.vendorCode})` : pe.message;
  if (pe.transient && r.attempts < MAX_ATTEMPTS) {
    return {
      id: r.id,
      contactId: r.contactId,
      kind: "retry",
      reason,
      attempts: r.attempts,
      // whole seconds, so rows failing together come back together in one job
      notBefore: new Date(Math.ceil((Date.now() + backoffSeconds(r.attempts) * 1000) / 1000) * 1000),
    };
  }
  return { id: r.id, contactId: r.contactId, kind: "failed", reason, attempts: r.attempts };
}

/** Sends one campaign's claimed rows through its provider and records the outcomes. */
async function sendClaimed(deps: JobDeps, campaign: Campaign, rows: Claimed[], claimedAt: number) {
  const kind = deliveryKind(campaign.channel);
  const outcomes: Outcome[] = [];
  const now = new Date();
  // contacts, suppression list and (email) the sender: independent lookups, run together
  const [contactRows, suppressed, owners] = await Promise.all([
    getContactsByIds(
      deps,
      campaign.workspaceId,
      rows.map((r) => r.contactId),
    ),
    findSuppressed(
      deps.db,
      campaign.workspaceId,
      suppressionChannel(campaign.channel),
      rows.map((r) => r.address),
    ),
    kind === "email" ? getSenderProfile(deps, campaign.workspaceId).then((s) => [s]) : Promise.resolve([]),
  ]);
  const contacts = new Map(contactRows.map((c) => [c.id, c]));
  let todo: Claimed[] = [];
  for (const r of rows) {
    const contact = contacts.get(r.contactId);
    if (!contact) {
      outcomes.push({
        id: r.id,
        contactId: r.contactId,
        kind: "skipped",
        reason: "contact deleted",
        attempts: r.attempts,
      });
      continue;
    }
    const sup = suppressed.get(kind === "email" ? r.address.toLowerCase() : r.address);
    if (sup) {
      outcomes.push({
        id: r.id,
        contactId: r.contactId,
        kind: "skipped",
        reason: `suppressed: ${sup}`,
        attempts: r.attempts,
      });
      continue;
    }
    if (kind !== "email") {
      const q = quietHoursCheck(now, contact);
      if (!q.allowed) {
        outcomes.push({
          id: r.id,
          contactId: r.contactId,
          kind: "deferred",
          reason: `quiet hours (${q.zone ?? "time zone unknown"})`,
          notBefore: q.notBefore,
          attempts: r.attempts,
        });
        continue;
      }
    }
    todo.push(r);
  }
  // re-claimed rows: did the vendor already accept them before the previous worker died?
  const reclaimed = todo.filter((r) => r.prevStatus === "sending");
  if (reclaimed.length) {
    const provider =
      kind === "email"
        ? deps.providers.email
        : kind === "sms"
          ? deps.providers.sms
          : kind === "voice"
            ? deps.providers.voice
            : deps.providers.voicemail;
    const found = new Set<number>();
    await mapLimit(reclaimed, 8, async (r) => {
      if (!provider.findSent) return;
      try {
        const contact = contacts.get(r.contactId);
        const body =
          kind === "sms" && contact
            ? renderSmsFor(campaign.content, mergeSource(contact), r.token, deps.env, false).body
            : "";
        const id = await provider.findSent(vendorKey(r), {
          to: r.address,
          body,
          since: new Date(r.updatedAt.getTime() - 86_400_000),
        });
        if (id) {
          found.add(r.id);
          outcomes.push({
            id: r.id,
            contactId: r.contactId,
            kind: "sent",
            providerMessageId: id,
            attempts: r.attempts,
          });
        }
      } catch (e) {
        // cannot tell whether it was sent: do not risk a duplicate, retry the lookup later
        found.add(r.id);
        outcomes.push(failureOutcome(r, e));
      }
    });
    todo = todo.filter((r) => !found.has(r.id));
  }

  await throttleFor(deps, kind).take(todo.length);
  // a claim younger than half its lease cannot have expired: skip the re-check (one UPDATE per row saved)
  if (Date.now() - claimedAt > (deps.env.CAMPAIGN_SEND_LEASE_SECONDS * 1000) / 2)
    todo = await confirmLease(deps, todo);
  const statusCallback = (path: string) => `${deps.env.APP_URL}${path}`;
  if (kind === "email") {
    const [owner] = owners;
    const sender = owner?.businessName || owner?.name || "Pitchwise";
    const tpl = await emailTemplate(deps, campaign, sender);
    for (let i = 0; i < todo.length; i += 500) {
      const chunk = todo.slice(i, i + 500);
      const messages = chunk.map((r) => {
        const contact = contacts.get(r.contactId);
        const m = renderEmailFor(tpl, campaign.content, mergeSource(contact!), r.token, deps.env);
        return {
          to: r.address,
          subject: m.subject,
          html: m.html,
          text: m.text,
          headers: m.headers,
          replyTo: owner?.email,
          stream: "broadcast" as const,
          tag: `campaign-${campaign.id}`,
          trackOpens: true,
          trackLinks: false, // Pitchwise's own /c/ redirect tracks clicks with any provider
          metadata: { campaignId: String(campaign.id), recipientId: String(r.id) },
          idempotencyKey: vendorKey(r),
          workspaceId: campaign.workspaceId,
        };
      });
      try {
        const results = await deps.providers.email.sendBatch(messages);
        chunk.forEach((r, k) => {
          const res = results[k];
          if (res?.providerMessageId)
            outcomes.push({
              id: r.id,
              contactId: r.contactId,
              kind: "sent",
              providerMessageId: res.providerMessageId,
              attempts: r.attempts,
            });
          else
            outcomes.push(
              failureOutcome(
                r,
                new ProviderError(res?.error?.message ?? "rejected", {
                  transient: res?.error?.transient ?? false,
                  vendorCode: res?.error?.vendorCode,
                }),
              ),
            );
        });
      } catch (e) {
        for (const r of chunk) outcomes.push(failureOutcome(r, e));
      }
    }
  } else {
    let firstIds = new Set<string>();
    if (kind === "sms" && todo.length) {
      const prior = await deps.sql<{ address: string }[]>`
        select distinct address from campaign_recipients
        where workspace_id = ${campaign.workspaceId} and channel in ('sms', 'video_sms') and address = any(${todo.map((r) => r.address)}::text[])
          and opt_out_notice and sent_at is not null`;
      const seen = new Set(prior.map((p) => p.address));
      firstIds = new Set(todo.filter((r) => !seen.has(r.address)).map((r) => r.address));
    }
    const smsBatch = deps.providers.sms.sendBatch?.bind(deps.providers.sms);
    if (kind === "sms" && smsBatch) {
      // providers with a bulk call (the local outbox): one call per 500 messages
      for (let i = 0; i < todo.length; i += 500) {
        const chunk = todo.slice(i, i + 500);
        const rendered = chunk.map((r) =>
          renderSmsFor(
            campaign.content,
            mergeSource(contacts.get(r.contactId)!),
            r.token,
            deps.env,
            firstIds.has(r.address),
          ),
        );
        try {
          const res = await smsBatch(
            chunk.map((r, k) => ({
              to: r.address,
              body: rendered[k].body,
              statusCallback: statusCallback("/api/webhooks/twilio/status"),
              workspaceId: campaign.workspaceId,
              metadata: { campaignId: campaign.id, recipientId: r.id },
              idempotencyKey: vendorKey(r),
            })),
          );
          chunk.forEach((r, k) => {
            outcomes.push({
              id: r.id,
              contactId: r.contactId,
              kind: "sent",
              providerMessageId: res[k].providerMessageId,
              segments: rendered[k].segments,
              optOutNotice: firstIds.has(r.address),
              attempts: r.attempts,
            });
          });
        } catch (e) {
          for (const r of chunk) outcomes.push(failureOutcome(r, e));
        }
      }
      await record(deps, campaign, outcomes);
      return;
    }
    const results = await mapLimit(todo, 16, async (r): Promise<Outcome> => {
      const contact = mergeSource(contacts.get(r.contactId)!);
      const key = vendorKey(r);
      const meta = { campaignId: campaign.id, recipientId: r.id };
      try {
        if (kind === "sms") {
          const m = renderSmsFor(campaign.content, contact, r.token, deps.env, firstIds.has(r.address));
          const res = await deps.providers.sms.send({
            to: r.address,
            body: m.body,
            statusCallback: statusCallback("/api/webhooks/twilio/status"),
            workspaceId: campaign.workspaceId,
            metadata: meta,
            idempotencyKey: key,
          });
          return {
            id: r.id,
            contactId: r.contactId,
            kind: "sent",
            providerMessageId: res.providerMessageId,
            segments: m.segments,
            optOutNotice: firstIds.has(r.address),
            attempts: r.attempts,
          };
        }
        if (kind === "voice") {
          const res = await deps.providers.voice.call({
            to: r.address,
            script: renderScriptFor(campaign.content, contact),
            machineDetection: campaign.content.machineDetection ?? true,
            statusCallback: statusCallback("/api/webhooks/twilio/status"),
            workspaceId: campaign.workspaceId,
            metadata: meta,
            idempotencyKey: key,
          });
          return {
            id: r.id,
            contactId: r.contactId,
            kind: "sent",
            providerMessageId: res.providerMessageId,
            attempts: r.attempts,
          };
        }
        const res = await deps.providers.voicemail.drop({
          to: r.address,
          audioUrl: campaign.content.audioUrl ?? null,
          ttsText: renderScriptFor(campaign.content, contact),
          workspaceId: campaign.workspaceId,
          metadata: meta,
          idempotencyKey: key,
        });
        return {
          id: r.id,
          contactId: r.contactId,
          kind: "sent",
          providerMessageId: res.providerMessageId,
          attempts: r.attempts,
        };
      } catch (e) {
        return failureOutcome(r, e);
      }
    });
    outcomes.push(...results);
  }
  await record(deps, campaign, outcomes);
}

/** Recipients handled per claim / provider batch (one Postmark batch call holds up to 500). */
export const SEND_CHUNK = 500;
/**
 * Chunks of one pg-boss fetch in flight at once: overlaps rendering with database round trips
 * (with the worker's 2 fetch loops of 2 jobs each, 4 chunks of 500 per process).
 */
const CHUNK_CONCURRENCY = 2;

/**
 * Processes send jobs for `recipientIds` (any campaigns): claim, compliance re-check (suppression
 * list, quiet hours), crash recovery lookup, throttled send, outcome recording. Safe to call with
 * ids that are already sent, in flight, paused or cancelled: they are simply not claimed. Ids are
 * handled in chunks of SEND_CHUNK (a few chunks concurrently).
 */
export async function processRecipients(deps: JobDeps, recipientIds: number[]): Promise<void> {
  const unique = [...new Set(recipientIds)];
  const chunks: number[][] = [];
  for (let i = 0; i < unique.length; i += SEND_CHUNK) chunks.push(unique.slice(i, i + SEND_CHUNK));
  await mapLimit(chunks, CHUNK_CONCURRENCY, (ids) => processChunk(deps, ids));
}

async function processChunk(deps: JobDeps, recipientIds: number[]): Promise<void> {
  const claimedAt = Date.now();
  const claimed = await claim(deps, recipientIds);
  if (claimed.length === 0) return;
  const byCampaign = new Map<number, Claimed[]>();
  for (const r of claimed) {
    const list = byCampaign.get(r.campaignId);
    if (list) list.push(r);
    else byCampaign.set(r.campaignId, [r]);
  }
  const rows = await deps.db
    .select()
    .from(campaigns)
    .where(inArray(campaigns.id, [...byCampaign.keys()]));
  for (const campaign of rows)
    await sendClaimed(deps, campaign, byCampaign.get(campaign.id) ?? [], claimedAt);
}

/** Send-job payloads for `ids`: one job per SEND_CHUNK ids (the row status, not the job, decides what is sent). */
function sendJobs(ids: number[], key: (first: number, last: number, n: number) => string) {
  const out: { data: { recipientIds: number[] }; options: { id: string } }[] = [];
  for (let i = 0; i < ids.length; i += SEND_CHUNK) {
    const chunk = ids.slice(i, i + SEND_CHUNK);
    out.push({
      data: { recipientIds: chunk },
      options: { id: uuidFromKey(key(chunk[0], chunk[chunk.length - 1], chunk.length)) },
    });
  }
  return out;
}

/**
 * Send-job payloads for rows due at given times (quiet-hours deferrals, retries): rows due at the
 * same instant share jobs of up to SEND_CHUNK ids, each with `startAfter` that instant.
 */
function laterJobs(
  rows: { id: number; at: number }[],
  key: (first: number, last: number, n: number, at: number) => string,
) {
  const byAt = new Map<number, number[]>();
  for (const r of rows) {
    const list = byAt.get(r.at);
    if (list) list.push(r.id);
    else byAt.set(r.at, [r.id]);
  }
  return [...byAt].flatMap(([at, ids]) =>
    sendJobs(
      ids.sort((a, b) => a - b),
      (a, b, n) => key(a, b, n, at),
    ).map((j) => ({ ...j, options: { ...j.options, startAfter: new Date(at) } })),
  );
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
 * their time. Job ids are deterministic per campaign round, so re-running is harmless.
 */
export async function fanOut(deps: JobDeps, campaign: Campaign): Promise<number> {
  const rows = await deps.sql<{ id: string; nb: string | null }[]>`
    select id, (extract(epoch from not_before) * 1000)::bigint::text as nb
    from campaign_recipients
    where campaign_id = ${campaign.id} and status = 'queued'
    order by id`;
  const now = Date.now();
  const due: number[] = [];
  const later: { id: number; at: number }[] = [];
  for (const r of rows) {
    const at = r.nb === null ? 0 : Number(r.nb);
    if (at > now) later.push({ id: Number(r.id), at });
    else due.push(Number(r.id));
  }
  await enqueueDue(deps, campaign, due);
  await deps.jobs.sendMany(
    sendMessageJob,
    laterJobs(later, (a, b, n, at) => `send:${campaign.id}:${campaign.round}:${a}-${b}:${n}:${at}`),
  );
  return rows.length;
}

/**
 * The watchdog pass for one campaign: completes it when nothing is queued or sending; otherwise
 * re-enqueues rows whose job was lost (queued and untouched for a lease, or sending past the lease)
 * and schedules the next pass. Returns the campaign's status after the pass.
 */
export async function watchCampaign(deps: JobDeps, campaignId: number): Promise<string | null> {
  const [campaign] = await deps.db.select().from(campaigns).where(eq(campaigns.id, campaignId));
  if (campaign?.status !== "sending") return campaign?.status ?? null;
  const lease = deps.env.CAMPAIGN_SEND_LEASE_SECONDS;
  const [{ pending }] = await deps.sql<{ pending: number }[]>`
    select count(*)::int as pending from campaign_recipients
    where campaign_id = ${campaignId} and status in ('queued', 'sending')`;
  if (pending === 0) {
    const done = await deps.db
      .update(campaigns)
      .set({ status: "completed", completedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, "sending")))
      .returning({ id: campaigns.id });
    if (done.length)
      await emitWebhookEvent(deps, campaign.workspaceId, "campaign.completed", {
        id: campaign.id,
        name: campaign.name,
        channel: campaign.channel,
        status: "completed",
        recipient_count: campaign.recipientCount,
        completed_at: new Date().toISOString(),
      });
    if (done.length && shouldSimulate(deps)) {
      await deps.jobs.send(
        simulateEngagementJob,
        { campaignId },
        { id: uuidFromKey(`simulate:${campaignId}:${campaign.round}`) },
      );
    }
    return "completed";
  }
  // Stall detector: queued rows are re-enqueued only when the campaign made no progress for a whole
  // lease (their jobs were lost with a killed worker); while rows keep moving, their jobs exist and
  // re-enqueueing them would only flood the queue. Expired `sending` rows are always recovered.
  const [{ moving }] = await deps.sql<{ moving: boolean }[]>`
    select exists (
      select 1 from campaign_recipients
      where campaign_id = ${campaignId} and status <> 'queued'
        and updated_at > now() - make_interval(secs => ${lease})) as moving`;
  const stuck = await deps.sql<{ id: string }[]>`
    update campaign_recipients set updated_at = now()
    where id in (
      select id from campaign_recipients
      where campaign_id = ${campaignId}
        and ((status = 'sending' and lease_until < now())
          or (${!moving} and status = 'queued' and (not_before is null or not_before <= now())
              and updated_at < now() - make_interval(secs => ${lease})))
      order by id
      limit 5000
      -- never wait on a row a worker is recording or claiming right now (no deadlock with its
      -- multi-row UPDATE; that row is being resolved anyway)
      for update skip locked)
    returning id`;
  if (stuck.length) {
    const slot = Math.floor(Date.now() / 1000);
    const ids = stuck.map((s) => Number(s.id)).sort((a, b) => a - b);
    await deps.jobs.sendMany(
      sendMessageJob,
      sendJobs(ids, (a, b, n) => `recover:${a}-${b}:${n}:${slot}`),
    );
  }
  const every = deps.env.CAMPAIGN_WATCHDOG_SECONDS;
  const at = Math.ceil(Date.now() / 1000 / every) * every;
  await deps.jobs.send(
    watchCampaignJob,
    { campaignId },
    { id: uuidFromKey(`watch:${campaignId}:${at}`), startAfter: new Date(at * 1000) },
  );
  return "sending";
}

/** True when the local providers should simulate delivery, opens and clicks. */
export function shouldSimulate(deps: Pick<JobDeps, "env" | "providers">): boolean {
  const flag = deps.env.CAMPAIGN_SIMULATE_ENGAGEMENT;
  if (flag !== undefined) return flag === "true" || flag === "1";
  return !deps.env.isProduction;
}

/** Re-arms the watchdog of every sending campaign (worker boot after a crash). Returns how many. */
export async function recoverCampaigns(deps: JobDeps): Promise<number> {
  const rows = await deps.db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(eq(campaigns.status, "sending"));
  for (const r of rows) await watchCampaign(deps, r.id);
  return rows.length;
}

/** Rows of a campaign still queued or sending. */
export async function pendingCount(db: DbOrTx, campaignId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(campaignRecipients)
    .where(
      and(eq(campaignRecipients.campaignId, campaignId), inArray(campaignRecipients.status, [...SENDABLE])),
    );
  return row?.n ?? 0;
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
