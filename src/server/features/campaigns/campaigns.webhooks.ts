import { timingSafeEqual } from "node:crypto";
import type { AppContext } from "../../context";
import { pgErrorCode } from "../../db/errors";
import type { CampaignChannel, CampaignRecipient } from "../../db/schema";
import { twimlMessageResponse, twimlSayAndHangUp } from "../../providers/sms/twilio-webhooks";
import {
  CALL_OPT_OUT_CONFIRMATION,
  CALL_OPT_OUT_DIGIT,
  CALL_OTHER_KEY_GOODBYE,
  CALLBACK_NOTHING_ON_RECORD,
  type CallOptOutTarget,
  callbackMenuPrompt,
  callbackOptOutOffer,
  DEMO_BUSINESS,
  demoCallbackOptOutOffer,
} from "../compliance/call-opt-out";
import {
  isSuppressed,
  smsStoppedNumbers,
  suppress,
  suppressCallsByKeypress,
  unsuppress,
} from "../compliance/compliance.service";
import {
  classifySmsReply,
  helpReply,
  isExplicitStart,
  OPT_OUT_CONFIRMATION_WINDOW_MS,
  replyWords,
  startConfirmation,
  stopConfirmation,
} from "../compliance/sms-keywords";
import {
  contactsCalledAt,
  contactsTextedAt,
  getContactsByIds,
  recordActivities,
  recordContactOptIn,
  recordSmsStart,
} from "../crm/crm.service";
import { demoCalled, optOutOfDemoCalls } from "../demo/demo.service";
import { emitWebhookEvent, queueWebhookDeliveries } from "../webhooks/webhooks.service";
import { getSenderProfile } from "../workspaces/workspaces.service";
import { deliveryKind, vendorKey } from "./campaigns.delivery";
import {
  applyRecipientEvent,
  firstDelivery,
  onFirstDelivery,
  recipientByProviderId,
  recipientsForAddress,
  SOFT_BOUNCE,
  unsubscribeRecipient,
} from "./campaigns.events";
import {
  clearRecipientOptOut,
  insertEarlyEvent,
  insertSmsOptEvent,
  latestSmsOptEventId,
  selectRecipientById,
  selectSmsOptEventByMessage,
  takeEarlyEvent,
  takeEarlyEventsOf,
} from "./campaigns.queries";
import type { DropCowboyRvmCallback } from "./campaigns.schemas";

type Ctx = Pick<AppContext, "db" | "env" | "log" | "jobs">;

/** The `source` of the suppressions Postmark's webhooks make. */
const POSTMARK_SOURCE = "postmark webhook";

/**
 * The `source` of the suppression a Postmark `Unsubscribe` bounce makes: the person asked to
 * unsubscribe (e.g. the mailbox provider's unsubscribe button on the List-Unsubscribe header). Not
 * POSTMARK_SOURCE: it is the person's own opt-out, which a Postmark reactivation never lifts.
 */
export const POSTMARK_UNSUBSCRIBE_SOURCE = "postmark unsubscribe request";

/** Campaign channels whose messages go to a phone by SMS (an inbound SMS answers them). */
const SMS_CHANNELS: CampaignChannel[] = ["sms", "video_sms"];

export { HELP_KEYWORDS, START_KEYWORDS, STOP_KEYWORDS } from "../compliance/sms-keywords";

/**
 * Replay key of a verified status callback, built only from signed parameters: the message or call sid
 * plus its status (and AnsweredBy). Not `I-Twilio-Idempotency-Token`: the signature does not cover
 * headers, so a captured request replayed with a new token would pass as new (issue 11, finding 5).
 */
export function twilioEventKey(params: Record<string, string>): string {
  const sid = params.MessageSid ?? params.CallSid ?? params.SmsSid ?? "";
  return `${sid}:${params.MessageStatus ?? params.CallStatus ?? params.SmsStatus ?? ""}:${params.AnsweredBy ?? ""}`;
}

/** Replay key of a verified inbound SMS: its MessageSid (signed; one inbound message, one effect). */
export function twilioInboundKey(params: Record<string, string>): string {
  return `msg:${params.MessageSid ?? params.SmsSid ?? ""}`;
}

/**
 * Records a STOP or START reply with the provider's time. Returns that time and whether it is the
 * number's latest opt-out decision (latest provider time wins; ties go to the later arrival). The
 * provider's retry of a reply whose handling failed (onFirstDelivery) finds its decision recorded
 * already: the recorded one is used, and is still applied if it is still the latest.
 */
async function recordOptDecision(
  ctx: Ctx & Pick<AppContext, "providers">,
  phone: string,
  kind: "stop" | "start",
  messageSid: string,
): Promise<{ latest: boolean; providerTime: Date }> {
  const providerTime = (messageSid && (await ctx.providers.sms.messageTime?.(messageSid))) || new Date();
  const id = await insertSmsOptEvent(ctx.db, {
    phone,
    kind,
    providerMessageId: messageSid || `unknown-${Date.now()}`,
    providerTime,
  });
  if (id !== undefined) return { latest: (await latestSmsOptEventId(ctx.db, phone)) === id, providerTime };
  const recorded = messageSid ? await selectSmsOptEventByMessage(ctx.db, messageSid) : undefined;
  if (!recorded || recorded.phone !== phone || recorded.kind !== kind) return { latest: false, providerTime };
  return {
    latest: (await latestSmsOptEventId(ctx.db, phone)) === recorded.id,
    providerTime: recorded.providerTime,
  };
}

