import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import type { z } from "zod";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { toE164 } from "../../lib/phone";
import { consumeOrThrow } from "../../lib/rate-limit";
import { twimlSayAndHangUp } from "../../providers/sms/twilio-webhooks";
import {
  CALL_OPT_OUT_DIGIT,
  CALL_OTHER_KEY_GOODBYE,
  DEMO_OPT_OUT_CONFIRMATION,
} from "../compliance/call-opt-out";
import { clock12, countryName, hour12, QUIET_HOURS, quietHoursCheck } from "../compliance/quiet-hours";
import { sendDemoJob } from "./demo.jobs";
import { insertDemoOptOut, insertDemoRequest, selectDemoOptOuts, selectDemoSentTo } from "./demo.queries";
import type { demoInput } from "./demo.schemas";

/** Longest first name the demo messages carry (characters). */
export const DEMO_NAME_MAX = 24;

/**
 * The only visitor text the demo's email, SMS, call and avatar script carry: the first word of
 * `name` that is not a link, an address or a domain (anything with "://", "/", "@", "www." or a
 * dotted host such as "evil.example"), reduced to letters, apostrophes and hyphens and cut to
 * DEMO_NAME_MAX characters; "there" when nothing is left. The public demo sends to any number or
 * address, so the messages are fixed texts around this name (issue 11: attacker text, a URL in
 * `name`, reached emails, SMS and calls).
 */
