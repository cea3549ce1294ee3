import type { AppContext } from "../../context";
import type { Contact } from "../../db/schema";
import { emailSubjectLine } from "../../lib/email-subject";
import { AppError } from "../../lib/errors";
import { mergeFor } from "../../lib/merge-tags";
import { parseInput } from "../../lib/validate";
import { ProviderError } from "../../providers/errors";
import { SMS_MAX_CHARACTERS } from "../../providers/sms";
import { assertCanSend } from "../auth/auth.service";
import { releaseUsage, reserveUsage } from "../billing/billing.service";
import { callNotice, callOptOutOffer } from "../compliance/call-opt-out";
import {
  contactNumberFor,
  contactsWhoRepliedStop,
  DO_NOT_CALL_REASON,
  findSuppressed,
  isSuppressed,
  setDoNotCallNumbers,
  suppress,
} from "../compliance/compliance.service";
import { quietHoursRefusal } from "../compliance/quiet-hours";
import { firstTextBody } from "../compliance/sms-keywords";
import { getSenderProfile } from "../workspaces/workspaces.service";
import { toContactJson } from "./crm.contact-json";
import { getContact, recordContactOptIn } from "./crm.contacts";
import { recordActivities } from "./crm.notes";
import { selectContactsReachedAt, selectTextedNumbers } from "./crm.queries";
import {
  CALL_SCRIPT_MAX_CHARACTERS,
  doNotCallSchema,
  makeCallSchema,
  sendEmailSchema,
  sendSmsSchema,
} from "./crm.schemas";

// One message to one contact from the contact page: email, SMS, AI call.

type Ctx = Pick<AppContext, "db" | "sql" | "jobs" | "providers" | "log" | "env">;

function providerFailure(e: unknown, what: string): never {
  if (e instanceof ProviderError) throw new AppError("BAD_GATEWAY", `${what}: ${e.message}`);
  throw e;
}

/**
 * `template` (a subject, message or call script as typed on the contact page) with its merge tags
 * filled in for the contact `c`: the campaigns' syntax and renderer (lib/merge-tags mergeFor:
 * `{{first_name|there}}`, `{{name}}`, `{{company}}`, `{{email}}`, `{{phone}}`, any contact field or
 * custom field, `{{my_business}}` = `myBusiness`, the workspace's sender name; the spec's `{name}` and
 * `[company]` too). The fields are read from the contact's JSON (crm.contact-json toContactJson, what
 * tRPC `crm.get` gives the page), so the dialogs' preview (merge-tags renderPreview of that same JSON)
 * is exactly the text sent. A tag the contact has no value for renders its fallback, else its default
 * one (name/first_name "there", company "your company"), else nothing: as in a campaign, which never
 * refuses a tag (a custom field one contact lacks is a tag another has). Returns the filled text, trimmed.
 * @throws AppError BAD_REQUEST `whenEmpty` when nothing is left once the tags are filled in (e.g. a
 *   subject of only `{{city}}` for a contact without a city).
 */
function fillContactMergeTags(template: string, c: Contact, myBusiness: string, whenEmpty: string): string {
  const filled = mergeFor(template, toContactJson(c), myBusiness).trim();
  if (!filled) throw new AppError("BAD_REQUEST", whenEmpty);
  return filled;
}

/**
 * POST /api/contacts/{id}/send-email {subject, body}: sends through the email provider, never to a
 * suppressed address (compliance suppression list) or a contact who opted out of email. The subject
 * and body have their merge tags filled in for the contact (fillContactMergeTags); the subject is then
 * one header line as a campaign's (lib/email-subject emailSubjectLine: line breaks and control
 * characters become a space, past EMAIL_SUBJECT_MAX_LENGTH it is cut at a word boundary with an
 * ellipsis). Records an email_sent activity with the subject as sent and who sent it (`sentBy`,
 * activities.created_by: the timeline's "Sent by Cara Member").
 * @throws BAD_REQUEST (also a subject or body empty once filled in), NOT_FOUND, UNPROCESSABLE,
 *   BAD_GATEWAY.
 */
