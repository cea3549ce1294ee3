import type { Campaign, Contact } from "../../db/schema";
import type { JobDeps } from "../../jobs/define";
import { mayHaveBeenTaken, ProviderError } from "../../providers/errors";
import { chargeCampaignSend, releaseCampaignUsage, settleCampaignSend } from "../billing/billing.service";
import {
  callNotice,
  callOptOutOffer,
  NO_CALLBACK_NUMBER_REASON,
  voicemailNotice,
  withVoicemailNotice,
} from "../compliance/call-opt-out";
import {
  contactsWhoRepliedStop,
  findSuppressed,
  skipReasonOfSuppression,
  suppress,
} from "../compliance/compliance.service";
import { quietHoursCheck } from "../compliance/quiet-hours";
import { getContactsByIds, recordActivities, textedNumbers } from "../crm/crm.service";
import { emitWebhookEvents, queueWebhookDeliveries } from "../webhooks/webhooks.service";
import { getSenderProfile, type SenderProfile } from "../workspaces/workspaces.service";
import { addressFor, quietHoursSource } from "./campaigns.audience";
import {
  buildEmailTemplate,
  type EmailTemplate,
  mergeSource,
  renderEmailFor,
  renderScriptFor,
  renderSmsFor,
  senderFrom,
} from "./campaigns.content";
import {
  backoffSeconds,
  deliveryKind,
  laterJobs,
  launchOf,
  MAX_ATTEMPTS,
  mapLimit,
  optInReason,
  SEND_CHUNK,
  sentActivity,
  suppressionChannel,
  vendorKey,
} from "./campaigns.delivery";
import { sendMessageJob } from "./campaigns.jobs";
import {
  type ClaimedRecipient,
  countQueuedRecipients,
  extendLeases,
  finishRecipients,
  markRecipientsSent,
  pauseCampaignForPlan,
  releaseClaims,
  requeueRecipients,
  reserveAddresses,
  selectCampaignStatus,
  selectHeldDropId,
  selectNoticedSmsAddresses,
} from "./campaigns.queries";
import { rowsWithoutVideo, VIDEO_DELETED_REASON } from "./campaigns.video-media";
import { prepareVoicemailAudio, voicemailAudioUrl, voicemailStatusCallbackUrl } from "./campaigns.voicemail";
import { applyEarlyEvents } from "./campaigns.webhooks";

// Sending one campaign's claimed recipients (campaigns.engine.ts claims them): screen (contact
// deleted, suppressed, opted out of the channel, quiet hours), recover re-claimed rows already
// accepted by the vendor, then part by part (one second's worth of the channel's rate): throttle,
// re-check the lease, hand each message to the provider, record the outcomes. The guarantees are
// described at the top of campaigns.engine.ts.

type Kind = ReturnType<typeof deliveryKind>;

/** What happened to one claimed row. */
interface Outcome {
  id: number;
  contactId: number | null;
  kind: "sent" | "retry" | "failed" | "skipped" | "deferred";
  providerMessageId?: string;
  segments?: number;
  optOutNotice?: boolean;
  reason?: string;
  notBefore?: Date;
  attempts: number;
  /** the address it went to (or was screened at) when the contact's changed since the launch (readdress) */
  address?: string;
  /** a retry whose vendor may have taken the message (mayHaveBeenTaken): looked up before it is sent again */
  unknown?: boolean;
}

/** An outcome's identifying fields for claimed row `r`. */
function baseOf(r: ClaimedRecipient) {
  return { id: r.id, contactId: r.contactId, attempts: r.attempts };
}

/** A row ready to hand to the provider, with its contact. */
/** A claimed row whose contact still exists (a deleted contact's row has contact_id null). */
type LiveClaim = ClaimedRecipient & { contactId: number };

type Ready = LiveClaim & { contact: Contact };

/**
 * Sends one campaign's claimed rows through its provider and records the outcomes. First the plan as it
 * is now is asked (billing chargeCampaignSend, with the campaign's unsent count): the rows it does not
 * allow (a downgrade since the launch; the current period's limit reached) go back to the queue unsent
 * and, after the allowed ones are sent, the campaign is paused with the sentence saying why. Rows sent
 * in another billing period than the one the launch reserved in are reserved in the current one and
 * settled after (billing settleCampaignSend), so the meter counts each message in the period it was
 * sent in. Then, in parts of at
 * most one second's worth of the channel's rate (`SEND_RATE_*_PER_SEC`; at the default 2,000/s a
 * whole chunk is one part). Each part: its sends are taken from the token bucket (shared by the
 * channel's campaigns in the process, so even the first part may wait), then the campaign is still
 * `sending` (a pause or cancel meanwhile releases the rest of the claim), its contacts and
 * suppression entries are read and screened, re-claimed rows recovered, its lease re-checked when the
 * claim is old, it is handed to the provider and its outcomes recorded, so a part's status check and
 * screen happen right before it is sent, never before a wait for the bucket. `claimedAt` (epoch ms) is when the
 * claim was made: a claim older than half its lease is re-checked before sending, and before a part
 * the leases of all rows still to send are renewed once a third of a lease has passed (a heartbeat), so a
 * chunk paced for longer than CAMPAIGN_SEND_LEASE_SECONDS keeps its claim while its worker lives.
 */
