import { createHash } from "node:crypto";
import { isbot } from "isbot";
import type { DbOrTx } from "../../db/client";
import { retryOnRace } from "../../db/retry";
import type { CampaignChannel, CampaignRecipient, campaignRecipients } from "../../db/schema";
import type { JobDeps } from "../../jobs/define";
import { isSuppressed, suppress } from "../compliance/compliance.service";
import { recordActivities, recordContactOptIn } from "../crm/crm.service";
import {
  emitWebhookEvent,
  NO_WEBHOOK_EMIT,
  queueWebhookDeliveries,
  type WebhookEmit,
  type WebhookEmitCtx,
  type WebhookEventType,
} from "../webhooks/webhooks.service";
import { verifyClickSignature } from "./campaigns.content";
import { deliveryKind, suppressionChannel } from "./campaigns.delivery";
import {
  deleteWebhookEventKey,
  insertWebhookEventKey,
  selectCampaign,
  selectCampaignContent,
  selectRecipientById,
  selectRecipientByProviderId,
  selectRecipientByToken,
  selectRecipientsAtAddress,
  selectRecipientsWithStatus,
  updateRecipientIfUnchanged,
  updateRecipientReplyText,
} from "./campaigns.queries";
import { recordLandingCtaClick } from "./campaigns.video.queries";

/**
 * Start of the `reason` of a recipient failed by a soft (temporary) bounce: "soft bounce (SoftBounce):
 * mailbox full". Such a failure is not final (a later delivery undoes it) and never suppresses.
 */
export const SOFT_BOUNCE = "soft bounce";

/** Whether a recipient's `reason` says a soft bounce failed it (SOFT_BOUNCE). */
export function isSoftBounce(reason: string | null | undefined): boolean {
  return !!reason?.startsWith(SOFT_BOUNCE);
}

/** Ordered progress of a recipient; later events never move it back (a late "delivered" after "opened"). */
const RANK: Record<string, number> = {
  queued: 0,
  sending: 1,
  sent: 2,
  delivered: 3,
  opened: 4,
  clicked: 5,
  replied: 6,
};
const FINAL = new Set(["failed", "skipped", "cancelled"]);

export type RecipientEvent =
  | "delivered"
  | "opened"
  | "clicked"
  | "replied"
  | "bounced"
  | "soft_bounced"
  | "failed"
  | "unsubscribed"
  | "complained";

/** Outbound webhook event type of each recipient event (issue 15). */
const WEBHOOK_EVENT: Partial<Record<RecipientEvent, WebhookEventType>> = {
  delivered: "message.delivered",
  opened: "message.opened",
  clicked: "message.clicked",
  replied: "message.replied",
  bounced: "message.bounced",
  unsubscribed: "contact.unsubscribed",
};

function activityFor(r: Pick<CampaignRecipient, "channel">, event: RecipientEvent): string | null {
  const kind = deliveryKind(r.channel);
  if (event === "opened") return "email_opened";
  if (event === "clicked") return kind === "email" ? "email_clicked" : "sms_clicked";
  if (event === "replied") return "sms_received";
  if (event === "bounced") return kind === "email" ? "email_bounced" : `${kind}_failed`;
  if (event === "failed" || event === "soft_bounced") return `${kind === "voice" ? "call" : kind}_failed`;
  if (event === "unsubscribed") return "opted_out";
  if (event === "complained") return "spam_complaint";
  if (event === "delivered") return kind === "voice" ? "call_completed" : null;
  return null;
}

/**
 * What applying the events needs: the database and the job client (the outbound webhook event is
 * stored with the change and its delivery jobs queued after the commit), optionally a logger for a webhook that could not be emitted. The app
 * context (routes) and job deps (handlers) both fit.
 */
export type EventCtx = Pick<JobDeps, "db" | "jobs"> & { log?: Pick<JobDeps["log"], "warn"> };

/** A recipient's change for one event, or why there is none. */
type Change =
  | { kind: "set"; set: Partial<typeof campaignRecipients.$inferInsert> }
  | { kind: "none" }
  | { kind: "repeat" };

