import type { AppContext } from "../../context";
import type { Contact } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { ProviderError } from "../../providers/errors";
import { assertCanSend } from "../auth/auth.service";
import { releaseUsage, reserveUsage } from "../billing/billing.service";
import { isSuppressed } from "../compliance/compliance.service";
import { getContact } from "./crm.contacts";
import { recordActivities } from "./crm.notes";
import { makeCallSchema, sendEmailSchema, sendSmsSchema } from "./crm.schemas";

// One message to one contact from the contact page: email, SMS, AI call.

type Ctx = Pick<AppContext, "db" | "sql" | "jobs" | "providers" | "log" | "env">;

function providerFailure(e: unknown, what: string): never {
  if (e instanceof ProviderError) throw new AppError("BAD_GATEWAY", `${what}: ${e.message}`);
  throw e;
}

/**
 * POST /api/contacts/{id}/send-email {subject, body}: sends through the email provider, never to a
 * suppressed address (compliance suppression list) or a contact who opted out of email.
 * Records an email_sent activity. @throws BAD_REQUEST, NOT_FOUND, UNPROCESSABLE, BAD_GATEWAY.
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
  // counts against the plan's monthly emails (issue 12); given back if the provider refuses it
  const reservation = await reserveUsage(ctx, workspaceId, "emails", 1);
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.email.send({
      to: c.email,
      subject: m.subject,
      text: m.body,
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
      metadata: { subject: m.subject, provider_message_id: result.providerMessageId },
    },
  ]);
  return { message_id: result.providerMessageId };
}

function reachableNumber(c: Contact, prefer: "mobile" | "phone"): string | null {
  const order = prefer === "mobile" ? [c.mobile, c.phone] : [c.phone, c.mobile];
  return order.find((n): n is string => !!n) ?? null;
}

/**
 * The E.164 number a single SMS (mobile first) or call (phone first) goes to.
 * @throws AppError UNPROCESSABLE when the contact has no usable number or the number is on the
 * user's suppression list for that channel.
 */
async function phoneRecipient(
  ctx: Ctx,
  workspaceId: string,
  c: Contact,
  channel: "sms" | "voice",
): Promise<string> {
  if (!c.phoneRaw && !c.mobileRaw && !c.phone && !c.mobile)
    throw new AppError("UNPROCESSABLE", "This contact has no phone number");
  const to = reachableNumber(c, channel === "sms" ? "mobile" : "phone");
  if (!to) throw new AppError("UNPROCESSABLE", "This contact's phone number is not a valid number");
  if (await isSuppressed(ctx.db, workspaceId, channel, to))
    throw new AppError(
      "UNPROCESSABLE",
      channel === "sms"
        ? "This number is on your suppression list (opted out of SMS)"
        : "This number is on your suppression list and cannot be called",
    );
  return to;
}

/**
 * POST /api/contacts/{id}/send-sms {message}: at most 160 characters (spec section 5), to the
 * mobile (else phone) in E.164; never to a number on the suppression list (STOP replies).
 * Opt-in is confirmed in the client (spec), not enforced here. Records sms_sent.
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
  const reservation = await reserveUsage(ctx, workspaceId, "smsMessages", 1);
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.sms.send({
      to,
      body: m.message,
      workspaceId,
      metadata: { contact_id: c.id },
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    providerFailure(e, "Failed to send SMS");
  }
  await recordActivities(ctx.db, [
    {
      workspaceId,
      contactId: c.id,
      activityType: "sms_sent",
      metadata: { message: m.message, to, provider_message_id: result.providerMessageId },
    },
  ]);
  return { message_id: result.providerMessageId };
}

/**
 * POST /api/contacts/{id}/make-call {script}: an AI text-to-speech call through the voice provider
 * to the phone (else mobile), never to a number suppressed for voice. Records call_made.
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
  const reservation = await reserveUsage(ctx, workspaceId, "voiceCalls", 1);
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.voice.call({
      to,
      script: m.script,
      workspaceId,
      metadata: { contact_id: c.id },
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
      metadata: { script: m.script, to, provider_message_id: result.providerMessageId },
    },
  ]);
  return { call_id: result.providerMessageId };
}