export async function sendClaimed(
  deps: JobDeps,
  campaign: Campaign,
  claimed: ClaimedRecipient[],
  claimedAt: number,
): Promise<void> {
  // the plan as it is now (a downgrade since the launch, a period the launch did not reserve in): the
  // rows it does not allow go back to the queue unsent and the campaign pauses with the sentence saying
  // why, after the allowed ones are sent
  const metering = launchOf(campaign);
  // its unsent messages: queued ones and this claim's (a part another worker is sending counts as spent,
  // so concurrent parts never pass the limit together)
  const pending = async () => (await countQueuedRecipients(deps.sql, campaign.id)) + claimed.length;
  const charge = await chargeCampaignSend(deps, metering, pending, claimed.length);
  const pauseForPlan = async () => {
    if (!charge.stop) return;
    await pauseCampaignForPlan(
      deps.db,
      campaign.workspaceId,
      campaign.id,
      `${charge.stop} The campaign was paused with its remaining messages unsent: resume it ${charge.resume}, or cancel it.`,
    );
  };
  const rows = claimed.slice(0, charge.allowed);
  if (rows.length < claimed.length) await releaseClaims(deps.sql, claimed.slice(rows.length), false);
  if (rows.length === 0) return pauseForPlan();
  // rows whose contact was deleted since the launch (contact_id null; the row stays for the report
  // and the unsubscribe link) are skipped, never sent
  const gone = rows.filter((r) => r.contactId === null);
  const live = rows.filter((r): r is LiveClaim => r.contactId !== null);
  let sent = 0;
  try {
    if (gone.length)
      await recordOutcomes(
        deps,
        campaign,
        gone.map((r) => ({ ...baseOf(r), kind: "skipped" as const, reason: "contact deleted" })),
      );
    if (live.length) sent = await sendAllowed(deps, campaign, live, claimedAt);
  } finally {
    // a part reserved in the current period: the sent ones leave the launch's period, the rest give theirs back
    await settleCampaignSend(deps, metering, charge, sent);
  }
  await pauseForPlan();
}

/** sendClaimed's parts, for the rows the plan allows; returns how many were marked sent. */
async function sendAllowed(
  deps: JobDeps,
  campaign: Campaign,
  rows: LiveClaim[],
  claimedAt: number,
): Promise<number> {
  let sent = 0;
  const kind = deliveryKind(campaign.channel);
  const throttle = throttleFor(deps, kind);
  // (email, calls, voicemail) the sender, read once, beside the first part's lookups
  const senderOnce =
    kind === "email" || kind === "voice" || kind === "voicemail"
      ? getSenderProfile(deps, campaign.workspaceId)
      : Promise.resolve(null);
  const leaseMs = deps.env.CAMPAIGN_SEND_LEASE_SECONDS * 1000;
  // when the leases of the rows still to send were last set (epoch ms)
  let held = claimedAt;
  let rest = rows;
  while (rest.length > 0) {
    // this part's sends are taken from the token bucket first (it is shared by every campaign of the
    // channel in this process, so the first part may wait too): the campaign's status, the leases and
    // the compliance screen below are then read just before the provider call, and a cancel, pause or
    // opt-out that landed during the wait is seen (before, the first part was screened and then waited,
    // and went out after the cancel had answered 200)
    await throttle.take(Math.min(rest.length, throttle.burst));
    const status = await selectCampaignStatus(deps.db, campaign.id);
    if (status !== "sending") {
      const cancelled = status === "cancelled";
      const released = await releaseClaims(deps.sql, rest, cancelled);
      // rows a cancel ended unsent give their launch units back (as the cancel's queued rows did)
      if (cancelled) await releaseCampaignUsage(deps, launchOf(campaign), released);
      return sent;
    }
    // paced slower than the lease (a low SEND_RATE_*, or a long wait for the shared bucket): every row
    // still to send has its lease renewed once a third of it has passed (a part can take a second more
    // before the next check), so no other worker takes over rows this one is alive and pacing (a row
    // another worker did take over is left to it)
    if (Date.now() - held > leaseMs / 3) {
      held = Date.now();
      rest = await confirmLease(deps, rest);
      if (rest.length === 0) return sent;
    }
    const part = rest.slice(0, throttle.burst);
    rest = rest.slice(throttle.burst);
    // contacts, suppression list and (first part) the sender: independent lookups, run together
    const [contactRows, suppressedAtLaunch, sender] = await Promise.all([
      getContactsByIds(
        deps,
        campaign.workspaceId,
        part.map((r) => r.contactId),
      ),
      findSuppressed(
        deps.db,
        campaign.workspaceId,
        suppressionChannel(campaign.channel),
        part.map((r) => r.address),
      ),
      senderOnce,
    ]);
    const contacts = new Map(contactRows.map((c) => [c.id, c]));
    // each row goes where the contact is now: an address changed since the launch is screened (and
    // sent to) instead of the one the contact left; only such rows cost the suppression lookup below
    const { rows: addressed, moved, noAddress } = readdress(campaign.channel, part, contacts);
    const movedTo = [...new Set(addressed.filter((r) => moved.has(r.id)).map((r) => r.address))];
    const suppressedNow = movedTo.length
      ? await findSuppressed(deps.db, campaign.workspaceId, suppressionChannel(campaign.channel), movedTo)
      : new Map<string, string>();
    const suppressed = new Map([...suppressedAtLaunch, ...suppressedNow]);
    // texts, calls, voicemail: a STOP from any of the contact's numbers, not only this row's address
    const stopped =
      kind === "email"
        ? new Map<number, string>()
        : await contactsWhoRepliedStop(
            deps.db,
            campaign.workspaceId,
            contactRows,
            new Map(addressed.map((r) => [r.contactId, r.address])),
          );
    const screened = screen(campaign, addressed, contacts, suppressed, stopped, new Date(), {
      moved,
      noAddress,
    });
    const { outcomes } = screened;
    // the addresses another row of this campaign was sent (or is being sent) to: every row's, not only
    // the moved ones', since a contact whose number changed since the launch may have been texted at
    // the number a waiting row (a retry's back-off, quiet hours, a later part) still holds; the moved
    // rows reserve theirs (reserveAddresses), so a part sending at the same time sees them
    const ready = await skipAddressesReached(deps, campaign, screened.ready, moved, part, outcomes);
    let todo = await recoverReclaimed(deps, campaign, ready, outcomes);
    // a video message whose video was deleted since the launch fails with the reason instead of going
    // out with a link to "This video is no longer available" (a deletion the studio did not refuse)
    const noVideo = await rowsWithoutVideo(deps, campaign, todo);
    if (noVideo.size > 0) {
      for (const r of todo)
        if (noVideo.has(r.id)) outcomes.push({ ...baseOf(r), kind: "failed", reason: VIDEO_DELETED_REASON });
      todo = todo.filter((r) => !noVideo.has(r.id));
    }
    if (todo.length > 0) {
      // a claim younger than half its lease cannot have expired: skip the re-check (one UPDATE saved)
      if (Date.now() - held > leaseMs / 2) todo = await confirmLease(deps, todo);
      if (kind === "email") outcomes.push(...(await sendEmails(deps, campaign, todo, sender)));
      else if (kind === "sms")
        outcomes.push(
          ...(await recordCarrierOptOuts(deps, campaign, todo, await sendSms(deps, campaign, todo))),
        );
      else outcomes.push(...(await callOrDrop(deps, campaign, kind, todo, sender)));
    }
    sent += await recordOutcomes(deps, campaign, outcomes);
  }
  return sent;
}

