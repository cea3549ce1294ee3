import type { AppContext } from "../../context";
import type { CampaignChannel, CampaignContent, Contact } from "../../db/schema";
import { isContactEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import type { MergeContact } from "../../lib/merge-tags";
import { toE164 } from "../../lib/phone";
import { parseInput } from "../../lib/validate";
import {
  contactNumberFor,
  contactsWhoRepliedStop,
  findSuppressed,
  normaliseSuppressionValue,
  skipReasonOfSuppression,
} from "../compliance/compliance.service";
import { quietHoursCheck } from "../compliance/quiet-hours";
import {
  contactFieldsOfListRow,
  getContactsByIds,
  hasContactAddress,
  type ListFilter,
  listTags,
  matchContactsByAddress,
  resolveTargetContactIds,
} from "../crm/crm.service";
import { getSenderProfile, phoneCountryOf } from "../workspaces/workspaces.service";
import {
  launchContent,
  launchContentSkip,
  mergeSource,
  videoLandingUrl,
  videoSenderName,
  videoSmsMessage,
} from "./campaigns.content";
import { deliveryKind, optInReason, skipsWithoutRows, suppressionChannel } from "./campaigns.delivery";
import {
  type Audience,
  type AudienceFilter,
  type PreflightInput,
  preflightInput,
  type RecipientInput,
} from "./campaigns.schemas";

/*
 * Campaign audiences (issue 14): who a launch goes to, and who of them is skipped and why. One
 * resolver turns a CRM audience (saved segment, tag, contacts-list filter, chosen ids) into contact
 * ids through the CRM's service functions; one classifier applies the launch's compliance rules
 * page by page. The launch (campaigns.service createAndLaunchCampaign) and the preflight
 * (`preflightAudience`) both use them, so the preflight's numbers are the launch's numbers.
 */

type Ctx = Pick<AppContext, "db">;

/** Contacts read per page while classifying an audience (10,000+ audiences are never loaded at once). */
export const AUDIENCE_PAGE = 5_000;

/** The one phone rule (src/server/lib/phone.ts), re-exported for the campaign code. */
export { toE164 };

/**
 * The address a contact is reached at on a channel: the email trimmed, lower-cased and in Unicode
 * NFC (compliance normaliseSuppressionValue: "josé@" typed with a precomposed é and with e + a
 * combining accent is one mailbox, RFC 6532 section 3.1) when valid by the contacts' one rule
 * (lib/email isContactEmail, e.g. not "a..b@example.com"), or an E.164 number by the contact page's
 * rule (compliance contactNumberFor: a text goes to the mobile, else the phone; a call or voicemail
 * to the phone, else the mobile).
 */
export function addressFor(
  channel: CampaignChannel,
  c: Pick<Contact, "email" | "phone" | "mobile">,
): string | null {
  const kind = deliveryKind(channel);
  if (kind === "email") {
    const e = c.email ? normaliseSuppressionValue("email", c.email) : null;
    return e && isContactEmail(e) ? e : null;
  }
  return contactNumberFor(kind, c);
}

/**
 * What quiet hours judge a text, call or voicemail to `contact` at `address` by (compliance
 * quietHoursCheck): the contact, and when `address` is none of its numbers (a recipient list's own
 * number for a stored contact with none on file), that number too, in place of the contact's, so
 * its country or area code places the person. Without it such a contact, with no other place on
 * file, was judged in the continental US fallback and a Honolulu or Tokyo number was texted at night.
 */
export function quietHoursSource(contact: Contact, address: string | null): Contact {
  if (!address || address === contact.phone || address === contact.mobile) return contact;
  return { ...contact, phone: address, mobile: null };
}

/**
 * Compliance at launch (issue 4, spec section 5): no address -> skipped; on the suppression list
 * (unsubscribe, STOP, bounce, complaint) -> skipped, never overridable; email opt-in off -> skipped
 * (an email opt-out); SMS/call/voicemail without opt-in -> skipped unless the user confirmed
 * consent (`includeNotOptedIn`, like the single-send confirmation); a contact who replied STOP from
 * any of their numbers (`repliedStop`) -> "opted out (replied STOP)" on every number, never
 * overridable; the opt-in rule is campaigns.delivery `optInReason`, which the send engine applies
 * again at send time; a second contact with the same address -> skipped. Returns the reason, or null
 * to send.
 */
export function skipReason(
  channel: CampaignChannel,
  contact: Pick<Contact, "emailOptIn" | "smsOptIn" | "callOptIn">,
  address: string | null,
  suppressed: Map<string, string>,
  seen: Set<string>,
  includeNotOptedIn: boolean,
  repliedStop = false,
): string | null {
  const kind = deliveryKind(channel);
  if (!address) return kind === "email" ? "no email address" : "no valid phone number";
  const sup = suppressed.get(address);
  if (sup) return skipReasonOfSuppression(sup);
  const optOut = optInReason(channel, contact, includeNotOptedIn, repliedStop);
  if (optOut) return optOut;
  if (seen.has(address)) return DUPLICATE_ROW;
  return null;
}

/**
 * The contacts-list filter of an audience filter, in the CRM's SegmentFilter keys, with `reachable`
 * (the contact picker's channel: crm ListFilter) when given.
 */
export function toSegmentFilter(f: AudienceFilter): ListFilter {
  return {
    search: f.search || undefined,
    lifecycle_stage: f.stage,
    lead_status: f.status,
    tag_id: f.tagId,
    ...(f.reachable ? { reachable: f.reachable } : {}),
  };
}

async function assertTag(ctx: Ctx, workspaceId: string, tagId: number) {
  const tags = await listTags(ctx, workspaceId);
  if (!tags.some((t) => t.id === tagId)) throw new AppError("NOT_FOUND", "Tag not found");
}

/**
 * The contact ids of `workspaceId` an audience addresses, ascending: a saved segment (its stored
 * filter, evaluated now), every contact with a tag, every contact matching a contacts-list filter
 * (the plain substring search, no typo correction), or the given ids (unknown or another
 * workspace's ids are left out), minus `excludeIds`. Reads contacts only through crm's service functions.
 * @throws AppError NOT_FOUND 'List not found' / 'Tag not found' for another workspace's segment or tag.
 */
export async function resolveAudience(ctx: Ctx, workspaceId: string, audience: Audience): Promise<number[]> {
  const ids = await resolveAudienceIds(ctx, workspaceId, audience);
  if (!audience.excludeIds?.length) return ids;
  const excluded = new Set(audience.excludeIds);
  return ids.filter((id) => !excluded.has(id));
}

async function resolveAudienceIds(ctx: Ctx, workspaceId: string, audience: Audience): Promise<number[]> {
  if (audience.segmentId !== undefined)
    return resolveTargetContactIds(ctx, workspaceId, { segmentId: audience.segmentId });
  if (audience.tagId !== undefined) {
    await assertTag(ctx, workspaceId, audience.tagId);
    return resolveTargetContactIds(ctx, workspaceId, { filter: { tag_id: audience.tagId } });
  }
  if (audience.filter) {
    if (audience.filter.tagId !== undefined) await assertTag(ctx, workspaceId, audience.filter.tagId);
    return resolveTargetContactIds(ctx, workspaceId, { filter: toSegmentFilter(audience.filter) });
  }
  return resolveTargetContactIds(ctx, workspaceId, { contactIds: audience.contactIds ?? [] });
}

/** One recipient as the launch records it: the address it goes to and the skip reason (null = send). */
export interface ClassifiedRecipient {
  contactId: number;
  address: string | null;
  reason: string | null;
}

export interface Classification {
  rows: ClassifiedRecipient[];
  /** recipients that will be sent to (now or after quiet hours) */
  queued: number;
  /** skipped recipients by reason */
  skipped: Record<string, number>;
  /** with `quietHoursAt`: queued SMS/call/voicemail recipients outside 08:00-21:00 their time */
  deferred: { count: number; nextWindowStart: Date | null };
  /** the first contact that will be sent to (lowest id, then the new CSV rows), or null */
  sample: Contact | null;
}

/**
 * Applies a launch's compliance rules (`skipReason`) to contacts, in pages of AUDIENCE_PAGE: each
 * page's contacts (crm getContactsByIds) and suppression entries are read together. `extra` are
 * contacts not yet in the CRM (a preflight's new CSV rows), classified after the stored ones, as
 * the launch would create them. `csvPhone` is a CSV row's own phone for a stored contact with none.
 * With `quietHoursAt`, queued non-email recipients are also checked against quiet hours at that time.
 * `contentSkip` skips, with its reason, a contact the compliance rules send to (what the message
 * would be for them: campaigns.content launchContentSkip, the launch and its preflight).
 */
export async function classifyRecipients(
  ctx: Ctx,
  workspaceId: string,
  channel: CampaignChannel,
  contactIds: number[],
  opts: {
    includeNotOptedIn: boolean;
    csvPhone?: Map<number, string>;
    extra?: Contact[];
    quietHoursAt?: Date;
    /** a further skip reason of a contact the rules above send to (the launch's SMS length check) */
    contentSkip?: (c: Contact) => string | null;
  },
): Promise<Classification> {
  const kind = deliveryKind(channel);
  const seen = new Set<string>();
  const out: Classification = {
    rows: [],
    queued: 0,
    skipped: {},
    deferred: { count: 0, nextWindowStart: null },
    sample: null,
  };
  const ids = [...new Set(contactIds)].sort((a, b) => a - b);
  const pages: (() => Promise<Contact[]>)[] = [];
  for (let i = 0; i < ids.length; i += AUDIENCE_PAGE) {
    const page = ids.slice(i, i + AUDIENCE_PAGE);
    pages.push(() => getContactsByIds(ctx, workspaceId, page));
  }
  if (opts.extra?.length) {
    const extra = opts.extra;
    for (let i = 0; i < extra.length; i += AUDIENCE_PAGE)
      pages.push(async () => extra.slice(i, i + AUDIENCE_PAGE));
  }
  for (const load of pages) {
    const contacts = await load();
    const addresses = contacts.map(
      (c) => addressFor(channel, c) ?? (kind !== "email" ? (opts.csvPhone?.get(c.id) ?? null) : null),
    );
    // the address's suppression entries, and (texts, calls) whether the person replied STOP from any
    // of their numbers, not only the one this campaign would use
    const [suppressed, stopped] = await Promise.all([
      findSuppressed(
        ctx.db,
        workspaceId,
        suppressionChannel(channel),
        addresses.filter((a): a is string => !!a),
      ),
      kind === "email"
        ? Promise.resolve(new Map<number, string>())
        : contactsWhoRepliedStop(ctx.db, workspaceId, contacts, opts.csvPhone),
    ]);
    contacts.forEach((c, i) => {
      const address = addresses[i];
      const reason =
        skipReason(channel, c, address, suppressed, seen, opts.includeNotOptedIn, stopped.has(c.id)) ??
        opts.contentSkip?.(c) ??
        null;
      out.rows.push({ contactId: c.id, address, reason });
      if (reason) {
        out.skipped[reason] = (out.skipped[reason] ?? 0) + 1;
        return;
      }
      if (address) seen.add(address);
      out.queued += 1;
      out.sample ??= c;
      if (opts.quietHoursAt && kind !== "email") {
        const q = quietHoursCheck(opts.quietHoursAt, quietHoursSource(c, address));
        if (!q.allowed) {
          out.deferred.count += 1;
          if (!out.deferred.nextWindowStart || q.notBefore < out.deferred.nextWindowStart)
            out.deferred.nextWindowStart = q.notBefore;
        }
      }
    });
  }
  return out;
}

/**
 * The skip reason of a recipient list's row (`contacts` / `recipients.csv`) naming the same person as
 * an earlier row (same email or phone, or the same existing contact): one message goes to them, and
 * the launch and its preflight count the row under this reason.
 */
export const DUPLICATE_ROW = "duplicate address";

/**
 * The skip reason of a recipient list's row with neither a valid email nor a valid phone number
 * (crm hasContactAddress, e.g. "Bad Number, 12345" or an email "not-an-email"): no contact is made of
 * it (crm findOrCreateContacts answers null), and the launch and its preflight count the row here.
 */
export const NO_VALID_ADDRESS = "no valid email or phone number";

/** The skip reason of a contact id a launch named that is no contact of the workspace (`countMissingContacts`). */
export const CONTACT_NOT_FOUND = "contact not found";

/**
 * Counts, under `skipped["contact not found"]` of `classified`, the contact ids a launch or preflight
 * named explicitly (`named`: its `recipients.contactIds`, an ids audience's `contactIds`) that no
 * classified recipient has: deleted since they were picked, never existing, or another workspace's.
 * The resolvers leave such ids out (crm resolveTargetContactIds), so without this the answer's
 * `queued` was lower than the ids sent and `skipped` said nothing of them. Changes `classified`.
 */
export function countMissingContacts(classified: Classification, named: (number[] | undefined)[]): void {
  const found = new Set(classified.rows.map((r) => r.contactId));
  const missing = new Set<number>();
  for (const ids of named) for (const id of ids ?? []) if (!found.has(id)) missing.add(id);
  if (missing.size)
    classified.skipped[CONTACT_NOT_FOUND] = (classified.skipped[CONTACT_NOT_FOUND] ?? 0) + missing.size;
}

/**
 * The skips of a launch that made no recipient row, by reason: `skipped` (the launch's answer)
 * less the classified rows' own reasons, i.e. a list's duplicate rows (DUPLICATE_ROW), rows with no
 * valid address (NO_VALID_ADDRESS) and ids that are no contact (CONTACT_NOT_FOUND). The campaign
 * keeps them in its launch result (`unrecorded`) so its report and finished email count them with the
 * skipped recipients (a QA pass: the launch said "1 duplicate address, 1 no valid email or phone
 * number" and the report 0 skipped).
 */
export function unrecordedSkips(
  skipped: Record<string, number>,
  rows: Pick<ClassifiedRecipient, "reason">[],
): Record<string, number> {
  const recorded = new Map<string | null, number>();
  for (const r of rows) if (r.reason) recorded.set(r.reason, (recorded.get(r.reason) ?? 0) + 1);
  return skipsWithoutRows(skipped, recorded);
}

/** "3 not opted in to SMS, 1 no valid phone number, 2 contacts not found" (largest first). */
export function describeSkipped(skipped: Record<string, number>): string {
  return Object.entries(skipped)
    .sort((a, b) => b[1] - a[1])
    .map(
      ([reason, n]) =>
        `${n.toLocaleString("en-US")} ${reason === CONTACT_NOT_FOUND && n !== 1 ? "contacts not found" : reason}`,
    )
    .join(", ");
}

/**
 * The refusal of a launch that would reach nobody (issue 14): UNPROCESSABLE (422) naming the reasons,
 * with `skipped` in the details (REST bodies carry it).
 */
export function nobodyToSendTo(skipped: Record<string, number>): AppError {
  const reasons = describeSkipped(skipped);
  const consent =
    skipped["not opted in to SMS"] || skipped["not opted in to calls"]
      ? " Confirm you have their consent to include contacts who have not opted in."
      : "";
  return new AppError(
    "UNPROCESSABLE",
    reasons
      ? `Nobody would receive this campaign: ${reasons}.${consent}`
      : "Nobody would receive this campaign: the audience has no contacts.",
    { expose: { skipped } },
  );
}

/**
 * A preflight's sample recipient: the contact exactly as the send path merges it (campaigns.content
 * `mergeSource`: every contact column by its name, e.g. `city`, `jobTitle`, `leadScore`, and
 * `customFields`), so a preview rendered from it with merge-tags `renderPreview` (the send's
 * `renderMergeTags`) is the message sent; plus the five spec fields in snake_case, "" when empty
 * (`phone`: the contact's phone, as `{{phone}}` reads it with `phoneRaw`, `mobile`, `mobileRaw`).
 */
export type PreflightSample = MergeContact & {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  company: string;
};

/**
 * The preflight sample of the first contact sent to (PreflightSample); a CSV row's contact the launch
 * would create has no id yet (its stand-in's negative id is left out).
 */
function sampleOf(c: Contact): PreflightSample {
  const { id, ...fields } = mergeSource(c);
  return {
    ...(c.id > 0 ? { id } : {}),
    ...fields,
    first_name: c.firstName ?? "",
    last_name: c.lastName ?? "",
    email: c.email ?? "",
    phone: c.phone ?? "",
    company: c.company ?? "",
  };
}

export interface PreflightResult {
  /** contacts in the audience (after duplicates of the same contact are merged) */
  audienceSize: number;
  /** recipients sent to as soon as the campaign starts */
  willSendNow: number;
  /** recipients held by quiet hours (08:00-21:00 their time) and when the first of them may go */
  deferred: { count: number; nextWindowStart: string | null };
  /** recipients skipped, by reason */
  skipped: Record<string, number>;
  /**
   * the first recipient who would be sent to, with every field the send merges (PreflightSample),
   * for the review step's merge-tag preview (every audience: a CSV row matching a contact is sent
   * the contact's values, a new row those of the contact the launch makes of it); null when nobody
   * would be sent to
   */
  sample: PreflightSample | null;
}

type ParsedPreflight = ReturnType<typeof preflightInput.parse>;

function channelOf(input: ParsedPreflight): CampaignChannel {
  if (input.channel) return input.channel;
  if (input.deliveryMethod) return input.deliveryMethod === "email" ? "video_email" : "video_sms";
  throw new AppError(
    "BAD_REQUEST",
    "channel is required (email, sms, voice, voicemail, video_email or video_sms)",
    { param: "channel" },
  );
}

/**
 * A contact-shaped stand-in for a CSV row the launch would create: the fields crm
 * findOrCreateContacts gives it (contactFieldsOfListRow: names, company, the number as typed) and the
 * CRM's column defaults, so its merge-tag preview is the contact's.
 */
function newContactFrom(r: RecipientInput, id: number, country: string): Contact {
  const phone = r.phone || r.mobile;
  const fields = contactFieldsOfListRow(r, country);
  return {
    id,
    firstName: fields.firstName,
    lastName: fields.lastName,
    company: fields.company,
    phoneRaw: fields.phoneRaw,
    mobileRaw: null,
    jobTitle: null,
    website: null,
    streetAddress: null,
    country: null,
    lifecycleStage: "lead",
    leadStatus: "new",
    leadSource: "campaign",
    leadScore: 0,
    engagementScore: 0,
    customFields: {},
    email: r.email?.trim().toLowerCase() || null,
    phone: phone ? toE164(phone, country) : null,
    mobile: null,
    emailOptIn: true,
    smsOptIn: false,
    callOptIn: false,
    timezone: null,
    postalCode: null,
    city: null,
    state: null,
    latitude: null,
    longitude: null,
  } as unknown as Contact;
}

/**
 * The skip a preflight applies for what the message would be (campaigns.content launchContentSkip,
 * as the launch does), or undefined when the body gives no text or the channel is not a text: the
 * content the launch would render, from a generic body's `content` as given, a video body's
 * `message` as the video launch makes it (campaigns.content videoSmsMessage and videoLandingUrl) or
 * an SMS body's `message`, with the launch's snapshot of the sender (launchContent).
 */
async function preflightContentSkip(
  ctx: Ctx & Pick<AppContext, "env">,
  workspaceId: string,
  channel: CampaignChannel,
  input: ParsedPreflight,
): Promise<((c: Contact) => string | null) | undefined> {
  if (deliveryKind(channel) !== "sms" || (input.content === undefined && input.message === undefined))
    return undefined;
  const sender = await getSenderProfile(ctx, workspaceId);
  const video = channel === "video_sms";
  const content: CampaignContent = input.content
    ? {
        message: input.content.message,
        body: input.content.body,
        ...(video && input.content.landingUrl ? { landingUrl: input.content.landingUrl } : {}),
      }
    : video
      ? {
          message: videoSmsMessage(input.message ?? "", videoSenderName(sender)),
          landingUrl: videoLandingUrl(ctx.env.APP_URL),
        }
      : { message: input.message };
  const launched = launchContent(channel, content, {
    businessName: sender.businessName,
    emailSignature: sender.ownerPreferences?.emailSignature,
  });
  return launchContentSkip(channel, launched, ctx.env);
}

/**
 * POST /api/campaigns/preflight (issue 14): what launching this body would do, without creating
 * anything. Takes any launch body (`contacts` rows, a CRM `audience`, generic `recipients`) with its
 * `channel` (or a video body's `deliveryMethod`), `includeNotOptedIn` and `scheduledAt` (quiet
 * hours are evaluated at that time, else now). CSV rows are matched to existing contacts by email
 * or phone as the launch does; unmatched rows count as new contacts with the CRM's defaults (SMS and
 * call opt-in off), rows with neither a valid email nor a valid phone as skipped (NO_VALID_ADDRESS).
 * Given the text (`message`, or a generic body's `content`), an SMS or video SMS preflight also skips
 * the recipients whose text, filled in as the launch fills it, passes 1,600 characters ("message too
 * long once filled in (over 1,600 characters)", campaigns.content launchContentSkip: the launch's own
 * check), so its counts are the launch's; without it that skip is not counted. Returns
 * `{audienceSize, willSendNow, deferred: {count, nextWindowStart}, skipped, sample}` (sample: the first
 * recipient sent to, for a merge-tag preview, or null).
 * @throws AppError BAD_REQUEST (invalid body, no channel, a `message` over 1,600 characters), NOT_FOUND
 *   (segment or tag not the workspace's)
 */
export async function preflightAudience(
  ctx: Ctx & Pick<AppContext, "env">,
  workspaceId: string,
  raw: PreflightInput | unknown,
): Promise<PreflightResult> {
  const input = parseInput(preflightInput, raw);
  const channel = channelOf(input);
  const kind = deliveryKind(channel);
  const ids = new Set<number>();
  const csv: RecipientInput[] = [...(input.recipients?.csv ?? [])];
  for (const c of input.contacts ?? []) {
    if (c.id) ids.add(c.id);
    else csv.push(c);
  }
  // the rows each launch route keeps: email needs an email, a video SMS a phone, others any address
  const rows = csv.filter((r) =>
    kind === "email"
      ? r.email?.trim()
      : channel === "video_sms"
        ? r.phone || r.mobile
        : r.email || r.phone || r.mobile,
  );
  const targets: number[] = [];
  if (input.recipients?.contactIds?.length || input.recipients?.segmentId !== undefined)
    targets.push(
      ...(await resolveTargetContactIds(ctx, workspaceId, {
        contactIds: input.recipients.contactIds,
        segmentId: input.recipients.segmentId,
      })),
    );
  if (ids.size) targets.push(...(await resolveTargetContactIds(ctx, workspaceId, { contactIds: [...ids] })));
  if (input.audience) targets.push(...(await resolveAudience(ctx, workspaceId, input.audience)));
  const all = new Set(targets);
  const csvPhone = new Map<number, string>();
  const extra: Contact[] = [];
  // a list's rows naming someone an earlier row already named are said, as the launch says them
  // (DUPLICATE_ROW; a QA pass: a file of 3 rows, two of them one person, was reviewed as 2
  // recipients and 0 skipped)
  const csvSkipped: Record<string, number> = {};
  const skipRow = (reason: string) => {
    csvSkipped[reason] = (csvSkipped[reason] ?? 0) + 1;
  };
  if (rows.length) {
    const country = await phoneCountryOf(ctx, workspaceId);
    const matched = await matchContactsByAddress(ctx, workspaceId, rows);
    const newKeys = new Set<string>();
    const matchedIds = new Set<number>();
    matched.forEach((id, i) => {
      const r = rows[i];
      if (!hasContactAddress(r, country)) {
        skipRow(NO_VALID_ADDRESS);
        return;
      }
      const raw = r.phone || r.mobile;
      const e164 = raw ? toE164(raw, country) : null;
      if (id !== null) {
        if (matchedIds.has(id)) {
          skipRow(DUPLICATE_ROW);
          return;
        }
        matchedIds.add(id);
        all.add(id);
        if (e164 && !csvPhone.has(id)) csvPhone.set(id, e164);
        return;
      }
      const c = newContactFrom(r, -(i + 1), country);
      const key = c.email ? `e:${c.email}` : c.phone ? `p:${c.phone}` : `n:${i}`;
      if (newKeys.has(key)) {
        skipRow(DUPLICATE_ROW);
        return;
      }
      newKeys.add(key);
      extra.push(c);
    });
  }
  const scheduled = input.scheduledAt && input.scheduledAt.getTime() > Date.now() ? input.scheduledAt : null;
  const result = await classifyRecipients(ctx, workspaceId, channel, [...all], {
    includeNotOptedIn: !!input.includeNotOptedIn,
    csvPhone,
    extra,
    quietHoursAt: scheduled ?? new Date(),
    contentSkip: await preflightContentSkip(ctx, workspaceId, channel, input),
  });
  countMissingContacts(result, [input.recipients?.contactIds, input.audience?.contactIds]);
  for (const [reason, n] of Object.entries(csvSkipped))
    result.skipped[reason] = (result.skipped[reason] ?? 0) + n;
  return {
    audienceSize: result.rows.length,
    willSendNow: result.queued - result.deferred.count,
    deferred: {
      count: result.deferred.count,
      nextWindowStart: result.deferred.nextWindowStart?.toISOString() ?? null,
    },
    skipped: result.skipped,
    sample: result.sample && sampleOf(result.sample),
  };
}