/** The change `event` makes to recipient `r` (pure: the rules of applyRecipientEvent). */
function changeFor(
  r: CampaignRecipient,
  event: RecipientEvent,
  opts: { reason?: string; answeredBy?: string; callSeconds?: number; replyText?: string },
  now: Date,
): Change {
  const set: Partial<typeof campaignRecipients.$inferInsert> = { updatedAt: now };
  const cur = r.status;
  const engaged = !!(r.openedAt || r.clickedAt || r.repliedAt);
  if (event === "soft_bounced") {
    // a temporary failure (Postmark SoftBounce, Transient, DnsError, ...): the message is failed for
    // now, never bounced; one that already arrived (delivered, engaged) or already ended is unchanged
    if (FINAL.has(cur) || cur === "bounced" || engaged || r.deliveredAt) return { kind: "none" };
    set.status = "failed";
    set.reason = opts.reason ?? SOFT_BOUNCE;
    set.failedAt = now;
    return { kind: "set", set };
  }
  if (event === "bounced" || event === "failed") {
    if (FINAL.has(cur) || cur === "bounced") return { kind: "none" };
    // an open, click or reply proves the message arrived: a failure arriving after it is stale
    if (engaged) return { kind: "none" };
    set.status = event === "bounced" ? "bounced" : "failed";
    set.reason = opts.reason ?? event;
    set.failedAt = now;
    // the failure overrides an earlier "delivered" (an email accepted, then bounced; an SMS's
    // contradicting receipts): the row is not counted delivered and failed at once
    set.deliveredAt = null;
    return { kind: "set", set };
  }
  if (event === "unsubscribed" || event === "complained") {
    const reason = event === "complained" ? "spam complaint" : "unsubscribed";
    // already opted out this way (a second click on the page, a STOP after the unsubscribe link)
    if (r.reason === reason) return { kind: "none" };
    set.reason = reason;
    // the campaign's record of the opt-out: a START clears `reason` (clearRecipientOptOut), never this
    if (!r.optedOutAt) set.optedOutAt = now;
    return { kind: "set", set };
  }
  const ts = {
    delivered: "deliveredAt",
    opened: "openedAt",
    clicked: "clickedAt",
    replied: "repliedAt",
  } as const;
  const col = ts[event];
  const failedNow = cur === "failed" || cur === "bounced";
  // a soft bounce is temporary: the provider's later delivery of the same message proves it arrived
  const softFailed = cur === "failed" && isSoftBounce(r.reason);
  // a "delivered" after a (hard) failure (in either arrival order the failure wins): nothing changes
  if (failedNow && event === "delivered" && !softFailed) return { kind: "none" };
  if (!r[col]) set[col] = now;
  if (event !== "delivered" && !r.deliveredAt) set.deliveredAt = now;
  // a completed call: who answered it (a person or a machine), once
  if (event === "delivered" && opts.answeredBy && !r.answeredBy)
    set.answeredBy = opts.answeredBy.slice(0, 40);
  // and how long it lasted (Twilio CallDuration), once
  if (event === "delivered" && opts.callSeconds !== undefined && r.callSeconds === null)
    set.callSeconds = opts.callSeconds;
  // the reply's text (the latest reply's: a repeat reply writes it in applyRecipientEvent)
  if (event === "replied" && opts.replyText !== undefined) set.replyText = opts.replyText;
  if (failedNow) {
    // an open, click or reply after a failure proves the message arrived: the failure was wrong
    // (or stale), so the recipient is engaged, not failed; an opt-out mark in reason stays
    set.status = event;
    set.failedAt = null;
    if (r.reason !== "unsubscribed" && r.reason !== "spam complaint") set.reason = null;
    return { kind: "set", set };
  }
  // a row not recorded as sent yet (a link scanner or a quick reader clicks while the send is still
  // handing its batch over): only the timestamps; the send's record (markRecipientsSent, guarded on
  // `sending`) then sets sent and the furthest status they show, so the message keeps its record
  const unrecorded = cur === "queued" || cur === "sending";
  if (!FINAL.has(cur) && !unrecorded && (RANK[cur] ?? 0) < RANK[event]) set.status = event;
  if (!set.status && r[col]) return { kind: "repeat" };
  return { kind: "set", set };
}