/** The business names (sender profiles) of `workspaceIds`, in order; a deleted workspace is left out. */
async function businessNames(ctx: Pick<AppContext, "db">, workspaceIds: string[]): Promise<string[]> {
  const names: string[] = [];
  for (const id of workspaceIds.slice(0, 5)) {
    const p = await getSenderProfile(ctx, id).catch(() => null);
    if (p?.businessName) names.push(p.businessName);
  }
  return names;
}

/**
 * Applies a verified Twilio status callback (messages: queued/sent/delivered/undelivered/failed with
 * ErrorCode; calls: completed/busy/no-answer/failed/canceled with AnsweredBy). Returns what changed
 * ("replay" for a delivery already applied). A callback whose work failed is not remembered, so
 * Twilio's retry applies it (onFirstDelivery).
 */
export async function handleTwilioStatus(
  ctx: Ctx,
  params: Record<string, string>,
  eventKey: string,
): Promise<"replay" | "unknown" | "applied" | "ignored"> {
  const done = await onFirstDelivery(ctx.db, "twilio", eventKey, async () => {
    const sid = params.MessageSid ?? params.CallSid ?? params.SmsSid;
    if (!sid) return "unknown" as const;
    const r = await recipientByProviderId(ctx.db, sid);
    if (!r) return holdEarlyEvent(ctx, "twilio", sid, params);
    return applyTwilioStatus(ctx, r, params);
  });
  return done.replay ? "replay" : done.value;
}

/** A Twilio status callback applied to its recipient `r` (handleTwilioStatus' work). */
async function applyTwilioStatus(
  ctx: Ctx,
  r: CampaignRecipient,
  params: Record<string, string>,
): Promise<"applied" | "ignored"> {
  const status = (params.MessageStatus ?? params.SmsStatus ?? params.CallStatus ?? "").toLowerCase();
  const code = params.ErrorCode ? ` (Twilio error ${params.ErrorCode})` : "";
  if (status === "delivered") return (await applyRecipientEvent(ctx, r, "delivered")) ? "applied" : "ignored";
  if (status === "undelivered" || status === "failed") {
    return (await applyRecipientEvent(ctx, r, "failed", { reason: `${status}${code}` }))
      ? "applied"
      : "ignored";
  }
  if (status === "completed") {
    const by = params.AnsweredBy ? { answeredBy: params.AnsweredBy } : {};
    // the call's length in whole seconds (Twilio CallDuration), kept for the report's talk time
    const seconds = /^\d{1,7}$/.test(params.CallDuration ?? "") ? Number(params.CallDuration) : undefined;
    return (await applyRecipientEvent(ctx, r, "delivered", {
      answeredBy: params.AnsweredBy || undefined,
      callSeconds: seconds,
      metadata: { ...by, duration: params.CallDuration },
    }))
      ? "applied"
      : "ignored";
  }
  if (status === "busy" || status === "no-answer" || status === "canceled") {
    return (await applyRecipientEvent(ctx, r, "failed", { reason: status })) ? "applied" : "ignored";
  }
  return "ignored";
}

/** Replay key of a Drop Cowboy RVM callback: the drop (our key and theirs) and its status. */
export function voicemailStatusEventKey(e: DropCowboyRvmCallback): string {
  return `${e.foreign_id}:${e.drop_id}:${e.status.toLowerCase()}:${e.dnc ? "dnc" : ""}`;
}

/**
 * The campaign report's words for a drop Drop Cowboy could not deliver: the do-not-call list (`dnc`)
 * or the carrier's spam block (`spam`) when it says so, else its `reason` ("Possible Error Reasons"
 * of its webhook docs), else its status. Cut to 300 characters.
 */
export function voicemailFailureReason(e: DropCowboyRvmCallback): string {
  const said = (e.reason ?? "").replace(/\s+/g, " ").trim();
  const vendor = said ? ` (Drop Cowboy: ${said})` : "";
  const words = e.dnc
    ? `Not delivered: the number is on a do-not-call list${vendor}`
    : e.spam
      ? `Not delivered: the carrier flagged the voicemail as spam${vendor}`
      : said
        ? `Not delivered: ${said} (Drop Cowboy)`
        : `Not delivered (Drop Cowboy status "${e.status}")`;
  return words.length > 300 ? `${words.slice(0, 299)}…` : words;
}

/**
 * Applies a ringless voicemail drop's outcome that Drop Cowboy posted to the drop's `callback_url`
 * (campaigns.voicemail voicemailStatusCallbackUrl; the route has already checked the URL's token
 * against `foreign_id`). The drop is found by `drop_id` (the id the send recorded) and must be the
 * recipient the token names (vendorKey = `foreign_id`): `status` "success" delivers it (delivered_at,
 * as the report counts, and the `message.delivered` webhook event), any other status fails it with
 * voicemailFailureReason (a `voicemail_failed` activity), through applyRecipientEvent as the Twilio
 * status callback does: a failure wins over a delivery in either order. The same drop's same
 * status again is a "replay" and changes nothing; a callback whose work failed is not remembered,
 * so a retry applies it (onFirstDelivery). A callback arriving before the send recorded `drop_id`
 * is held and applied when it does (holdEarlyEvent), as Twilio's are.
 */
export async function handleVoicemailStatus(
  ctx: Ctx,
  e: DropCowboyRvmCallback,
): Promise<"replay" | "unknown" | "applied" | "ignored"> {
  const done = await onFirstDelivery(ctx.db, "dropcowboy", voicemailStatusEventKey(e), async () => {
    const r = await recipientByProviderId(ctx.db, e.drop_id);
    if (!r) return holdEarlyEvent(ctx, "dropcowboy", e.drop_id, e);
    return applyVoicemailStatus(ctx, r, e);
  });
  return done.replay ? "replay" : done.value;
}