/**
 * Compliance re-check at send time, on the contacts and suppression entries `sendClaimed` already
 * read for the part, at each row's address as `readdress` made it (`changed`: rows whose contact's
 * address changed since the launch; `noAddress`: an email removed -> "no email address"; an
 * address twice in the part -> "duplicate address", and one another row of this campaign reached is
 * skipAddressesReached's, after the screen): a deleted contact, a suppressed address, or a contact no
 * longer opted in to the campaign's channel (the launch's rule, campaigns.delivery `optInReason`: an
 * email opt-out -> "opted out of email"; SMS / calls without opt-in unless the launch confirmed consent; a contact
 * in `stopped`, who replied STOP from any of their numbers -> "opted out (replied STOP)", whatever
 * the consent) is skipped; a call, voicemail or SMS outside the contact's quiet hours is deferred to
 * their next allowed time.
 */
function screen(
  campaign: Pick<Campaign, "channel" | "content">,
  rows: LiveClaim[],
  contacts: Map<number, Contact>,
  suppressed: Map<string, string>,
  stopped: Map<number, string>,
  now: Date,
  changed: Pick<Readdressed, "moved" | "noAddress"> = {
    moved: new Set(),
    noAddress: new Set(),
  },
): { outcomes: Outcome[]; ready: Ready[] } {
  const kind = deliveryKind(campaign.channel);
  const includeNotOptedIn = !!campaign.content.ignoreOptIn;
  const outcomes: Outcome[] = [];
  const ready: Ready[] = [];
  // addresses this part sends to: one message per address, as the launch's "duplicate address"
  const seen = new Set<string>();
  for (const r of rows) {
    const moved = changed.moved.has(r.id);
    const base = { ...baseOf(r), ...(moved ? { address: r.address } : {}) };
    const contact = contacts.get(r.contactId);
    if (!contact) {
      outcomes.push({ ...base, kind: "skipped", reason: "contact deleted" });
      continue;
    }
    // the contact's email was removed since the launch (the launch's sentence for none)
    if (changed.noAddress.has(r.id)) {
      outcomes.push({ ...base, kind: "skipped", reason: "no email address" });
      continue;
    }
    const sup = suppressed.get(kind === "email" ? r.address.toLowerCase() : r.address);
    if (sup) {
      outcomes.push({ ...base, kind: "skipped", reason: skipReasonOfSuppression(sup) });
      continue;
    }
    const optOut = optInReason(campaign.channel, contact, includeNotOptedIn, stopped.has(contact.id));
    if (optOut) {
      outcomes.push({ ...base, kind: "skipped", reason: optOut });
      continue;
    }
    // an address this part already sends to (two contacts moved onto one address since the launch)
    if (seen.has(r.address)) {
      outcomes.push({ ...base, kind: "skipped", reason: "duplicate address" });
      continue;
    }
    seen.add(r.address);
    if (kind !== "email") {
      const q = quietHoursCheck(now, quietHoursSource(contact, r.address));
      if (!q.allowed) {
        outcomes.push({
          ...base,
          kind: "deferred",
          reason: `quiet hours (${q.zone ?? (q.country ? `every time zone of ${q.country}` : "time zone unknown")})`,
          notBefore: q.notBefore,
        });
        continue;
      }
    }
    ready.push({ ...r, contact });
  }
  return { outcomes, ready };
}