/**
 * Applies a delivery/engagement event to a recipient: status moves forward only (RANK), the
 * event's timestamp is set once, bounces/failures record the vendor's reason. Contradicting events
 * end the same whatever order they arrive in (providers' callbacks may come out of order): an open,
 * click or reply beats a failure (it proves the message arrived: a failure after it changes nothing,
 * one before it is undone), and a failure beats "delivered" (a failure clears delivered_at; a
 * "delivered" after a failure changes nothing). An opt-out marks the
 * recipient once (`reason` unsubscribed / spam complaint), and the contact gets a timeline activity.
 * A click on an email without an open records the open first (metadata `inferred_from: "click"`).
 * When the recipient changed, the outbound webhook event (WEBHOOK_EVENT: message.delivered/opened/
 * clicked/replied/bounced, contact.unsubscribed; issue 15) is emitted with the change, so each real
 * occurrence emits once: a repeat (a second click or open, a second unsubscribe) changes nothing and
 * emits nothing (replayed provider webhooks stop earlier, at firstDelivery). The row is written only
 * if it is still as `r` had it (updateRecipientIfUnchanged); when a concurrent event changed it
 * first, the fresh row is decided again (up to 5 times). Returns false when the event changed nothing.
 */
export async function applyRecipientEvent(
  ctx: EventCtx,
  r: CampaignRecipient,
  event: RecipientEvent,
  opts: {
    reason?: string;
    answeredBy?: string;
    callSeconds?: number;
    replyText?: string;
    metadata?: Record<string, unknown>;
  } = {},
): Promise<boolean> {
  const { db } = ctx;
  // a click on an email's link proves it was opened (images blocked, or an open pixel a privacy proxy
  // never fetched): the open is recorded first, as Mailchimp and HubSpot count it, so no recipient
  // reads "clicked" with no open time and message.opened reaches webhooks for every clicked email
  if (event === "clicked" && !r.openedAt && deliveryKind(r.channel) === "email") {
    await applyRecipientEvent(ctx, r, "opened", { metadata: { inferred_from: "click" } });
    r = (await selectRecipientById(db, r.id)) ?? r;
  }
  const now = new Date();
  let seen: CampaignRecipient | undefined = r;
  for (let attempt = 0; seen && attempt < 5; attempt++) {
    const change = changeFor(seen, event, opts, now);
    if (change.kind === "none") return false;
    if (change.kind === "repeat") {
      // an open inferred from a click that another request already recorded: nothing to add
      if (opts.metadata?.inferred_from === "click") return false;
      // a second reply: the row keeps the latest reply's text (the report's recipients table)
      if (event === "replied" && opts.replyText !== undefined)
        await updateRecipientReplyText(db, seen.id, opts.replyText);
      // a repeat open/click: timeline only
      const type = activityFor(seen, event);
      // (a deleted contact's recipient has no timeline left to add to)
      if (type && event !== "delivered" && seen.contactId !== null)
        await recordActivities(db, [
          {
            workspaceId: seen.workspaceId,
            contactId: seen.contactId,
            activityType: type,
            metadata: { campaignId: seen.campaignId, recipientId: seen.id, ...(opts.metadata ?? {}) },
          },
        ]);
      return false;
    }
    // the recipient's change, its webhook event, opt-in and activity: one transaction (the webhooks
    // outbox: the event commits with the change it reports); the event's delivery jobs after the
    // commit. It locks the recipient, then (an opt-out) the contact: run again as a whole if that
    // meets a contact delete (contact, then its recipients) in a deadlock
    const current = seen;
    const emitted = await retryOnRace(() =>
      db.transaction(async (tx) => {
        if (!(await updateRecipientIfUnchanged(tx, current, change.set))) return null;
        return recorded({ db: tx, log: ctx.log }, current, event, change.set, opts, now);
      }),
    );
    if (!emitted) {
      seen = await selectRecipientById(db, seen.id);
      continue;
    }
    await queueWebhookDeliveries(ctx, emitted);
    return true;
  }
  return false;
}