/** A Drop Cowboy RVM callback applied to its recipient `r` (handleVoicemailStatus' work). */
async function applyVoicemailStatus(
  ctx: Ctx,
  r: CampaignRecipient,
  e: DropCowboyRvmCallback,
): Promise<"applied" | "ignored"> {
  // the drop id must be the drop of the recipient the token was made for
  if (vendorKey(r) !== e.foreign_id || deliveryKind(r.channel) !== "voicemail") return "ignored";
  const ok = (b: boolean) => (b ? "applied" : "ignored");
  if (e.status.toLowerCase() === "success") return ok(await applyRecipientEvent(ctx, r, "delivered"));
  return ok(await applyRecipientEvent(ctx, r, "failed", { reason: voicemailFailureReason(e) }));
}

/**
 * A person's opt-out of a contact reached outside a campaign (the contact page's SMS or call): the
 * contact's opt-in for `channel` off, an `opted_out` activity with `metadata`, and the
 * `contact.unsubscribed` webhook event ({campaign_id: null, recipient_id: null, contact_id, channel,
 * address, status: "unsubscribed", occurred_at}), in one transaction (the webhooks outbox); the
 * event's deliveries are queued after its commit. The suppression itself is the caller's. With
 * `stepKey`, the step is done once per key (marked in its own transaction: a retried inbound
 * delivery does not record the opt-out twice).
 */
async function optOutContact(
  ctx: Ctx,
  workspaceId: string,
  contactId: number,
  channel: "sms" | "voice",
  address: string,
  metadata: Record<string, unknown>,
  stepKey?: string,
): Promise<void> {
  const emitted = await ctx.db.transaction(async (tx) => {
    // a retried delivery skips the step it already committed (the mark commits with the step)
    if (stepKey && !(await firstDelivery(tx, INBOUND_STEP, stepKey))) return null;
    const before = await recordContactOptIn({ db: tx }, workspaceId, contactId, channel, false);
    await recordActivities(tx, [
      { workspaceId, contactId, activityType: "opted_out", metadata: { ...metadata, opt_in_before: before } },
    ]);
    return emitWebhookEvent({ db: tx, log: ctx.log }, workspaceId, "contact.unsubscribed", {
      campaign_id: null,
      recipient_id: null,
      contact_id: contactId,
      channel,
      address,
      status: "unsubscribed",
      occurred_at: new Date().toISOString(),
    });
  });
  await queueWebhookDeliveries(ctx, emitted);
}

/**
 * Applies a verified inbound SMS (compliance sms-keywords classifySmsReply: case, punctuation, accents
 * and emoji ignored; "stop please", "opt out", "REVOKE", "ALTO"... are opt-outs; or Twilio's
 * `OptOutType`):
 * - STOP puts the number on the suppression list of every account that texted it and marks that
 *   account's latest recipient unsubscribed (`opted_out` activity, `contact.unsubscribed` webhook
 *   event); a contact texted from the contact page at the number (crm contactsTextedAt) gets its
 *   SMS opt-in turned off, an `opted_out` activity and `contact.unsubscribed` (optOutContact). So
 *   does a contact that a workspace called or left a voicemail at the number, by campaign or from the
 *   contact page (voiceCallersOf), with the number on that workspace's SMS suppression list: those
 *   calls and drops showed the same sending number as caller ID (TWILIO_FROM_NUMBER;
 *   DROPCOWBOY_CALLER_ID must be that number), and a STOP to a number opts out of its sender (CTIA;
 *   TCPA revocation by any reasonable means, 47 CFR 64.1200(a)(10)). The number's STOP holds for
 *   every workspace (compliance smsStoppedNumbers). The reply is the one confirmation naming the
 *   businesses that texted, called or left a voicemail at the number (compliance stopConfirmation; not
 *   one that only scheduled a text to it), sent only when the number
 *   was not already opted out and within five minutes of the STOP by the provider's clock
 *   (47 CFR 64.1200(a)(11)); a repeated STOP gets no second confirmation.
 * - START / UNSTOP (and YES, only from a number whose latest decision was STOP) removes both (and
 *   turns those contacts' SMS opt-in back on, the called ones' too), so a later STOP counts again, and
 *   is answered naming the same businesses.
 * - HELP / INFO is answered with the latest sender's business name, contact and how to opt out.
 * - Any other text marks the latest recipient `replied` (a YES from a number that is not opted out is
 *   such a reply).
 * Returns the TwiML reply text, or null when Twilio already answered (Advanced Opt-Out sends its own
 * confirmation when it sets OptOutType) or nothing should be sent. Replays (same MessageSid) change
 * nothing; a STOP/START older, by Twilio's own time, than the number's latest STOP/START is ignored.
 * A delivery whose handling failed part-way (a 5xx) is not remembered, so Twilio's retry finishes it
 * (onFirstDelivery): the number's STOP holds from the first attempt, and the retry reaches the
 * workspaces and contacts the first did not, recording each opt-out once (no confirmation then: the
 * number is already stopped).
 */
export async function handleTwilioInbound(
  ctx: Ctx & Pick<AppContext, "providers">,
  params: Record<string, string>,
  eventKey: string = twilioInboundKey(params),
): Promise<string | null> {
  const done = await onFirstDelivery(ctx.db, "twilio-inbound", eventKey, () =>
    applyTwilioInbound(ctx, params, eventKey),
  );
  return done.replay ? null : done.value;
}

/** The marks of the steps of an inbound SMS that record something once (optOutContact, optInAgain). */
const INBOUND_STEP = "twilio-inbound-step";