export function demoFirstName(name: string): string {
  const words = name
    .normalize("NFKC")
    .replace(/[\p{C}]/gu, " ")
    .split(/\s+/)
    .filter((w) => w && !/:\/\/|\/|\\|@|^www\./i.test(w) && !/[\p{L}\p{N}-]+\.[\p{L}]{2,}/u.test(w))
    .map((w) => w.replace(/[^\p{L}\p{M}'’-]/gu, "").replace(/^['’-]+|['’-]+$/g, ""))
    .filter(Boolean);
  const first = [...(words[0] ?? "")].slice(0, DEMO_NAME_MAX).join("");
  return first || "there";
}

/**
 * Why the demo may not text or call `phone` (E.164) at `now`, as a sentence for the visitor, or null
 * when it may: the same quiet hours as every text and call (compliance quietHoursCheck, 08:00-21:00
 * where the number is: its NANP area code, else its country's time zone(s); 47 CFR 64.1200(c)(1)).
 * E.g. "It is 4:12 AM where +1 808 555 0123 is; demo texts and calls are sent between 8 AM and 9 PM
 * there. Try again later or use another number." The local time is said when the number's zone is
 * known, or its country's zones all show the same time now (Argentina); "It is night in part of
 * Russia" when they differ; "It may be night" when nothing places the number.
 */
export function demoQuietHoursRefusal(now: Date, phone: string): string | null {
  const q = quietHoursCheck(now, { phone });
  if (q.allowed) return null;
  const shown = parsePhoneNumberFromString(phone)?.formatInternational() ?? phone;
  const window = `between ${hour12(QUIET_HOURS.startHour)} and ${hour12(QUIET_HOURS.endHour)}`;
  // one zone, or a country whose zones all show the same time now (Argentina): one local time to say
  const where =
    q.localMinutes !== null && (q.zone || q.country)
      ? `It is ${clock12(q.localMinutes)} where ${shown} is`
      : q.country
        ? `It is night in part of ${countryName(q.country)}, where ${shown} is`
        : `It may be night where ${shown} is`;
  return `${where}; demo texts and calls are sent ${window} there. Try again later or use another number.`;
}

/**
 * The demo form's refusal of a number it cannot read: a visitor has no workspace, so it names the
 * default country the form reads a number without "+" in (lib/phone DEFAULT_PHONE_COUNTRY, the US),
 * where INVALID_PHONE_MESSAGE speaks of the workspace's country.
 */
export const DEMO_INVALID_PHONE_MESSAGE =
  "Please enter a valid phone number, with the country code if it is not a US number (e.g. +44 20 7946 0958)";

/** Gmail's domains: there dots in the local part reach the same inbox (and googlemail.com is gmail.com). */
const GMAIL_DOMAINS = new Set(["gmail.com", "googlemail.com"]);

/**
 * The inbox an email address reaches, as the demo's per-target limit counts it: lower-cased, without
 * a `+tag` (plus-addressing: anna+1@ and anna+2@ reach anna@ at Gmail, Outlook, iCloud, Fastmail and
 * most mail servers) and, at Gmail, without the dots of the local part and with googlemail.com as
 * gmail.com. Counted by its exact text, the forms of one address each got the limit anew, so anyone
 * could flood a stranger's inbox with demos from new client addresses.
 */
export function demoInboxKey(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 0) return email.toLowerCase();
  let local = email.slice(0, at).toLowerCase();
  let domain = email.slice(at + 1).toLowerCase();
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL_DOMAINS.has(domain)) {
    local = local.replaceAll(".", "");
    domain = "gmail.com";
  }
  return `${local}@${domain}`;
}

/**
 * Records a demo request and queues the demo job. Rate-limited per IP and per phone/email. A phone
 * outside the quiet-hours window where it is (demoQuietHoursRefusal) is refused before anything is
 * recorded or counted; the demo job checks again when it sends.
 * @throws AppError BAD_REQUEST for an unparseable phone (default country US); UNPROCESSABLE (quiet
 *   hours, the sentence says the local time and the window); TOO_MANY_REQUESTS.
 */
export async function requestDemo(ctx: AppContext, input: z.infer<typeof demoInput>, meta: { ip: string }) {
  let phone: string | null = null;
  if (input.phone) {
    const e164 = toE164(input.phone);
    if (!e164) throw new AppError("BAD_REQUEST", DEMO_INVALID_PHONE_MESSAGE);
    phone = e164;
    const quiet = demoQuietHoursRefusal(new Date(), phone);
    if (quiet) throw new AppError("UNPROCESSABLE", quiet);
  }
  const email = input.email ? input.email.toLowerCase() : null;
  await consumeOrThrow(ctx.limiters.demoIp, meta.ip, "demo requests");
  for (const target of [phone, email && demoInboxKey(email)])
    if (target) await consumeOrThrow(ctx.limiters.demoTarget, target, "demo requests");
  const id = await insertDemoRequest(ctx.db, { name: input.name, phone, email, ip: meta.ip });
  await ctx.jobs.send(sendDemoJob, { demoRequestId: id });
  return { id, phone, email };
}

/**
 * A key pressed during a landing-page demo call (its keypress opt-out offer, compliance
 * demoCallOptOutOffer; `phone` from the signed URL, `digits` the <Gather>'s Digits). "9" records the
 * number so the demo never calls or texts it again (sendDemo checks demoOptedOut), whoever types it
 * into the form; another key changes nothing. Returns whether it opted out and the TwiML the call
 * ends with. Source: 47 CFR 64.1200(b)(3), (d)(3).
 */
export async function optOutOfDemoCalls(
  ctx: Pick<AppContext, "db">,
  phone: string,
  digits: string,
): Promise<{ optedOut: boolean; twiml: string }> {
  if (digits.trim() !== CALL_OPT_OUT_DIGIT)
    return { optedOut: false, twiml: twimlSayAndHangUp(CALL_OTHER_KEY_GOODBYE) };
  await insertDemoOptOut(ctx.db, phone);
  return { optedOut: true, twiml: twimlSayAndHangUp(DEMO_OPT_OUT_CONFIRMATION) };
}

/** True when `phone` (E.164) pressed the opt-out key on a demo call (optOutOfDemoCalls). */
export async function demoOptedOut(ctx: Pick<AppContext, "db">, phone: string): Promise<boolean> {
  return (await selectDemoOptOuts(ctx.db, [phone])).has(phone);
}

/**
 * True when the landing-page demo called (or texted) `phone` (E.164: a sent demo request to it) and the
 * number has not opted out of the demo since: the callback number's menu (campaigns.webhooks
 * handleInboundCall) then offers to stop the demo's calls, which the demo call's closing sentence
 * tells people to call back for (compliance demoCallOptOutOffer; 47 CFR 64.1200(b)(3)).
 */
export async function demoCalled(ctx: Pick<AppContext, "db">, phone: string): Promise<boolean> {
  return (await selectDemoSentTo(ctx.db, phone)) && !(await demoOptedOut(ctx, phone));
}