/**
 * What a recipient event's webhook data adds to the common fields (api.v1.schemas
 * WEBHOOK_EVENT_DATA), from the recipient's row after the change (`set` over `r`): message.replied
 * its `reply_text` (the reply's text as the person sent it, null when not known);
 * message.delivered `answered_by` (a completed call's Twilio AnsweredBy) and `call_seconds` (its
 * CallDuration), both null for other channels or when not known. Other events add nothing.
 */
function recipientFacts(
  r: CampaignRecipient,
  event: RecipientEvent,
  set: Partial<typeof campaignRecipients.$inferInsert>,
): Record<string, string | number | null> {
  if (event === "replied") return { reply_text: set.replyText ?? r.replyText ?? null };
  if (event === "delivered")
    return {
      answered_by: set.answeredBy ?? r.answeredBy ?? null,
      call_seconds: set.callSeconds ?? r.callSeconds ?? null,
    };
  return {};
}

/**
 * The webhook event and the timeline activity of an applied recipient event, written with `ctx.db`,
 * the transaction of the recipient's change; an opt-out (unsubscribed, complained) also turns off the
 * contact's opt-in flag for the channel. Returns the stored event, to queue after the commit.
 */
async function recorded(
  ctx: WebhookEmitCtx,
  r: CampaignRecipient,
  event: RecipientEvent,
  set: Partial<typeof campaignRecipients.$inferInsert>,
  opts: { reason?: string; metadata?: Record<string, unknown> },
  now: Date,
): Promise<WebhookEmit> {
  const hook = WEBHOOK_EVENT[event];
  const emitted = !hook
    ? NO_WEBHOOK_EMIT
    : await emitWebhookEvent(ctx, r.workspaceId, hook, {
        campaign_id: r.campaignId,
        recipient_id: r.id,
        contact_id: r.contactId,
        channel: r.channel,
        address: r.address,
        status: set.status ?? r.status,
        ...(opts.reason ? { reason: opts.reason } : {}),
        ...recipientFacts(r, event, set),
        occurred_at: now.toISOString(),
      });
  // the recipient's contact was deleted since (contact_id null): the row, its suppression and its
  // webhook event stay; there is no contact flag or timeline to write
  if (r.contactId === null) return emitted;
  // an opt-out shows on the contact too (its channel's opt-in flag off); the suppression list holds
  // it. Its activity keeps the flag it turned off (`opt_in_before`), for a START to put back
  const optInBefore =
    event === "unsubscribed" || event === "complained"
      ? await recordContactOptIn(ctx, r.workspaceId, r.contactId, deliveryKind(r.channel), false)
      : null;
  const type = activityFor(r, event);
  if (type)
    await recordActivities(ctx.db, [
      {
        workspaceId: r.workspaceId,
        contactId: r.contactId,
        activityType: type,
        metadata: {
          campaignId: r.campaignId,
          recipientId: r.id,
          ...(opts.reason ? { reason: opts.reason } : {}),
          ...(opts.metadata ?? {}),
          ...(optInBefore !== null ? { opt_in_before: optInBefore } : {}),
        },
      },
    ]);
  return emitted;
}

/**
 * Replay protection: records (provider, eventKey) and returns true the first time only. A replayed
 * webhook delivery (same key) returns false and must change nothing.
 */
export async function firstDelivery(db: DbOrTx, provider: string, eventKey: string): Promise<boolean> {
  return insertWebhookEventKey(db, provider, eventKey.slice(0, 500));
}

/**
 * Runs `work` for the first delivery of (provider, eventKey) only (firstDelivery): a replay returns
 * `{ replay: true }` and runs nothing. When `work` throws, the key is forgotten before the error is
 * rethrown, so the provider's retry of the same delivery (Twilio and Postmark retry on a 5xx) runs
 * the work again instead of being taken for a replay of work that never finished. `work` must
 * tolerate being run again after a partial failure (its steps idempotent, or marked per step).
 */