/**
 * The screened rows of a part (`ready`) whose address no other row of the campaign reached: a row
 * whose address another row was sent (or is being sent) to (campaigns.queries reserveAddresses: one
 * moved there since the launch, or this row's own, moved onto by another contact) is skipped
 * "duplicate address" (pushed onto `outcomes`); the moved rows that go reserve their address there,
 * under the campaign's lock, so a part of the same campaign sending at the same time (another chunk,
 * another worker) whose contact moved onto it too skips it instead of sending a second message.
 * `part`: all the part's rows (the screen's skipped and deferred ones are still `sending`).
 */
async function skipAddressesReached(
  deps: JobDeps,
  campaign: Campaign,
  ready: Ready[],
  moved: Set<number>,
  part: LiveClaim[],
  outcomes: Outcome[],
): Promise<Ready[]> {
  const taken = await reserveAddresses(
    deps.sql,
    campaign.id,
    ready.map((r) => ({ id: r.id, address: r.address, lease: r.lease, moved: moved.has(r.id) })),
    part.map((r) => r.id),
  );
  for (const r of ready)
    if (taken.has(r.id))
      outcomes.push({
        ...baseOf(r),
        ...(moved.has(r.id) ? { address: r.address } : {}),
        kind: "skipped",
        reason: "duplicate address",
      });
  return ready.filter((r) => !taken.has(r.id));
}

/** Rows as `readdress` addressed them, and which of them changed. */
interface Readdressed {
  rows: LiveClaim[];
  /** ids of rows whose contact's address for the channel differs from the launch's */
  moved: Set<number>;
  /** ids of email rows whose contact has no valid email any more */
  noAddress: Set<number>;
}

/**
 * Each claimed row at its contact's address for the channel as it is now (campaigns.audience
 * addressFor, the launch's rule): the launch recorded where it would send, and a contact whose email
 * or number was changed since must be reached where the CRM says they are, never at the address they
 * left (a corrected typo is someone else's mailbox). An email removed since is `noAddress`; a text or
 * call row whose contact has no number on file keeps the launch's (a CSV row's own number, used at
 * launch for a contact without one). A deleted contact keeps its row as it was (screen skips it).
 */
function readdress(
  channel: Campaign["channel"],
  rows: LiveClaim[],
  contacts: Map<number, Contact>,
): Readdressed {
  const moved = new Set<number>();
  const noAddress = new Set<number>();
  const email = deliveryKind(channel) === "email";
  const out = rows.map((r) => {
    const contact = contacts.get(r.contactId);
    if (!contact) return r;
    const now = addressFor(channel, contact);
    if (!now) {
      if (email) noAddress.add(r.id);
      return r;
    }
    if (now === r.address) return r;
    moved.add(r.id);
    return { ...r, address: now };
  });
  return { rows: out, moved, noAddress };
}

/**
 * Rows whose earlier attempt may have reached the provider: re-claimed rows (a previous worker died
 * while sending them) and retries of an attempt whose outcome is unknown (`outcome_unknown`: a
 * timeout, a network error, a 408 or 5xx can come after the vendor accepted the message; a 429 or a
 * per-message rejection cannot, and is retried without a lookup, see mayHaveBeenTaken). Asks the provider whether it already accepted
 * each one (`findSent` by the vendor idempotency key); found -> recorded as sent without sending
 * again; a failed lookup -> retried later (never risk a duplicate). Pushes those outcomes and
 * returns the rows still to send.
 */
async function recoverReclaimed(
  deps: JobDeps,
  campaign: Campaign,
  rows: Ready[],
  outcomes: Outcome[],
): Promise<Ready[]> {
  const reclaimed = rows.filter((r) => r.prevStatus === "sending" || r.outcomeUnknown);
  if (reclaimed.length === 0) return rows;
  const kind = deliveryKind(campaign.channel);
  const provider = deps.providers[kind];
  const found = new Set<number>();
  // texts: a vendor without idempotency keys (Twilio) is searched by body, so the body is rendered as
  // it was sent: with the opt-out notice when the number had none from the workspace (sendSms's rule),
  // and the other way too in case that changed since (another campaign's first text meanwhile)
  const noticed =
    kind === "sms" && provider.findSent
      ? await noticedNumbers(
          deps,
          campaign.workspaceId,
          reclaimed.map((r) => r.address),
        )
      : new Set<string>();
  await mapLimit(reclaimed, 8, async (r) => {
    if (!provider.findSent) {
      if (kind === "voicemail") await recoverDrop(deps, r, found, outcomes);
      return;
    }
    try {
      const since = lookupSince(campaign, r);
      // the bodies it may have been sent with (texts: the expected notice first), "" for other channels
      const variants =
        kind === "sms"
          ? [!noticed.has(r.address), noticed.has(r.address)].map((notice) => ({
              notice,
              ...renderSmsFor(campaign.content, mergeSource(r.contact), r.token, deps.env, notice),
            }))
          : [{ notice: false, body: "", segments: 1 }];
      for (const [i, v] of variants.entries()) {
        // a message that says how to opt out itself gets no notice: one body, one lookup
        if (i > 0 && v.body === variants[0]?.body) break;
        const id = await provider.findSent(vendorKey(r), { to: r.address, body: v.body, since });
        if (!id) continue;
        found.add(r.id);
        outcomes.push(sentOutcome(r, id, { segments: v.segments, optOutNotice: v.notice }));
        break;
      }
    } catch (e) {
      // cannot tell whether it was sent: do not risk a duplicate, retry the lookup later
      found.add(r.id);
      outcomes.push(failureOutcome(r, e, true));
    }
  });
  return rows.filter((r) => !found.has(r.id));
}