export async function sendEmailToContact(
  ctx: Ctx,
  workspaceId: string,
  contactId: number,
  input: unknown,
  sentBy: string | null = null,
) {
  const m = parseInput(sendEmailSchema, input);
  const c = await getContact(ctx, workspaceId, contactId);
  if (!c.email) throw new AppError("UNPROCESSABLE", "This contact has no email address");
  // issue 11: until `sentBy` has verified their address, only that address
  if (sentBy) await assertCanSend(ctx, sentBy, [c.email]);
  if (await isSuppressed(ctx.db, workspaceId, "email", c.email))
    throw new AppError(
      "UNPROCESSABLE",
      "This email address is on your suppression list and cannot be emailed",
    );
  if (!c.emailOptIn) throw new AppError("UNPROCESSABLE", "This contact has opted out of email");
  // merge tags filled in for this contact ({{my_business}}: the workspace's sender name)
  const business = (await getSenderProfile(ctx, workspaceId)).businessName;
  // one header line: no line break or control character, cut past EMAIL_SUBJECT_MAX_LENGTH
  const subjectEmpty = "The subject is empty once its merge tags are filled in for this contact";
  const subject = emailSubjectLine(fillContactMergeTags(m.subject, c, business, subjectEmpty));
  if (!subject) throw new AppError("BAD_REQUEST", subjectEmpty);
  const text = fillContactMergeTags(
    m.body,
    c,
    business,
    "The message is empty once its merge tags are filled in for this contact",
  );
  // counts against the plan's monthly emails (issue 12); given back if the provider refuses it
  const reservation = await reserveUsage(ctx, workspaceId, "emails", 1);
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.email.send({
      to: c.email,
      subject,
      text,
      workspaceId,
      stream: "transactional",
      metadata: { contact_id: String(c.id) },
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    providerFailure(e, "Failed to send email");
  }
  await recordActivities(ctx.db, [
    {
      workspaceId,
      contactId: c.id,
      activityType: "email_sent",
      createdBy: sentBy,
      metadata: { subject, provider_message_id: result.providerMessageId },
    },
  ]);
  return { message_id: result.providerMessageId };
}

/**
 * The E.164 number a single SMS (mobile first) or call (phone first) goes to (compliance
 * contactNumberFor, the campaigns' rule too), never one on the workspace's suppression list for the
 * channel (for SMS and calls that includes an SMS STOP to the sending number, and for calls a
 * keypress opt-out: compliance findSuppressed), and never to a contact who replied STOP from any of
 * their numbers (compliance contactsWhoRepliedStop: the STOP stops texts and calls to the person on
 * every number until a START from that number).
 * @throws AppError UNPROCESSABLE when the contact has no usable number, the number is suppressed or
 *   the contact replied STOP from another number.
 */
async function phoneRecipient(
  ctx: Ctx,
  workspaceId: string,
  c: Contact,
  channel: "sms" | "voice",
): Promise<string> {
  if (!c.phoneRaw && !c.mobileRaw && !c.phone && !c.mobile)
    throw new AppError("UNPROCESSABLE", "This contact has no phone number");
  const to = contactNumberFor(channel, c);
  if (!to) throw new AppError("UNPROCESSABLE", "This contact's phone number is not a valid number");
  const stoppedFrom = (await contactsWhoRepliedStop(ctx.db, workspaceId, [c])).get(c.id);
  if (stoppedFrom && stoppedFrom !== to)
    throw new AppError(
      "UNPROCESSABLE",
      `This contact opted out (replied STOP from ${stoppedFrom}): they cannot be texted or called at any of their numbers until they reply START from that number`,
    );
  if (await isSuppressed(ctx.db, workspaceId, channel, to))
    throw new AppError(
      "UNPROCESSABLE",
      channel === "sms"
        ? "This number is on your suppression list (opted out of SMS)"
        : "This number is on your suppression list (opted out of calls) and cannot be called",
    );
  return to;
}

/**
 * Reserves one message of `meter` (billing reserveUsage: a plan that does not allow it refuses first,
 * with its own sentence) and checks the contact's quiet hours (08:00-21:00 in their time zone,
 * compliance quietHoursRefusal; 47 CFR 64.1200(c)(1)), giving the reservation back when it is outside
 * them. Returns the reservation. @throws AppError PAYMENT_REQUIRED (plan), UNPROCESSABLE (quiet
 * hours: the sentence says the contact's local time and when sending opens).
 */
async function reserveInsideQuietHours(
  ctx: Ctx,
  workspaceId: string,
  c: Contact,
  meter: "smsMessages" | "voiceCalls",
) {
  const reservation = await reserveUsage(ctx, workspaceId, meter, 1);
  const quiet = quietHoursRefusal(new Date(), c);
  if (quiet) {
    await releaseUsage(ctx, reservation);
    throw new AppError("UNPROCESSABLE", quiet);
  }
  return reservation;
}

/**
 * POST /api/contacts/{id}/send-sms {message}: at most 160 characters (spec section 5), to the
 * mobile (else phone) in E.164; never to a number on the suppression list (STOP replies) nor outside
 * the contact's quiet hours (reserveInsideQuietHours), nor to a contact who replied STOP from any of
 * their numbers. The workspace's first text to the number (textedNumbers: no text to it yet from the
 * contact page or a campaign) is led by "<business>: " (the workspace's sender name, else its name)
 * unless the message names the business, and gets "Reply STOP to opt out" on a new line unless it
 * already says how to opt out (compliance firstTextBody; CTIA Messaging Principles: the first message
 * identifies the sender and gives opt-out instructions; every workspace texts from one number). Opt-in is confirmed in the client (spec), not enforced
 * here. The message's merge tags are filled in for the contact first (fillContactMergeTags; the
 * 160 characters are the message as typed, the filled text may be longer and go as more segments, up
 * to SMS_MAX_CHARACTERS with the first text's additions). Records sms_sent with the filled message and
 * who sent it (`sentBy`, activities.created_by).
 * @throws BAD_REQUEST (also a message empty once filled in, or over 1,600 characters once filled in
 *   and, for a first text, named and given its opt-out line: nothing is reserved or sent), NOT_FOUND,
 *   UNPROCESSABLE, BAD_GATEWAY.
 */
export async function sendSmsToContact(
  ctx: Ctx,
  workspaceId: string,
  contactId: number,
  input: unknown,
  sentBy: string | null = null,
) {
  const m = parseInput(sendSmsSchema, input);
  // issue 11: an unverified account sends no SMS (its own address is an email address)
  if (sentBy) await assertCanSend(ctx, sentBy, []);
  const c = await getContact(ctx, workspaceId, contactId);
  const to = await phoneRecipient(ctx, workspaceId, c, "sms");
  // counts against the plan's monthly smsMessages (issue 12); given back if the provider refuses it
  // or it is outside the contact's quiet hours
  // the business a first text names (read before the plan's unit is reserved)
  const sender = await getSenderProfile(ctx, workspaceId);
  const message = fillContactMergeTags(
    m.message,
    c,
    sender.businessName,
    "The message is empty once its merge tags are filled in for this contact",
  );
  // the workspace's first text to this number names the business and says how to opt out (CTIA),
  // like a campaign's first
  const texted = await selectTextedNumbers(ctx.db, workspaceId, [to]);
  const body = texted.has(to) ? message : firstTextBody(message, sender.businessName);
  // the tags can fill 160 typed characters with thousands (a custom field holds 500): refused before
  // the plan's unit is reserved, as Twilio would refuse it (error 21617)
  if (body.length > SMS_MAX_CHARACTERS)
    throw new AppError(
      "BAD_REQUEST",
      `The message is ${body.length.toLocaleString("en-US")} characters once its merge tags are filled in for this contact; a text can be at most 1,600.`,
    );
  const reservation = await reserveInsideQuietHours(ctx, workspaceId, c, "smsMessages");
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.sms.send({
      to,
      body,
      workspaceId,
      metadata: { contact_id: c.id },
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    // Twilio 21610: the person replied STOP to the sending number (Twilio's record of it): no path
    // texts the number again until they reply START
    if (e instanceof ProviderError && String(e.vendorCode) === "21610")
      await suppress(ctx.db, workspaceId, "sms", to, "stop_reply", "twilio 21610");
    providerFailure(e, "Failed to send SMS");
  }
  await recordActivities(ctx.db, [
    {
      workspaceId,
      contactId: c.id,
      activityType: "sms_sent",
      createdBy: sentBy,
      metadata: { message, to, provider_message_id: result.providerMessageId },
    },
  ]);
  return { message_id: result.providerMessageId };
}

/**
 * POST /api/contacts/{id}/make-call {script}: an AI text-to-speech call through the voice provider
 * to the phone (else mobile), never to a number suppressed for voice (a keypress opt-out, an SMS
 * STOP) nor outside the contact's quiet hours (reserveInsideQuietHours). The call names the business
 * first (the workspace's sender name, else its name), offers the keypress opt-out and ends with the
 * callback number (the voice provider's, TWILIO_FROM_NUMBER): compliance callNotice / callOptOutOffer,
 * 47 CFR 64.1200(b). The script's merge tags are filled in for the contact (fillContactMergeTags).
 * Records call_made with the filled script and who placed it (`sentBy`, activities.created_by). @throws BAD_REQUEST (also a script empty once filled in,
 * or over 5,000 characters once filled in: nothing is reserved or called), NOT_FOUND, UNPROCESSABLE,
 * BAD_GATEWAY.
 */
export async function makeCallToContact(
  ctx: Ctx,
  workspaceId: string,
  contactId: number,
  input: unknown,
  sentBy: string | null = null,
) {
  const m = parseInput(makeCallSchema, input);
  if (sentBy) await assertCanSend(ctx, sentBy, []);
  const c = await getContact(ctx, workspaceId, contactId);
  const to = await phoneRecipient(ctx, workspaceId, c, "voice");
  // counts against the plan's monthly voiceCalls (issue 12); given back if the provider refuses it
  // or it is outside the contact's quiet hours
  // the business the call names and the number it gives (read before the plan's unit is reserved)
  const sender = await getSenderProfile(ctx, workspaceId);
  const notice = callNotice(sender.businessName, ctx.providers.voice.callbackNumber);
  const script = fillContactMergeTags(
    m.script,
    c,
    sender.businessName,
    "The call script is empty once its merge tags are filled in for this contact",
  );
  // the script's limit as typed (crm.schemas makeCallSchema) holds for it filled in: 5,000 typed
  // characters of tags could make hundreds of thousands to speak
  if (script.length > CALL_SCRIPT_MAX_CHARACTERS)
    throw new AppError(
      "BAD_REQUEST",
      `The call script is ${script.length.toLocaleString("en-US")} characters once its merge tags are filled in for this contact; a call script can be at most 5,000.`,
    );
  const reservation = await reserveInsideQuietHours(ctx, workspaceId, c, "voiceCalls");
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.voice.call({
      to,
      script,
      workspaceId,
      metadata: { contact_id: c.id },
      // the business's name, "press 9 to stop calls from us" and the callback number (47 CFR
      // 64.1200(b)); a press suppresses the number
      optOut: callOptOutOffer(
        ctx.env,
        { workspaceId, phone: to, contactId: c.id, recipientId: null },
        notice,
      ),
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    providerFailure(e, "Failed to make call");
  }
  await recordActivities(ctx.db, [
    {
      workspaceId,
      contactId: c.id,
      activityType: "call_made",
      createdBy: sentBy,
      metadata: { script, to, provider_message_id: result.providerMessageId },
    },
  ]);
  return { call_id: result.providerMessageId };
}

/**
 * Which of `phones` (E.164) the workspace has texted from the contact page or (campaign texts since
 * they record their address) a campaign: the numbers whose first text already carried, or did not
 * need, the "Reply STOP to opt out" notice. Per number, never per contact: a person's mobile is a new
 * number even when their phone was texted (README: "a workspace's first text to a number").
 */
export async function textedNumbers(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  phones: string[],
): Promise<Set<string>> {
  return selectTextedNumbers(ctx.db, workspaceId, [...new Set(phones.filter(Boolean))]);
}

/** Whether a contact's numbers may be called (AI calls and ringless voicemail), as the contact page shows it. */
export interface DoNotCallStatus {
  /** true when any of the contact's numbers is suppressed for calls */
  do_not_call: boolean;
  /** the owner marked it (setDoNotCall); the owner can lift this mark */
  marked_by_owner: boolean;
  /** the person opted out themselves (a keypress during a call, an SMS STOP): the owner cannot lift it */
  opted_out_by_person: boolean;
  /** sentences saying why, one per reason */
  reasons: string[];
}

const DO_NOT_CALL_SENTENCES: Record<string, string> = {
  keypress_opt_out: "They pressed 9 during a call to stop calls from you.",
  stop_reply: "They replied STOP to a text from your sending number.",
  [DO_NOT_CALL_REASON]: "You marked this contact do not call.",
};

function contactNumbers(c: Contact): string[] {
  return [...new Set([c.phone, c.mobile].filter((n): n is string => !!n))];
}

/**
 * The contact's "do not call" state: its phone and mobile (E.164) on the workspace's suppression list
 * for calls (compliance findSuppressed "voice": a keypress opt-out, an SMS STOP, the owner's mark, or
 * another reason). @throws AppError NOT_FOUND.
 */
export async function getDoNotCall(
  ctx: Ctx,
  workspaceId: string,
  contactId: number,
): Promise<DoNotCallStatus> {
  const c = await getContact(ctx, workspaceId, contactId);
  const reasons = [
    ...new Set((await findSuppressed(ctx.db, workspaceId, "voice", contactNumbers(c))).values()),
  ];
  return {
    do_not_call: reasons.length > 0,
    marked_by_owner: reasons.includes(DO_NOT_CALL_REASON),
    opted_out_by_person: reasons.some((r) => r !== DO_NOT_CALL_REASON),
    reasons: reasons.map((r) => DO_NOT_CALL_SENTENCES[r] ?? `On your suppression list for calls (${r}).`),
  };
}

/** Why a contact's email address or numbers are on the workspace's suppression list (`getOptOuts`). */
export interface OptOutStatus {
  /** sentences, one per reason, for the contact's email address; empty when it may be emailed */
  email: string[];
  /** sentences for the contact's phone and mobile and texts; empty when they may be texted */
  sms: string[];
}

const OPT_OUT_SENTENCES: Record<"email" | "sms", Record<string, string>> = {
  email: {
    unsubscribed: "They unsubscribed from your emails.",
    hard_bounce: "Emails to this address bounced; it may not exist.",
    spam_complaint: "They marked one of your emails as spam.",
  },
  sms: {
    stop_reply: "They replied STOP to a text from your sending number.",
  },
};

/**
 * The contact's opt-outs of email and texts (the workspace's suppression list, compliance
 * findSuppressed: an unsubscribe, a hard bounce or spam complaint, an SMS STOP), which campaigns and
 * single sends honour whatever the contact's opt-in flags say: the contact page shows them beside
 * those flags. Returns `{email, sms}`, each a list of sentences (empty: not suppressed).
 * @throws AppError NOT_FOUND for another workspace's contact or an unknown id.
 */
export async function getOptOuts(ctx: Ctx, workspaceId: string, contactId: number): Promise<OptOutStatus> {
  const c = await getContact(ctx, workspaceId, contactId);
  const [email, sms] = await Promise.all([
    c.email ? findSuppressed(ctx.db, workspaceId, "email", [c.email]) : new Map<string, string>(),
    findSuppressed(ctx.db, workspaceId, "sms", contactNumbers(c)),
  ]);
  const sentences = (channel: "email" | "sms", reasons: Map<string, string>) =>
    [...new Set(reasons.values())].map(
      (r) =>
        OPT_OUT_SENTENCES[channel][r] ??
        `On your suppression list for ${channel === "sms" ? "texts" : "email"} (${r}).`,
    );
  return { email: sentences("email", email), sms: sentences("sms", sms) };
}

/**
 * The owner marks the contact "do not call" (`{do_not_call: true}`: its numbers go on the suppression
 * list for calls and ringless voicemail, reason "do_not_call", and its call opt-in is turned off) or
 * lifts that mark (`false`: only the owner's own mark goes; a person's keypress opt-out or STOP stays).
 * Returns the new state. @throws AppError BAD_REQUEST, NOT_FOUND, UNPROCESSABLE 'This contact has no
 * phone number'.
 */
export async function setDoNotCall(
  ctx: Ctx,
  workspaceId: string,
  contactId: number,
  input: unknown,
): Promise<DoNotCallStatus> {
  const { do_not_call: on } = parseInput(doNotCallSchema, input);
  const c = await getContact(ctx, workspaceId, contactId);
  const numbers = contactNumbers(c);
  if (numbers.length === 0) throw new AppError("UNPROCESSABLE", "This contact has no phone number");
  await setDoNotCallNumbers(ctx.db, workspaceId, numbers, on);
  if (on) await recordContactOptIn(ctx, workspaceId, c.id, "voice", false);
  return getDoNotCall(ctx, workspaceId, contactId);
}

/**
 * The contacts, across workspaces, that were sent a single SMS from the contact page at `phone`
 * (E.164): `{workspaceId, contactId}` pairs, latest text first, at most 50. For the inbound SMS webhook
 * (campaigns.webhooks): a STOP, START or HELP to the shared sending number answers for these
 * workspaces as well as for those whose campaigns texted the number. Not tenant-scoped on purpose:
 * the person replying is not signed in to any workspace.
 */
export async function contactsTextedAt(
  ctx: Pick<AppContext, "db">,
  phone: string,
): Promise<{ workspaceId: string; contactId: number }[]> {
  if (!/^\+\d{6,15}$/.test(phone)) return [];
  return (await selectContactsReachedAt(ctx.db, phone, ["sms_sent"])).map(({ workspaceId, contactId }) => ({
    workspaceId,
    contactId,
  }));
}

/**
 * The contacts, across workspaces, that were called (AI call) or left a voicemail from the contact
 * page at `phone` (E.164): `{workspaceId, contactId, calledAt}`, latest first, at most 50. For the
 * callback number's inbound menu (campaigns.webhooks handleInboundCall): a person calling back hears
 * these workspaces' business names beside those whose campaigns called, and "9" opts them out. Not
 * tenant-scoped on purpose: the caller is not signed in to any workspace; each pair is acted on only
 * inside its own workspace. An invalid number: [].
 */
export async function contactsCalledAt(
  ctx: Pick<AppContext, "db">,
  phone: string,
): Promise<{ workspaceId: string; contactId: number; calledAt: Date }[]> {
  if (!/^\+\d{6,15}$/.test(phone)) return [];
  return (await selectContactsReachedAt(ctx.db, phone, ["call_made", "voicemail_sent"])).map(
    ({ workspaceId, contactId, lastAt }) => ({ workspaceId, contactId, calledAt: lastAt }),
  );
}