export async function onFirstDelivery<T>(
  db: DbOrTx,
  provider: string,
  eventKey: string,
  work: () => Promise<T>,
): Promise<{ replay: true } | { replay: false; value: T }> {
  const key = eventKey.slice(0, 500);
  if (!(await insertWebhookEventKey(db, provider, key))) return { replay: true };
  try {
    return { replay: false, value: await work() };
  } catch (err) {
    await deleteWebhookEventKey(db, provider, key).catch(() => {});
    throw err;
  }
}

/** A recipient by its public token (unsubscribe / click / video landing pages), or null. */
export async function recipientByToken(db: DbOrTx, token: string): Promise<CampaignRecipient | null> {
  if (!/^[a-z0-9]{16,64}$/.test(token)) return null;
  return (await selectRecipientByToken(db, token)) ?? null;
}

/** A recipient by the vendor's message id (Postmark MessageID, Twilio MessageSid/CallSid). */
export async function recipientByProviderId(
  db: DbOrTx,
  providerMessageId: string,
): Promise<CampaignRecipient | null> {
  if (!providerMessageId) return null;
  return (await selectRecipientByProviderId(db, providerMessageId)) ?? null;
}

/**
 * The person behind recipient `r` opted out of its channel (the one path every email/SMS/call
 * opt-out of a campaign message takes: the unsubscribe page, RFC 8058 one-click, Postmark's
 * `Unsubscribe` bounce): adds the address to the workspace's suppression list for the channel
 * (reason "unsubscribed", `source` saying how it came; the person's own opt-out, so it replaces a
 * bounce or complaint record and no provider reactivation lifts it, see compliance `suppress`), then
 * records the opt-out on the recipient (`applyRecipientEvent` "unsubscribed": reason "unsubscribed",
 * the contact's opt-in flag off, an `opted_out` activity and the `contact.unsubscribed` webhook
 * event, once: a second opt-out changes nothing). Returns whether the recipient changed.
 */
export async function unsubscribeRecipient(
  ctx: EventCtx,
  r: CampaignRecipient,
  source: string,
  metadata: Record<string, unknown> = {},
): Promise<boolean> {
  await suppress(
    ctx.db,
    r.workspaceId,
    suppressionChannel(r.channel),
    r.address,
    "unsubscribed",
    source,
    true,
  );
  return applyRecipientEvent(ctx, r, "unsubscribed", { metadata: { source, ...metadata } });
}

/**
 * Whether recipient `r`'s address is on its workspace's suppression list for the recipient's channel
 * now (an unsubscribe through this message's link, another message's, a bounce or a complaint): the
 * unsubscribe page then says so instead of asking again.
 */
export async function recipientOptedOut(
  ctx: Pick<EventCtx, "db">,
  r: Pick<CampaignRecipient, "workspaceId" | "channel" | "address">,
): Promise<boolean> {
  return isSuppressed(ctx.db, r.workspaceId, suppressionChannel(r.channel), r.address);
}

/**
 * Unsubscribes the recipient behind `token` (RFC 8058 one-click or the page's button) through
 * unsubscribeRecipient: the address goes on the workspace's suppression list for the channel and the
 * opt-out is recorded (activity and the `contact.unsubscribed` webhook event, once: a second POST
 * changes nothing). Idempotent. Returns the recipient row (its address, workspace and channel: what
 * the page names), or null for an unknown token.
 */
export async function unsubscribeByToken(
  ctx: EventCtx,
  token: string,
  source: string,
): Promise<CampaignRecipient | null> {
  const r = await recipientByToken(ctx.db, token);
  if (!r) return null;
  await unsubscribeRecipient(ctx, r, source);
  return r;
}

/**
 * Whether a request to a tracked link, or a video landing page's view or watch-progress event
 * (headless crawlers and link previews run the page's script too), comes from a bot rather than a
 * person: true for a User-Agent matching the npm package isbot's pattern list
 * (https://github.com/omrilotan/isbot: crawlers, link scanners, chat unfurlers, headless browsers and
 * HTTP libraries, e.g. Googlebot, bingbot, facebookexternalhit, Slackbot, HeadlessChrome, Barracuda,
 * curl, python-requests, Go-http-client), and for a missing or blank User-Agent (browsers and mail
 * clients always send one; a request without one is a script's). Such a request is answered like a
 * person's but records no engagement.
 */