/**
 * A START's opt-in again of contact `contactId` of `workspaceId` (crm recordSmsStart: the SMS opt-in
 * its STOP took, or, with no opt-out on record, on only when the workspace `texted` the number), once
 * per `stepKey` (the mark commits with the change, so a retried delivery does not record it twice).
 */
async function optInAgain(
  ctx: Ctx,
  workspaceId: string,
  contactId: number,
  stepKey: string,
  texted: boolean,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (await firstDelivery(tx, INBOUND_STEP, stepKey))
      await recordSmsStart(tx, workspaceId, contactId, texted);
  });
}

/**
 * The workspaces and contacts that called or left a voicemail at `phone` (voiceCallersOf: campaign
 * calls and drops that went out, contact-page calls and voicemails), for an inbound STOP/START: those
 * calls and drops showed the same sending number as caller ID (TWILIO_FROM_NUMBER;
 * DROPCOWBOY_CALLER_ID must be that number), so a STOP to it is an opt-out from these workspaces
 * too. `targets` leaves out a contact that the texts already answer for (`accounts`' latest SMS
 * recipients, `texted` contact-page texts); `workspaceIds` are all the callers, newest call first.
 */
async function voiceReachedOnly(
  ctx: Pick<AppContext, "db">,
  phone: string,
  accounts: Map<string, CampaignRecipient>,
  texted: { workspaceId: string; contactId: number }[],
): Promise<{ workspaceIds: string[]; targets: CallOptOutTarget[] }> {
  if (!phone) return { workspaceIds: [], targets: [] };
  const covered = new Set([
    ...[...accounts.values()].map((r) => `${r.workspaceId}:${r.contactId}`),
    ...texted.map((c) => `${c.workspaceId}:${c.contactId}`),
  ]);
  const voice = await voiceCallersOf(ctx, phone);
  return {
    workspaceIds: voice.workspaceIds,
    targets: voice.targets.filter((c) => !covered.has(`${c.workspaceId}:${c.contactId}`)),
  };
}

/**
 * handleTwilioInbound's work for a delivery seen for the first time (or retried after it failed:
 * suppressions and recipient opt-outs are idempotent, and the steps that record an activity are
 * marked per step with `eventKey`).
 */
async function applyTwilioInbound(
  ctx: Ctx & Pick<AppContext, "providers">,
  params: Record<string, string>,
  eventKey: string,
): Promise<string | null> {
  const from = (params.From ?? "").trim();
  const body = (params.Body ?? "").trim();
  const optOutType = (params.OptOutType ?? "").trim().toUpperCase();
  const answeredByTwilio = optOutType === "STOP" || optOutType === "START" || optOutType === "HELP";
  let keyword = classifySmsReply(body, optOutType);
  const recipients = await recipientsForAddress(ctx.db, SMS_CHANNELS, from);
  const accounts = new Map<string, CampaignRecipient>();
  for (const r of recipients) if (!accounts.has(r.workspaceId)) accounts.set(r.workspaceId, r);
  // contacts texted from the contact page at this number (not campaign recipients): same answer
  const textedHere = await contactsTextedAt(ctx, from);
  const texted = textedHere.filter((c) => accounts.get(c.workspaceId)?.contactId !== c.contactId);
  // the businesses a confirmation names: those whose text reached the number (a campaign text sent,
  // or one from the contact page), newest campaign text first. A workspace whose only row at the
  // number is scheduled, queued or skipped never texted the person: naming it would tell them who
  // else holds their number (the STOP still holds for it, as for every workspace)
  const senders = [
    ...new Set([
      ...recipients.filter((r) => r.sentAt !== null).map((r) => r.workspaceId),
      ...textedHere.map((c) => c.workspaceId),
    ]),
  ];
  const wasStopped = from ? (await smsStoppedNumbers(ctx.db, [from])).has(from) : false;
  // a bare YES re-subscribes only a number that opted out; otherwise it answers the text
  if (keyword === "start" && !answeredByTwilio && !isExplicitStart(body) && !wasStopped) keyword = null;
  const sid = params.MessageSid ?? params.SmsSid ?? "";
  if (keyword === "stop" || keyword === "start") {
    const decision = await recordOptDecision(ctx, from, keyword, sid);
    if (!decision.latest) {
      // an older reply than the number's latest STOP/START (a delayed or replayed webhook): no effect
      ctx.log.info({ from, sid }, "ignored an out-of-date STOP/START reply");
      return null;
    }
    // the workspaces that called or left a voicemail at the number answer too, and are named
    const voice = await voiceReachedOnly(ctx, from, accounts, texted);
    const called = voice.targets;
    const names = [...new Set([...senders, ...voice.workspaceIds])];
    if (keyword === "stop") {
      // what the person sent, for the opt-out's activity
      const said = optOutType || replyWords(body).join(" ").slice(0, 40);
      for (const [workspaceId, r] of accounts) {
        await suppress(ctx.db, workspaceId, "sms", from, "stop_reply", "twilio inbound");
        // the opt-out on the account's latest recipient: `opted_out` activity and `contact.unsubscribed`
        await applyRecipientEvent(ctx, r, "unsubscribed", {
          metadata: { channel: "sms", keyword: said },
        });
      }
      for (const c of [...texted, ...called]) {
        await suppress(ctx.db, c.workspaceId, "sms", from, "stop_reply", "twilio inbound");
        // a called campaign recipient whose contact was deleted since has no contact to mark
        if (c.contactId !== null)
          await optOutContact(
            ctx,
            c.workspaceId,
            c.contactId,
            "sms",
            from,
            { channel: "sms", keyword: said },
            `${eventKey}:stop:${c.workspaceId}:${c.contactId}`,
          );
      }
      // one confirmation per opt-out, within five minutes of it (47 CFR 64.1200(a)(11))
      const late = Date.now() - decision.providerTime.getTime() > OPT_OUT_CONFIRMATION_WINDOW_MS;
      if (answeredByTwilio || wasStopped || late) return null;
      return stopConfirmation(await businessNames(ctx, names));
    }
    for (const [workspaceId, r] of accounts) {
      await unsuppress(ctx.db, workspaceId, "sms", from);
      await clearRecipientOptOut(ctx.db, workspaceId, SMS_CHANNELS, from);
      // the person asked for the texts again: the contact the STOP marked opted out is opted back in
      // (a recipient whose contact was deleted since has no contact to opt back in)
      if (r.contactId !== null)
        await optInAgain(
          ctx,
          workspaceId,
          r.contactId,
          `${eventKey}:start:${workspaceId}:${r.contactId}`,
          r.sentAt !== null,
        );
    }
    for (const [c, wasTexted] of [
      ...texted.map((c) => [c, true] as const),
      ...called.map((c) => [c, false] as const),
    ]) {
      await unsuppress(ctx.db, c.workspaceId, "sms", from);
      if (c.contactId !== null)
        await optInAgain(
          ctx,
          c.workspaceId,
          c.contactId,
          `${eventKey}:start:${c.workspaceId}:${c.contactId}`,
          wasTexted,
        );
    }
    return answeredByTwilio ? null : startConfirmation(await businessNames(ctx, names));
  }
  if (keyword === "help") {
    if (answeredByTwilio) return null;
    // the latest campaign sender, else the latest contact-page sender
    const latest = recipients.find((r) => r.sentAt)?.workspaceId ?? texted[0]?.workspaceId;
    const profile = latest ? await getSenderProfile(ctx, latest).catch(() => null) : null;
    return helpReply(profile?.businessName ?? null, profile ? profile.phone || profile.email || null : null);
  }
  const latest = recipients.find((r) => r.sentAt);
  if (latest)
    await applyRecipientEvent(ctx, latest, "replied", {
      replyText: body.slice(0, 1600),
      metadata: { body: body.slice(0, 1600) },
    });
  return null;
}