/**
 * How long a ringless voicemail drop whose answer was lost waits for the vendor's status callback
 * before it is dropped again (a provider with no lookup: Drop Cowboy): its callbacks come once the
 * drop was attempted, within minutes. Dropping again at the usual back-off (seconds) left two
 * voicemails when the first had been taken.
 */
export const DROP_REPORT_WAIT_MS = 10 * 60_000;

/**
 * A claimed voicemail row whose earlier drop may have been taken, on a provider that cannot be asked
 * (no `findSent`): a status callback held for its foreign_id (selectHeldDropId) records it sent with
 * that drop's id (recordOutcomes then applies the callback); a row re-claimed from a worker that died
 * mid-drop, with no callback yet, waits DROP_REPORT_WAIT_MS for one (outcome unknown). A row that
 * already waited (a retry with its outcome unknown, held back by awaitDropReport) goes ahead.
 * Adds the rows it decided to `found` and their outcomes to `outcomes`.
 */
async function recoverDrop(deps: JobDeps, r: Ready, found: Set<number>, outcomes: Outcome[]): Promise<void> {
  const held = await selectHeldDropId(deps.db, vendorKey(r));
  if (held) {
    found.add(r.id);
    outcomes.push(sentOutcome(r, held));
    return;
  }
  if (r.prevStatus !== "sending") return;
  found.add(r.id);
  outcomes.push({
    id: r.id,
    contactId: r.contactId,
    kind: "retry",
    reason: "Waiting for the voicemail provider's report of an earlier drop, so it is not dropped twice",
    attempts: r.attempts,
    unknown: true,
    notBefore: new Date(Date.now() + DROP_REPORT_WAIT_MS),
  });
}

/**
 * A failed drop's outcome on a voicemail provider that cannot be asked whether it took a drop (no
 * `findSent`): a retry whose drop may have been taken (a timeout, a 5xx) waits at least
 * DROP_REPORT_WAIT_MS for the vendor's status callback (recoverDrop then finds it) instead of the
 * usual back-off. Other outcomes as they are.
 */
function awaitDropReport(o: Outcome): Outcome {
  if (o.kind !== "retry" || !o.unknown) return o;
  const at = Date.now() + DROP_REPORT_WAIT_MS;
  return o.notBefore && o.notBefore.getTime() >= at ? o : { ...o, notBefore: new Date(at) };
}

/**
 * Since when a provider without idempotency keys (Twilio: a call or text to the number, with the
 * same body for a text, created since then is taken as this row's) may hold an earlier attempt of
 * claimed row `r`: the campaign's start (no attempt goes before it; a resend of failed rows days
 * later still finds the attempt that timed out), less a minute for clocks, else a day before the
 * claim. It was always the day before the claim: a call to the person from before the campaign (the
 * contact page that morning, another campaign) was taken for the campaign's call, the row recorded
 * called with that call's id and the person never called; and an attempt more than a day old was
 * not found, so a resend sent it again.
 */
function lookupSince(campaign: Pick<Campaign, "startedAt">, r: ClaimedRecipient): Date {
  if (campaign.startedAt) return new Date(campaign.startedAt.getTime() - 60_000);
  return new Date(r.updatedAt.getTime() - 86_400_000);
}

/**
 * Re-checks that each row is still ours (same lease_until as our claim) and extends the lease, just
 * before the provider call. A row whose lease expired and was re-claimed elsewhere (a throttle wait
 * longer than the lease) is dropped here, so two workers never both send it.
 */
async function confirmLease<R extends ClaimedRecipient>(deps: JobDeps, rows: R[]): Promise<R[]> {
  const mine = await extendLeases(deps.sql, rows, deps.env.CAMPAIGN_SEND_LEASE_SECONDS);
  return rows.filter((r) => mine.has(r.id)).map((r) => ({ ...r, lease: mine.get(r.id) as string }));
}

/**
 * The outcome of a provider error: retry later (transient, attempts left) or failed, with the
 * vendor's reason. `unknown`: whether the vendor may have taken the message (default
 * mayHaveBeenTaken), stored with the retry so that it is looked up before it is sent again.
 */
function failureOutcome(r: ClaimedRecipient, e: unknown, unknown = mayHaveBeenTaken(e)): Outcome {
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
      unknown,
      // whole seconds, so rows failing together come back together in one job
      notBefore: new Date(Math.ceil((Date.now() + backoffSeconds(r.attempts) * 1000) / 1000) * 1000),
    };
  }
  // the last attempt's outcome may be unknown too: kept on the failed row, so "Resend to failed only"
  // asks the provider before sending it again (it may have taken this one)
  return { id: r.id, contactId: r.contactId, kind: "failed", reason, attempts: r.attempts, unknown };
}