export function isBotUserAgent(userAgent: string | undefined): boolean {
  const ua = userAgent?.trim() ?? "";
  return ua === "" || isbot(ua);
}

/**
 * A tracked click: the campaign's link number `index` for the recipient behind `token`, accepted only
 * with the link's signature (`clickSignature`: HMAC under APP_SECRET over token, index and the
 * destination). Records the click (the first one also emits `message.clicked`) and returns the
 * destination, or null for an unknown token or
 * index, a missing or altered signature, or a destination changed since the message was sent (never
 * a redirect the server did not sign for this message). With `opts.record` false (a HEAD request:
 * a link checker or mail scanner looking at the headers, RFC 9110 section 9.3.2; or a GET by a bot,
 * isBotUserAgent: not a person following the link) the destination is answered and nothing is
 * recorded (no recipient change, activity or webhook event).
 * A video landing page's button (the link number `content.ctaLink`, campaigns.video landingCtaHref)
 * is a click like any other and, the first time, also stamps the recipient's page
 * (recordLandingCtaClick: the video stats' `cta_clicks`, once per recipient).
 */
export async function clickByToken(
  ctx: EventCtx,
  secret: string,
  token: string,
  index: number,
  signature: string | undefined,
  opts: { record?: boolean } = {},
): Promise<string | null> {
  const r = await recipientByToken(ctx.db, token);
  if (!r) return null;
  const content = await selectCampaignContent(ctx.db, r.campaignId);
  const url = content?.links?.[index];
  if (!url || !verifyClickSignature(secret, token, index, url, signature)) return null;
  if (opts.record === false) return url;
  const cta = content?.ctaLink === index;
  if (cta) await recordLandingCtaClick(ctx.db, token, new Date());
  await applyRecipientEvent(ctx, r, "clicked", { metadata: cta ? { url, videoCta: true } : { url } });
  return url;
}

function bucket(token: string, mod: number): number {
  return createHash("sha256").update(token).digest().readUInt32BE(0) % mod;
}

/**
 * The local providers' simulated engagement for a completed campaign: every sent recipient is
 * delivered; for email about 45 % open and, when the email has links, about 15 % click; for SMS
 * about 15 % click a link and 5 % reply. Deterministic per recipient token, so re-runs change nothing.
 * Each simulated event emits its outbound webhook event like a provider's (applyRecipientEvent).
 */
export async function simulateEngagement(deps: EventCtx, campaignId: number): Promise<void> {
  const c = await selectCampaign(deps.db, campaignId);
  if (!c) return;
  const rows = await selectRecipientsWithStatus(deps.db, campaignId, ["sent"]);
  const kind = deliveryKind(c.channel);
  const hasLinks = (c.content.links?.length ?? 0) > 0 || !!c.content.landingUrl;
  for (const r of rows) {
    const b = bucket(r.token, 100);
    await applyRecipientEvent(deps, r, "delivered", { metadata: { simulated: true } });
    const fresh = { ...r, deliveredAt: new Date(), status: "delivered" as const };
    if (kind === "email" && b < 45) {
      await applyRecipientEvent(deps, fresh, "opened", { metadata: { simulated: true } });
      if (hasLinks && b < 15)
        await applyRecipientEvent(deps, { ...fresh, status: "opened", openedAt: new Date() }, "clicked", {
          metadata: { simulated: true },
        });
    } else if (kind === "sms") {
      if (hasLinks && b < 15)
        await applyRecipientEvent(deps, fresh, "clicked", { metadata: { simulated: true } });
      else if (b >= 95)
        await applyRecipientEvent(deps, fresh, "replied", {
          replyText: "Thanks!",
          metadata: { simulated: true, body: "Thanks!" },
        });
    }
  }
}

/**
 * The latest recipient of each workspace (at most 200 workspaces) on `channels` at `address`, most
 * recently sent first: the candidates an inbound SMS or a call from that number answers (the caller
 * scopes them).
 */
export async function recipientsForAddress(db: DbOrTx, channels: string[], address: string) {
  return selectRecipientsAtAddress(db, channels as CampaignChannel[], address);
}