/**
 * A key pressed during an AI call (the call's keypress opt-out offer, compliance call-opt-out.ts;
 * `target` is the signed opt-out URL's, `params` the form Twilio's <Gather> action posts: Digits,
 * CallSid, From, To). The opt-out key ("9") puts the number on the workspace's suppression list for
 * calls and ringless voicemail (suppressCallsByKeypress: later campaign calls and drops are skipped
 * "opted out: pressed 9 during a call", the contact page refuses to call) and, once per call, records it:
 * a campaign call's recipient is marked unsubscribed (`opted_out` activity, `contact.unsubscribed`
 * webhook event, call opt-in off); a contact-page call turns the contact's call opt-in off, adds an
 * `opted_out` activity and emits `contact.unsubscribed` (optOutContact). Returns whether the person opted out and the TwiML the call continues with
 * (the confirmation or a goodbye, then <Hangup/>). Another key or none changes nothing.
 * Source: 47 CFR 64.1200(b)(3), (d)(3).
 */
export async function handleCallKeypress(
  ctx: Ctx,
  target: CallOptOutTarget,
  params: Record<string, string>,
): Promise<{ optedOut: boolean; twiml: string }> {
  const digits = (params.Digits ?? "").trim();
  if (digits !== CALL_OPT_OUT_DIGIT)
    return { optedOut: false, twiml: twimlSayAndHangUp(CALL_OTHER_KEY_GOODBYE) };
  const { workspaceId, phone } = target;
  try {
    await suppressCallsByKeypress(ctx.db, workspaceId, phone);
  } catch (e) {
    // the workspace was deleted since the call (foreign key): no one is left to call from
    if (pgErrorCode(e) !== "23503") throw e;
    return { optedOut: true, twiml: twimlSayAndHangUp(CALL_OPT_OUT_CONFIRMATION) };
  }
  const key = `${params.CallSid ?? ""}:${workspaceId}:${phone}:${target.contactId ?? ""}:${target.recipientId ?? ""}`;
  // recorded once per call (a failure is forgotten, so a second press records it)
  await onFirstDelivery(ctx.db, "voice-keypress", key, async () => {
    const r = target.recipientId === null ? undefined : await selectRecipientById(ctx.db, target.recipientId);
    const metadata = { channel: "voice", method: "keypress", digit: digits };
    if (r && r.workspaceId === workspaceId && r.address === phone) {
      await applyRecipientEvent(ctx, r, "unsubscribed", { metadata });
    } else if (target.contactId !== null) {
      const [c] = await getContactsByIds(ctx, workspaceId, [target.contactId]);
      if (c) await optOutContact(ctx, workspaceId, c.id, "voice", phone, metadata);
    }
  });
  return { optedOut: true, twiml: twimlSayAndHangUp(CALL_OPT_OUT_CONFIRMATION) };
}

/** Campaign channels that reach a phone by voice (an AI call or a ringless voicemail). */
const VOICE_CHANNELS: CampaignChannel[] = ["voice", "voicemail"];