function sentOutcome(r: ClaimedRecipient, providerMessageId: string, extra: Partial<Outcome> = {}): Outcome {
  return {
    id: r.id,
    contactId: r.contactId,
    kind: "sent",
    providerMessageId,
    attempts: r.attempts,
    // the address it went to (the contact's now: readdress may have changed the launch's)
    address: r.address,
    ...extra,
  };
}

const templateCache = new Map<string, EmailTemplate>();

/**
 * The campaign's compiled email template (cached per campaign version, sender name and postal
 * address, at most ~200 kept): an address added in Settings > Workspace while a campaign sends is in
 * its later emails.
 */
async function emailTemplate(
  deps: JobDeps,
  campaign: Campaign,
  senderName: string,
  postalAddress: string | null,
) {
  const key = JSON.stringify([campaign.id, campaign.updatedAt.getTime(), senderName, postalAddress]);
  let t = templateCache.get(key);
  if (!t) {
    t = await buildEmailTemplate(campaign, { appUrl: deps.env.APP_URL, senderName, postalAddress });
    if (templateCache.size > 200) templateCache.clear();
    templateCache.set(key, t);
  }
  return t;
}

/** The name a campaign email is sent as: the workspace's sender name, else the owner's name. */
function emailSenderName(sender: SenderProfile | null): string {
  return sender?.businessName || sender?.name || "Pitchwise";
}

/** Email (and video email): rendered per recipient, sent in provider batches of 500. */
async function sendEmails(
  deps: JobDeps,
  campaign: Campaign,
  todo: Ready[],
  sender: SenderProfile | null,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  // the footer carries the workspace's postal address as it is now (CAN-SPAM 7704(a)(5)(A)(iii))
  const tpl = await emailTemplate(deps, campaign, emailSenderName(sender), sender?.postalAddress ?? null);
  // the workspace's sender name on the verified EMAIL_FROM address (what the builder's review showed)
  const from = senderFrom(campaign.content.myBusiness || emailSenderName(sender), deps.env.EMAIL_FROM);
  for (let i = 0; i < todo.length; i += 500) {
    const chunk = todo.slice(i, i + 500);
    const messages = chunk.map((r) => {
      const m = renderEmailFor(tpl, campaign.content, mergeSource(r.contact), r.token, deps.env);
      return {
        to: r.address,
        from,
        subject: m.subject,
        html: m.html,
        text: m.text,
        headers: m.headers,
        replyTo: sender?.email,
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
        if (res?.providerMessageId) outcomes.push(sentOutcome(r, res.providerMessageId));
        else
          outcomes.push(
            failureOutcome(
              r,
              new ProviderError(res?.error?.message ?? "rejected", {
                transient: res?.error?.transient ?? false,
                vendorCode: res?.error?.vendorCode,
              }),
              // the vendor answered for this message: it did not take it
              false,
            ),
          );
      });
    } catch (e) {
      for (const r of chunk) outcomes.push(failureOutcome(r, e));
    }
  }
  return outcomes;
}

/** Twilio's error for a number that replied STOP to the sender (Advanced Opt-Out / carrier block). */
const TWILIO_UNSUBSCRIBED = /\(code 21610\)$/;

/**
 * A send Twilio refused with error 21610 ("Attempt to send to unsubscribed recipient"): the person
 * opted out of the sending number (a STOP Twilio took, e.g. while our inbound webhook was down or
 * before it was configured). The number goes on the workspace's SMS suppression list (reason
 * "stop_reply", lifted by a START like any STOP), so no later path (a resend of failed rows, the
 * contact page, a scheduled campaign) tries it again and the CRM shows it. Returns `outcomes`.
 */
async function recordCarrierOptOuts(
  deps: JobDeps,
  campaign: Campaign,
  todo: Ready[],
  outcomes: Outcome[],
): Promise<Outcome[]> {
  const byId = new Map(todo.map((r) => [r.id, r.address]));
  for (const o of outcomes) {
    const address = byId.get(o.id);
    if (o.kind === "failed" && address && TWILIO_UNSUBSCRIBED.test(o.reason ?? ""))
      await suppress(deps.db, campaign.workspaceId, "sms", address, "stop_reply", "twilio 21610");
  }
  return outcomes;
}

const statusCallback = (deps: JobDeps) => `${deps.env.APP_URL}/api/webhooks/twilio/status`;

/**
 * Which of `addresses` (E.164) already had the SMS opt-out notice from `workspaceId`: a campaign text
 * that carried it (sent), or a text from the contact page (crm textedNumbers). The others' next text
 * carries it.
 */
async function noticedNumbers(deps: JobDeps, workspaceId: string, addresses: string[]): Promise<Set<string>> {
  const [noticed, texted] = await Promise.all([
    selectNoticedSmsAddresses(deps.sql, workspaceId, addresses),
    textedNumbers(deps, workspaceId, addresses),
  ]);
  for (const a of texted) noticed.add(a);
  return noticed;
}

/**
 * SMS (and video SMS). A number's first message from the workspace (no campaign text with the
 * notice, no contact-page text to it) carries the opt-out notice ("Reply STOP"). Providers with a bulk call (the local outbox) get one call per 500 messages;
 * others one call per message, 16 in flight.
 */