/**
 * Who called or left a voicemail at `phone`, for the callback number's menu and an inbound SMS
 * STOP/START (applyTwilioInbound): the latest campaign call
 * or voicemail of each workspace (one latest recipient per workspace, at most 200 workspaces) and each contact called
 * from the contact page at the number (crm contactsCalledAt; a contact already behind that
 * workspace's campaign recipient is not repeated). `workspaceIds` are the workspaces behind them,
 * newest call first; `targets` the opt-outs a "9" makes (a campaign recipient, or a contact with
 * `recipientId: null`), each acted on only inside its own workspace.
 */
async function voiceCallersOf(
  ctx: Pick<AppContext, "db">,
  phone: string,
): Promise<{ workspaceIds: string[]; targets: CallOptOutTarget[] }> {
  const accounts = new Map<string, CampaignRecipient>();
  for (const r of await recipientsForAddress(ctx.db, VOICE_CHANNELS, phone))
    if (r.sentAt && !accounts.has(r.workspaceId)) accounts.set(r.workspaceId, r);
  const latest = new Map<string, number>();
  const seen = (workspaceId: string, at: number) =>
    latest.set(workspaceId, Math.max(latest.get(workspaceId) ?? 0, at));
  const targets: CallOptOutTarget[] = [];
  for (const r of accounts.values()) {
    seen(r.workspaceId, r.sentAt?.getTime() ?? 0);
    targets.push({ workspaceId: r.workspaceId, phone, contactId: r.contactId, recipientId: r.id });
  }
  for (const c of await contactsCalledAt(ctx, phone)) {
    if (accounts.get(c.workspaceId)?.contactId === c.contactId) continue;
    seen(c.workspaceId, c.calledAt.getTime());
    targets.push({ workspaceId: c.workspaceId, phone, contactId: c.contactId, recipientId: null });
  }
  const workspaceIds = [...latest.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  return { workspaceIds, targets };
}

/**
 * Answers an inbound call to the callback number a voicemail gave (compliance call-opt-out.ts;
 * `params` is the form Twilio posts to the number's voice webhook: From, To, CallSid). The caller
 * hears "To stop calls and voicemail from <business>, press 9." naming each workspace that called or
 * left a voicemail at the caller's number, by campaign or from the contact page (voiceCallersOf;
 * newest first, then "Pitchwise" when the landing-page demo called it: demo demoCalled), with the key
 * posted to the signed callback opt-out URL (handleCallbackKeypress); a caller only the demo called
 * gets the demo's own opt-out URL (compliance demoCallbackOptOutOffer, demo optOutOfDemoCalls); a
 * caller no one called hears that there is nothing on record. Returns the voice provider's TwiML (the
 * local provider also records the call in the outbox). Source: 47 CFR 64.1200(b)(3).
 */
export async function handleInboundCall(
  ctx: Ctx & Pick<AppContext, "providers">,
  params: Record<string, string>,
): Promise<string> {
  const from = (params.From ?? "").trim();
  const to = (params.To ?? "").trim();
  const base = { from, to, callSid: params.CallSid };
  const valid = /^\+\d{6,15}$/.test(from);
  const { workspaceIds } = valid ? await voiceCallersOf(ctx, from) : { workspaceIds: [] as string[] };
  const demo = valid && (await demoCalled(ctx, from));
  if (workspaceIds.length === 0 && !demo)
    return ctx.providers.voice.answerInbound({ ...base, say: CALLBACK_NOTHING_ON_RECORD });
  if (workspaceIds.length === 0) {
    const prompt = callbackMenuPrompt([DEMO_BUSINESS]);
    return ctx.providers.voice.answerInbound({
      ...base,
      say: prompt,
      optOut: demoCallbackOptOutOffer(ctx.env, from, prompt),
    });
  }
  const names: string[] = [];
  for (const id of workspaceIds.slice(0, 3))
    names.push((await getSenderProfile(ctx, id).catch(() => null))?.businessName ?? "");
  const callers = demo ? workspaceIds.length + 1 : workspaceIds.length;
  if (demo && names.length < 3) names.push(DEMO_BUSINESS);
  const prompt = callbackMenuPrompt(names, callers - names.length);
  return ctx.providers.voice.answerInbound({
    ...base,
    say: prompt,
    optOut: callbackOptOutOffer(ctx.env, from, prompt),
  });
}

/**
 * A key pressed in the callback number's menu (handleInboundCall; `phone` from the signed URL, `params`
 * the <Gather> action's form: Digits, CallSid). "9" opts the number out of calls and voicemail in every
 * workspace that called or left a voicemail there (voiceCallersOf), the same way as a key pressed
 * during one of their calls (handleCallKeypress: suppression "keypress_opt_out"; a campaign's latest
 * recipient marked unsubscribed; a contact called from the contact page gets its call opt-in turned
 * off, an `opted_out` activity and `contact.unsubscribed`), and out of the landing-page demo's calls
 * and texts when the demo called it (demo optOutOfDemoCalls); another key changes nothing. Returns
 * whether it opted out and the TwiML the call ends with.
 */
export async function handleCallbackKeypress(
  ctx: Ctx,
  phone: string,
  params: Record<string, string>,
): Promise<{ optedOut: boolean; twiml: string }> {
  if ((params.Digits ?? "").trim() !== CALL_OPT_OUT_DIGIT)
    return { optedOut: false, twiml: twimlSayAndHangUp(CALL_OTHER_KEY_GOODBYE) };
  for (const target of (await voiceCallersOf(ctx, phone)).targets)
    await handleCallKeypress(ctx, target, params);
  if (await demoCalled(ctx, phone)) await optOutOfDemoCalls(ctx, phone, CALL_OPT_OUT_DIGIT);
  return { optedOut: true, twiml: twimlSayAndHangUp(CALL_OPT_OUT_CONFIRMATION) };
}

/** TwiML <Response> with an optional <Message>. */
export function twimlReply(text: string | null): string {
  return twimlMessageResponse(text);
}

/**
 * Checks Postmark webhook basic auth (POSTMARK_WEBHOOK_USER / POSTMARK_WEBHOOK_PASSWORD, set in the
 * webhook URL as https://user:pass@host/...). Constant-time compare; false when not configured.
 */
export function verifyPostmarkAuth(ctx: Ctx, authorization: string | undefined): boolean {
  const user = ctx.env.POSTMARK_WEBHOOK_USER;
  const pass = ctx.env.POSTMARK_WEBHOOK_PASSWORD;
  if (!user || !pass || !authorization?.startsWith("Basic ")) return false;
  const given = Buffer.from(authorization.slice(6).trim(), "base64");
  const expected = Buffer.from(`${user}:${pass}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Postmark's event key for replay protection: RecordType + MessageID + the event's own id/time. */
export function postmarkEventKey(e: Record<string, unknown>): string {
  const when = e.ID ?? e.ReceivedAt ?? e.DeliveredAt ?? e.BouncedAt ?? e.ChangedAt ?? "";
  return `${e.RecordType}:${e.MessageID}:${when}`;
}

/**
 * Postmark bounce `Type`s that say the address itself is bad for good (Postmark's bounce types,
 * https://postmarkapp.com/developer/api/bounce-api#bounce-types, the SDK's `BounceType`): a hard bounce
 * (unknown user, mailbox not found), an invalid address, one deactivated by hand, a spam complaint.
 */
const PERMANENT_BOUNCES = new Set(["HardBounce", "BadEmailAddress", "ManuallyDeactivated", "SpamComplaint"]);

/**
 * The bounce `Type` (and `TypeCode`) of a recipient's unsubscribe request that Postmark files as a
 * bounce (Postmark's bounce types: "Unsubscribe", 16, "Unsubscribe request"; the SDK's
 * BounceType.Unsubscribe / BounceTypeCode.Unsubscribe): the person's email opt-out.
 */
const UNSUBSCRIBE_BOUNCE = { type: "Unsubscribe", code: 16 } as const;

/**
 * Bounce `Type`s that are not a failed delivery: an automatic reply (out of office: the email arrived)
 * and the notices Postmark files as bounces that say nothing about this address's mail (a subscribe
 * request, an address change, an open relay test, an inbound processing error). An unsubscribe
 * request is not among them: it is the person's opt-out (UNSUBSCRIBE_BOUNCE).
 */
const ARRIVED_BOUNCES = new Set(["AutoResponder"]);
const INFORMATIONAL_BOUNCES = new Set(["Subscribe", "AddressChange", "OpenRelayTest", "InboundError"]);

/**
 * What a Postmark Bounce webhook means for its message: `unsubscribe` (Type "Unsubscribe" or TypeCode
 * 16: the recipient asked to unsubscribe; whether or not Postmark also deactivated the address),
 * `permanent` (PERMANENT_BOUNCES, or any bounce after which Postmark deactivated the address,
 * `Inactive: true`: it would refuse to send there again), `arrived` (an auto-reply), `informational`
 * (not about delivery), else `soft`: a temporary or unclassified failure (SoftBounce, Transient
 * "message delayed", DnsError, Blocked, SpamNotification, ChallengeVerification, Unknown, ...) after
 * which the address may well receive mail again.
 */
export function postmarkBounceKind(
  e: Record<string, unknown>,
): "unsubscribe" | "permanent" | "soft" | "arrived" | "informational" {
  const type = String(e.Type ?? "");
  if (type === UNSUBSCRIBE_BOUNCE.type || (!type && Number(e.TypeCode) === UNSUBSCRIBE_BOUNCE.code))
    return "unsubscribe";
  if (PERMANENT_BOUNCES.has(type) || e.Inactive === true) return "permanent";
  if (ARRIVED_BOUNCES.has(type)) return "arrived";
  if (INFORMATIONAL_BOUNCES.has(type)) return "informational";
  return "soft";
}

/**
 * Applies a Postmark webhook (Delivery, Bounce, SpamComplaint, Open, Click, SubscriptionChange;
 * https://postmarkapp.com/developer/webhooks/webhooks-overview). A permanent bounce (postmarkBounceKind)
 * marks the recipient bounced and adds the address to the suppression list; a soft one fails the
 * recipient for now (reason "soft bounce (Type): ...", undone by a later delivery; "resend to failed"
 * retries it) and suppresses nothing; an auto-reply counts as delivered. An `Unsubscribe` bounce (the
 * person asked to unsubscribe, e.g. through their mailbox provider's List-Unsubscribe button) is their
 * email opt-out, taken like the unsubscribe page's (events unsubscribeRecipient: suppressed with
 * reason "unsubscribed", source POSTMARK_UNSUBSCRIBE_SOURCE, recipient marked unsubscribed, the
 * `contact.unsubscribed` webhook event; no later email from the workspace). Spam complaints add the
 * address to the suppression list; SubscriptionChange mirrors Postmark's suppression (a
 * reactivation lifts only a suppression a Postmark webhook made: the person's own unsubscribe stays).
 */
export async function handlePostmarkEvent(
  ctx: Ctx,
  e: Record<string, unknown>,
): Promise<"replay" | "unknown" | "applied" | "ignored"> {
  const type = String(e.RecordType ?? "");
  const messageId = String(e.MessageID ?? "");
  if (!type || !messageId) return "ignored";
  const done = await onFirstDelivery(ctx.db, "postmark", postmarkEventKey(e), async () => {
    const r = await recipientByProviderId(ctx.db, messageId);
    if (!r) return holdEarlyEvent(ctx, "postmark", messageId, e);
    return applyPostmarkEvent(ctx, r, e);
  });
  return done.replay ? "replay" : done.value;
}

/** A Postmark webhook applied to its recipient `r` (handlePostmarkEvent's work). */
async function applyPostmarkEvent(
  ctx: Ctx,
  r: CampaignRecipient,
  e: Record<string, unknown>,
): Promise<"applied" | "ignored"> {
  const type = String(e.RecordType ?? "");
  const ok = (b: boolean) => (b ? "applied" : "ignored");
  switch (type) {
    case "Delivery":
      return ok(await applyRecipientEvent(ctx, r, "delivered"));
    case "Open":
      return ok(
        await applyRecipientEvent(ctx, r, "opened", {
          metadata: { client: (e.Client as { Name?: string } | undefined)?.Name },
        }),
      );
    case "Click":
      return ok(await applyRecipientEvent(ctx, r, "clicked", { metadata: { url: e.OriginalLink } }));
    case "Bounce": {
      const kind = postmarkBounceKind(e);
      const detail = String(e.Description ?? e.Details ?? "").trim();
      if (kind === "unsubscribe")
        return ok(
          await unsubscribeRecipient(ctx, r, POSTMARK_UNSUBSCRIBE_SOURCE, {
            channel: "email",
            bounceType: UNSUBSCRIBE_BOUNCE.type,
          }),
        );
      if (kind === "arrived") return ok(await applyRecipientEvent(ctx, r, "delivered"));
      if (kind === "informational") return "ignored";
      if (kind === "soft")
        return ok(
          await applyRecipientEvent(ctx, r, "soft_bounced", {
            reason: `${SOFT_BOUNCE} (${String(e.Type ?? "Unknown")})${detail ? `: ${detail}` : ""}`,
          }),
        );
      await suppress(ctx.db, r.workspaceId, "email", r.address, "hard_bounce", POSTMARK_SOURCE);
      return ok(
        await applyRecipientEvent(ctx, r, "bounced", {
          reason: `${e.Type ?? "Bounce"}: ${detail}`.trim(),
        }),
      );
    }
    case "SpamComplaint":
      await suppress(ctx.db, r.workspaceId, "email", r.address, "spam_complaint", POSTMARK_SOURCE);
      return ok(await applyRecipientEvent(ctx, r, "complained"));
    case "SubscriptionChange":
      if (e.SuppressSending === true) {
        await suppress(
          ctx.db,
          r.workspaceId,
          "email",
          r.address,
          e.SuppressionReason === "SpamComplaint" ? "spam_complaint" : "unsubscribed",
          POSTMARK_SOURCE,
        );
        return ok(await applyRecipientEvent(ctx, r, "unsubscribed"));
      }
      // a reactivation in Postmark lifts Postmark's own suppression (bounce, complaint, its
      // unsubscribe), never one the person made through our unsubscribe page or one-click POST
      await unsuppress(ctx.db, r.workspaceId, "email", r.address, POSTMARK_SOURCE);
      if (!(await isSuppressed(ctx.db, r.workspaceId, "email", r.address)))
        await clearRecipientOptOut(ctx.db, r.workspaceId, ["email", "video_email"], r.address);
      return "applied";
    default:
      return "ignored";
  }
}

/**
 * A verified provider event whose message id matched no recipient: a status callback can arrive
 * before the send that got the id has recorded it (Twilio calls back within milliseconds). The event
 * is held (campaign_early_events) and the recipient looked up once more: when the send recorded the
 * id meanwhile, whoever takes the held event first applies it (this request, or the send's
 * applyEarlyEvents), so it is applied exactly once. Returns "unknown" when it stays held (applied
 * later by applyEarlyEvents, or purged after an hour: an id no campaign sent).
 */
async function holdEarlyEvent(
  ctx: Ctx,
  provider: "twilio" | "postmark" | "dropcowboy",
  messageId: string,
  payload: Record<string, unknown>,
): Promise<"unknown" | "applied" | "ignored"> {
  const id = await insertEarlyEvent(ctx.db, { provider, providerMessageId: messageId, payload });
  const r = await recipientByProviderId(ctx.db, messageId);
  if (!r) return "unknown";
  const held = await takeEarlyEvent(ctx.db, id);
  // taken by the send's applyEarlyEvents, which applies it
  if (!held) return "applied";
  return applyHeld(ctx, r, held);
}

function applyHeld(
  ctx: Ctx,
  r: CampaignRecipient,
  held: { provider: string; payload: Record<string, unknown> },
): Promise<"applied" | "ignored"> {
  if (held.provider === "dropcowboy")
    return applyVoicemailStatus(ctx, r, held.payload as DropCowboyRvmCallback);
  return held.provider === "twilio"
    ? applyTwilioStatus(ctx, r, held.payload as Record<string, string>)
    : applyPostmarkEvent(ctx, r, held.payload);
}

/**
 * Applies the provider events held for the message ids `ids` (holdEarlyEvent), in arrival order, once
 * the send that got those ids has recorded them (campaigns.send recordOutcomes, after its commit).
 * One indexed delete when none is held. Returns how many were applied or ignored by the rules.
 */
export async function applyEarlyEvents(ctx: Ctx, ids: string[]): Promise<number> {
  const held = await takeEarlyEventsOf(ctx.db, ids.filter(Boolean));
  for (const h of held) {
    const r = await recipientByProviderId(ctx.db, h.providerMessageId);
    if (r) await applyHeld(ctx, r, h);
  }
  return held.length;
}