async function sendSms(deps: JobDeps, campaign: Campaign, todo: Ready[]): Promise<Outcome[]> {
  if (todo.length === 0) return [];
  const noticed = await noticedNumbers(
    deps,
    campaign.workspaceId,
    todo.map((r) => r.address),
  );
  const render = (r: Ready) =>
    renderSmsFor(campaign.content, mergeSource(r.contact), r.token, deps.env, !noticed.has(r.address));
  const message = (r: Ready, body: string) => ({
    to: r.address,
    body,
    statusCallback: statusCallback(deps),
    workspaceId: campaign.workspaceId,
    metadata: { campaignId: campaign.id, recipientId: r.id },
    idempotencyKey: vendorKey(r),
  });
  const smsBatch = deps.providers.sms.sendBatch?.bind(deps.providers.sms);
  if (!smsBatch)
    return mapLimit(todo, 16, async (r): Promise<Outcome> => {
      try {
        const m = render(r);
        const res = await deps.providers.sms.send(message(r, m.body));
        return sentOutcome(r, res.providerMessageId, {
          segments: m.segments,
          optOutNotice: !noticed.has(r.address),
        });
      } catch (e) {
        return failureOutcome(r, e);
      }
    });
  const outcomes: Outcome[] = [];
  for (let i = 0; i < todo.length; i += 500) {
    const chunk = todo.slice(i, i + 500);
    const rendered = chunk.map(render);
    try {
      const res = await smsBatch(chunk.map((r, k) => message(r, rendered[k]?.body ?? "")));
      chunk.forEach((r, k) => {
        outcomes.push(
          sentOutcome(r, res[k]?.providerMessageId ?? "", {
            segments: rendered[k]?.segments,
            optOutNotice: !noticed.has(r.address),
          }),
        );
      });
    } catch (e) {
      for (const r of chunk) outcomes.push(failureOutcome(r, e));
    }
  }
  return outcomes;
}

/**
 * AI voice calls (TwiML <Say> of the rendered script, after "This is a message from <business>." and
 * the keypress opt-out offer, before the offer again and the callback number: compliance callNotice,
 * callOptOutOffer) and ringless voicemail drops: one call each, 16 in flight. A voicemail cannot take
 * a keypress, so it starts by naming the business (the workspace's sender name, else its name) and
 * ends by giving the callback number (the voice provider's number, whose inbound menu takes the
 * opt-out): compliance voicemailNotice, 47 CFR 64.1200(b). The text-to-speech script carries both
 * sentences; a recording is played from a per-drop signed URL serving it with both sentences spoken
 * around it (campaigns.voicemail), made before the first drop (prepareVoicemailAudio): when it cannot
 * be made, the drops fail with VOICEMAIL_AUDIO_FAILED_REASON. With no callback number (the launch
 * refuses that; the provider's configuration changed since), the drop fails with that reason instead
 * of leaving a message without an opt-out.
 */
async function callOrDrop(
  deps: JobDeps,
  campaign: Campaign,
  kind: "voice" | "voicemail",
  todo: Ready[],
  sender: SenderProfile | null,
): Promise<Outcome[]> {
  const callback = deps.providers.voice.callbackNumber;
  const notice =
    kind === "voicemail" && callback ? voicemailNotice(sender?.businessName || "us", callback) : null;
  // an AI call names the business first and gives the callback number last (47 CFR 64.1200(b)(1), (2))
  const spoken = callNotice(sender?.businessName || campaign.content.myBusiness || "us", callback);
  // a recording is made into the drops' audio (notice around it) before any drop: when that fails,
  // the drops fail with a reason the report shows instead of leaving voicemails whose download fails
  const audioFailure =
    kind === "voicemail" && notice && campaign.content.audioMediaId
      ? await prepareVoicemailAudio(deps, campaign)
      : null;
  return mapLimit(todo, 16, async (r): Promise<Outcome> => {
    const common = {
      to: r.address,
      workspaceId: campaign.workspaceId,
      metadata: { campaignId: campaign.id, recipientId: r.id },
      idempotencyKey: vendorKey(r),
    };
    try {
      const script = renderScriptFor(campaign.content, mergeSource(r.contact));
      if (kind === "voicemail" && (!notice || audioFailure))
        return {
          id: r.id,
          contactId: r.contactId,
          kind: "failed",
          reason: audioFailure ?? NO_CALLBACK_NUMBER_REASON,
          attempts: r.attempts,
        };
      const res =
        kind === "voice"
          ? await deps.providers.voice.call({
              ...common,
              script,
              machineDetection: campaign.content.machineDetection ?? true,
              statusCallback: statusCallback(deps),
              // the business's name, "press 9 to stop calls from us" and the callback number
              // (47 CFR 64.1200(b)); a press suppresses the number
              optOut: callOptOutOffer(
                deps.env,
                {
                  workspaceId: campaign.workspaceId,
                  phone: r.address,
                  contactId: r.contactId,
                  recipientId: r.id,
                },
                spoken,
              ),
            })
          : await deps.providers.voicemail.drop({
              ...common,
              audioUrl: campaign.content.audioMediaId
                ? voicemailAudioUrl(deps.env, campaign.id, campaign.content.audioMediaId, r.id)
                : (campaign.content.audioUrl ?? null),
              ttsText: withVoicemailNotice(script, notice!),
              notice: notice!,
              // where Drop Cowboy posts the drop's outcome (handleVoicemailStatus), as calls and
              // texts always name Twilio's status callback
              statusCallback: voicemailStatusCallbackUrl(deps.env, common.idempotencyKey),
            });
      return sentOutcome(r, res.providerMessageId);
    } catch (e) {
      const out = failureOutcome(r, e);
      return kind === "voicemail" && !deps.providers.voicemail.findSent ? awaitDropReport(out) : out;
    }
  });
}

/**
 * Writes outcomes (status, vendor id, reason) and the contacts' sent activities in one transaction
 * (each row only while still `sending`) with a `message.sent` event (issue 15) for each row it marked
 * sent (queued after the commit), then re-enqueues retries and quiet-hours deferrals with a fresh deterministic job id at
 * their time. Returns how many rows it marked sent.
 */
async function recordOutcomes(deps: JobDeps, campaign: Campaign, outcomes: Outcome[]): Promise<number> {
  if (outcomes.length === 0) return 0;
  const sent = outcomes.filter((o) => o.kind === "sent");
  const waiting = outcomes.filter((o) => o.kind === "retry" || o.kind === "deferred");
  const done = outcomes.filter((o) => o.kind === "failed" || o.kind === "skipped");
  // handed to the provider: one message.sent per message for subscribed endpoints (one select when
  // none), stored in this transaction with the rows it reports (the webhooks outbox), as one batch
  const sentAt = new Date().toISOString();
  const {
    updated: marked,
    ended,
    emitted,
  } = await deps.db.transaction(async (tx) => {
    const updated = await markRecipientsSent(
      tx,
      sent.map((o) => ({
        id: o.id,
        providerMessageId: o.providerMessageId ?? "",
        segments: o.segments ?? 1,
        optOutNotice: o.optOutNotice ?? false,
        address: o.address ?? null,
      })),
    );
    const type = sentActivity(campaign.channel);
    // the CRM's recordActivities, in this same transaction (not for a contact deleted meanwhile)
    await recordActivities(
      tx,
      updated
        .flatMap((u) => (u.contactId === null ? [] : [{ ...u, contactId: u.contactId }]))
        .map((u) => ({
          workspaceId: campaign.workspaceId,
          contactId: u.contactId,
          activityType: type,
          metadata: {
            campaignId: campaign.id,
            campaignName: campaign.name,
            recipientId: u.id,
            messageId: u.providerMessageId,
            // the number or email it went to (crm textedNumbers: the opt-out notice is per number)
            address: u.address,
          },
        })),
    );
    await requeueRecipients(
      tx,
      waiting.map((o) => ({
        id: o.id,
        notBefore: o.notBefore ?? new Date(),
        reason: o.reason ?? null,
        deferred: o.kind === "deferred",
        unknown: o.unknown ?? false,
      })),
    );
    const ended = await finishRecipients(
      tx,
      done.map((o) => ({
        id: o.id,
        status: o.kind === "failed" ? "failed" : "skipped",
        reason: o.reason ?? null,
        address: o.address ?? null,
        unknown: o.kind === "failed" && !!o.unknown,
      })),
    );
    const emitted = await emitWebhookEvents(
      { db: tx, log: deps.log },
      campaign.workspaceId,
      "message.sent",
      updated.map((u) => ({
        campaign_id: campaign.id,
        recipient_id: u.id,
        contact_id: u.contactId,
        channel: campaign.channel,
        address: u.address,
        status: "sent",
        provider_message_id: u.providerMessageId,
        occurred_at: sentAt,
      })),
    );
    return { updated, ended, emitted };
  });
  // the events' delivery jobs, after the commit (the stranded sweep queues them if this process stops)
  await queueWebhookDeliveries(deps, emitted);
  // metered on launch, settled on outcome: a message skipped or failed when sending was never sent,
  // so its launch unit goes back to the plan's meter ("resend to failed" reserves it again)
  await releaseCampaignUsage(deps, launchOf(campaign), ended);
  // status callbacks that came back before this commit recorded their message ids: held, applied now
  if (marked.length)
    await applyEarlyEvents(
      deps,
      marked.map((u) => u.providerMessageId ?? ""),
    );
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
  return marked.length;
}

/**
 * Token bucket per channel per process (`SEND_RATE_*_PER_SEC`): `rate` sends per second, holding at
 * most `burst` (one second's worth, at least 1, at most one chunk). Callers take at most `burst` at
 * once and wait for them: the bucket never goes into debt, so a large chunk cannot pass at once and
 * leave the next send to pay for it (audit side note: at 20/s a 500-row chunk went out in one go and
 * the next campaign waited ~19 s).
 */
class Throttle {
  private tokens: number;
  private last = Date.now();
  /** the most sends taken at once: one second's worth, at least 1, at most SEND_CHUNK */
  readonly burst: number;
  constructor(private readonly rate: number) {
    this.burst = Math.max(1, Math.min(SEND_CHUNK, Math.floor(rate)));
    this.tokens = this.burst;
  }
  /** Waits until `n` sends (at most `burst`; more is capped) are allowed, then takes them. */
  async take(n: number): Promise<void> {
    const want = Math.min(n, this.burst);
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
      this.last = now;
      if (this.tokens >= want) {
        this.tokens -= want;
        return;
      }
      const wait = ((want - this.tokens) / this.rate) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(5, wait)));
    }
  }
}
const throttles = new Map<string, Throttle>();
function throttleFor(deps: JobDeps, kind: Kind): Throttle {
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
