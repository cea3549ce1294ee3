import { z } from "zod";
import { CAMPAIGN_CHANNELS, LEAD_STATUSES, LIFECYCLE_STAGES, RECIPIENT_STATUSES } from "../../db/schema";
import { isoUserDateTime, type UserDateRule, userDateTime } from "../../lib/dates";
import { AppError } from "../../lib/errors";
import { limitParam, pageParam, queryInt, recordId } from "../../lib/validate";
import { SMS_MAX_CHARACTERS } from "../../providers/sms";
import { isTimeZone } from "../compliance/quiet-hours";
import { contactReachSchema } from "../crm/crm.schemas";

const text = (max: number) => z.string().max(max);

/**
 * How far ahead a campaign may be scheduled: 365 days. A product bound (a launch reserves its
 * messages in the meter of the billing period its scheduled time falls in, and nobody plans a send
 * further out); it also keeps every schedule inside what Postgres stores.
 */
export const SCHEDULE_MAX_AHEAD_DAYS = 365;

/** The bounds of a launch's schedule, its field named `key` in messages (scheduledAt, scheduled_at). */
function scheduleRule(key: string): UserDateRule {
  return {
    invalid: `${key} must be a date and time such as 2026-01-31T09:00:00Z`,
    maxAheadDays: SCHEDULE_MAX_AHEAD_DAYS,
    tooLate: `${key} must be at most ${SCHEDULE_MAX_AHEAD_DAYS} days from now (a campaign is scheduled at most a year ahead)`,
    tooEarly: `${key} must be a date after 1 January 1970 (a past time launches now)`,
  };
}

/**
 * `scheduledAt` of a launch (tRPC and /api/campaigns): an ISO 8601 date-time with Z or an offset,
 * epoch milliseconds, or a Date; a past time means now; at most SCHEDULE_MAX_AHEAD_DAYS ahead.
 */
export const scheduledAtInput = userDateTime(scheduleRule("scheduledAt")).optional().nullable();

/** `scheduled_at` of /api/v1 launches: an ISO 8601 string, same bounds as `scheduledAtInput`. */
export const scheduledAtIso = isoUserDateTime(scheduleRule("scheduled_at"));

/**
 * A launch token (audit finding 7): what makes a launch from the app idempotent. The builders make
 * one UUID per campaign draft and send it with every launch attempt of that draft (REST also takes
 * it as the `Idempotency-Key` header); the campaign keeps it, unique per workspace, so a repeat (a
 * double click, a retry after a lost response) answers the first campaign and sends nothing again.
 */
export const launchTokenInput = z
  .string({ error: "launchToken must be a string" })
  .regex(
    /^[A-Za-z0-9_-]{8,100}$/,
    "launchToken must be 8 to 100 letters, digits, - or _ (a UUID made once per campaign draft)",
  );

/**
 * A launch's `allowRepeat`: send even when an identical campaign (channel, name, content, schedule,
 * recipients) was launched within the last 10 minutes by another launch (another builder tab or
 * draft); without it such a launch answers that campaign and sends nothing (campaigns.service
 * createAndLaunchCampaign). The builders' "Send it again".
 */
export const allowRepeatInput = z.boolean({ error: "allowRepeat must be true or false" });

/**
 * A REST launch body with the request's `Idempotency-Key` header as its `launchToken` (the header
 * and the body field are two spellings of one token). Returns the body unchanged without the
 * header; a body that is not an object is returned as it is (its schema refuses it).
 * @throws AppError BAD_REQUEST when the header is repeated, is not a valid token, or differs from
 *   the body's `launchToken`
 */
export function withLaunchToken(body: unknown, header: string | string[] | undefined): unknown {
  if (header === undefined) return body ?? {};
  if (typeof header !== "string") throw new AppError("BAD_REQUEST", "Send one Idempotency-Key header");
  if (!launchTokenInput.safeParse(header).success)
    throw new AppError(
      "BAD_REQUEST",
      "The Idempotency-Key header must be 8 to 100 letters, digits, - or _ (a UUID made once per campaign draft)",
    );
  const b = body ?? {};
  if (typeof b !== "object" || Array.isArray(b)) return b;
  const inBody = (b as { launchToken?: unknown }).launchToken;
  if (inBody !== undefined && inBody !== header)
    throw new AppError(
      "BAD_REQUEST",
      "The Idempotency-Key header and launchToken differ; send the launch token once",
    );
  return { ...b, launchToken: header };
}

/** A recipient given inline (CSV row or a contact object from the builder). */
export const recipientInput = z.object({
  id: z.coerce.number().int().positive().optional(),
  name: text(300).optional().nullable(),
  first_name: text(200).optional().nullable(),
  last_name: text(200).optional().nullable(),
  email: text(320).optional().nullable(),
  phone: text(64).optional().nullable(),
  mobile: text(64).optional().nullable(),
  company: text(300).optional().nullable(),
});
export type RecipientInput = z.infer<typeof recipientInput>;

export const campaignContentInput = z.object({
  subject: text(500).optional(),
  body: text(100_000).optional(),
  message: text(1600).optional(),
  script: text(5000).optional(),
  /** voicemail: one of the workspace's audio recordings (or its library URL in `audioUrl`) */
  audioMediaId: z.coerce
    .number({ error: "audioMediaId must be a media id" })
    .int("audioMediaId must be a media id")
    .positive("audioMediaId must be a media id")
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .nullable(),
  /** voicemail: the library URL of one of the workspace's audio recordings (`/api/media/{id}/file`) */
  audioUrl: z.string().trim().max(2000).optional().nullable(),
  machineDetection: z.boolean().optional(),
  landingUrl: z.string().url().max(2000).optional(),
  videoTitle: text(300).optional(),
  thumbnailUrl: z.string().url().max(2000).optional().nullable(),
});

const positiveId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * A contacts-list filter as a campaign audience (issue 14): the same filter as the contacts list
 * (`search` substring of name/email/company/phone, lifecycle `stage`, lead `status`, `tagId`); empty
 * strings mean "any". Unknown keys are refused, so a misspelt filter never silently widens the audience.
 * `reachable` ("email" | "phone"): only the contacts that channel can reach, as the builders' contact
 * picker lists them (crm.list `reachable`), so its "Select all N matching" is those N; without it, a
 * matching contact with no address is in the audience and skipped ("no valid phone number").
 */
export const audienceFilterSchema = z
  .object({
    search: z.string().trim().max(200).optional(),
    stage: z
      .union([z.enum(LIFECYCLE_STAGES), z.literal("")], {
        error: `stage must be one of ${LIFECYCLE_STAGES.join(", ")}`,
      })
      .optional()
      .transform((v) => v || undefined),
    status: z
      .union([z.enum(LEAD_STATUSES), z.literal("")], {
        error: `status must be one of ${LEAD_STATUSES.join(", ")}`,
      })
      .optional()
      .transform((v) => v || undefined),
    tagId: positiveId.optional(),
    reachable: contactReachSchema.optional(),
  })
  .strict();
export type AudienceFilter = z.output<typeof audienceFilterSchema>;

/**
 * A campaign audience from the CRM, instead of (or beside) inline `contacts` (issue 14): exactly one
 * of a saved segment, a tag, a contacts-list filter ("all N matching"), or chosen contact ids. With a
 * segment, tag or filter, `excludeIds` leaves those contacts out ("select all N matching", then untick
 * a few); ids that are not in the audience (or not the workspace's) change nothing.
 */
export const audienceSchema = z
  .object({
    segmentId: positiveId.optional(),
    tagId: positiveId.optional(),
    filter: audienceFilterSchema.optional(),
    contactIds: z.array(positiveId).max(100_000, "At most 100,000 contacts per campaign").optional(),
    excludeIds: z
      .array(positiveId, { error: "excludeIds must be a list of contact ids" })
      .max(100_000, "At most 100,000 excluded contacts")
      .optional(),
  })
  .strict()
  .refine(
    (a) => [a.segmentId, a.tagId, a.filter, a.contactIds].filter((v) => v !== undefined).length === 1,
    "audience must be exactly one of {segmentId}, {tagId}, {filter} or {contactIds}",
  )
  .refine((a) => !(a.excludeIds?.length && a.contactIds), {
    message:
      "excludeIds goes with a segment, tag or filter; leave excluded contacts out of contactIds instead",
    path: ["excludeIds"],
  });
export type Audience = z.output<typeof audienceSchema>;

/** tRPC / service input for creating and launching any campaign. */
export const createCampaignInput = z.object({
  name: z.string().trim().min(1, "Please enter a campaign name").max(200),
  channel: z.enum(CAMPAIGN_CHANNELS),
  content: campaignContentInput,
  recipients: z
    .object({
      csv: z.array(recipientInput).max(100_000).optional(),
      contactIds: z.array(z.number().int().positive()).max(100_000).optional(),
      segmentId: z.number().int().positive().optional(),
    })
    .default({}),
  /** a CRM audience (segment, tag, filter or ids), added to `recipients` */
  audience: audienceSchema.optional(),
  /** launch at this time (scheduledAtInput: ISO string, epoch ms or Date, at most a year ahead); past or absent = now */
  scheduledAt: scheduledAtInput,
  /** include contacts who have not opted in to SMS/calls (the user confirmed consent); opt-outs are always skipped */
  includeNotOptedIn: z.boolean().optional(),
  /** the draft's launch token (`launchTokenInput`): a repeat with it answers the first campaign */
  launchToken: launchTokenInput.optional(),
  /** send even when an identical campaign was launched within 10 minutes (`allowRepeatInput`) */
  allowRepeat: allowRepeatInput.optional(),
});
export type CreateCampaignInput = z.input<typeof createCampaignInput>;

/** POST /api/campaigns/email/test (spec section 7). */
export const emailTestInput = z.object({
  subject: z.string().max(500).optional().default(""),
  body: z.string().max(100_000).optional().default(""),
  testEmail: z.string().max(320).optional(),
});

/** POST /api/campaigns/email/launch (spec section 7). */
export const emailLaunchInput = z.object({
  campaignName: z.string().max(200).optional().default(""),
  subject: z.string().max(500).optional().default(""),
  body: z.string().max(100_000).optional().default(""),
  contacts: z.array(recipientInput).max(100_000).optional().default([]),
  /** instead of `contacts`: a CRM audience (issue 14) */
  audience: audienceSchema.optional(),
  scheduledAt: scheduledAtInput,
  /** the draft's launch token (or the Idempotency-Key header): a repeat answers the first campaign */
  launchToken: launchTokenInput.optional(),
  /** send even when an identical campaign was launched within 10 minutes (`allowRepeatInput`) */
  allowRepeat: allowRepeatInput.optional(),
});

/** POST /api/campaigns/sms/launch (spec section 7). */
export const smsLaunchInput = z.object({
  campaignName: z.string().max(200).optional().default(""),
  message: z.string().max(1600).optional().default(""),
  contacts: z.array(recipientInput.passthrough()).max(100_000).optional().default([]),
  /** instead of `contacts`: a CRM audience (issue 14) */
  audience: audienceSchema.optional(),
  includeNotOptedIn: z.boolean().optional(),
  scheduledAt: scheduledAtInput,
  /** the draft's launch token (or the Idempotency-Key header): a repeat answers the first campaign */
  launchToken: launchTokenInput.optional(),
  /** send even when an identical campaign was launched within 10 minutes (`allowRepeatInput`) */
  allowRepeat: allowRepeatInput.optional(),
});

/**
 * A campaign id: a number (tRPC), or decimal digits in a URL (REST `/api/campaigns/:id`; lib/validate
 * recordId: `/api/campaigns/1e1` or `0x10` is a 400, not campaign 10 or 16; a number no campaign can
 * have, such as 99999999999999999999, is "Campaign not found" like any unknown id).
 */
const campaignId = recordId("Campaign id");
export const campaignIdInput = z.object({ id: campaignId });

/**
 * A report timeline's IANA time zone (`name`: the field as the caller knows it, `timeZone` over tRPC,
 * the query parameter `tz` in REST): a name this runtime's Intl knows (isTimeZone) and of the IANA form;
 * an offset such as "+05:30", "Mars/Base" or an empty value is refused with a sentence naming it.
 */
function reportTimeZone(name: string) {
  const rule = `${name} must be a time zone name such as Asia/Kolkata (IANA time zone database)`;
  return z
    .string({ error: rule })
    .max(64, rule)
    .refine((s) => /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(s) && isTimeZone(s), rule);
}

/**
 * A campaign report's input (tRPC `campaigns.report`): the campaign id and, optionally, the viewer's
 * IANA time zone (`Intl.DateTimeFormat().resolvedOptions().timeZone`), in which the activity timeline
 * cuts its hour and day buckets (a half-hour zone's hours start at :00 there, a day at its midnight).
 * A name that is not an IANA zone this runtime knows (an offset such as "+05:30", "Mars/Base") is refused.
 */
export const campaignReportInput = campaignIdInput.extend({
  timeZone: reportTimeZone("timeZone").optional(),
});

/**
 * tRPC `campaigns.reschedule`: a scheduled campaign's new send time (an ISO 8601 date-time with Z or
 * an offset, epoch ms or a Date; at most SCHEDULE_MAX_AHEAD_DAYS ahead). Unlike a launch, a time
 * that is not ahead is refused (campaigns.service rescheduleCampaign), not read as "now".
 */
export const rescheduleInput = campaignIdInput.extend({
  scheduledAt: userDateTime(scheduleRule("scheduledAt")),
});

/**
 * The query string of REST GET /api/campaigns/:id (closed: any other parameter is a 400 naming it):
 * `tz`, optionally, the IANA time zone the timeline's buckets are cut in, as tRPC's `timeZone`
 * (UTC without it); a repeated or unknown zone is a 400 with a sentence.
 */
export const campaignReportQuery = z
  .object({ tz: reportTimeZone("The query parameter tz").optional() })
  .strict();

/**
 * A campaign's recipients page: tRPC, REST GET /api/campaigns/:id/recipients (its query string's
 * page, limit and afterId in decimal digits: queryInt) and v1 (numbers).
 */
export const recipientsQuery = z.object({
  id: campaignId,
  status: z.enum(RECIPIENT_STATUSES).optional(),
  page: pageParam(100_000),
  limit: limitParam(),
  /** keyset instead of `page`: the recipients after this recipient id (the public API's cursor) */
  afterId: queryInt(
    z
      .number({ error: "afterId must be a recipient id written in digits" })
      .int("afterId must be a whole number")
      .positive("afterId must be a recipient id")
      .max(Number.MAX_SAFE_INTEGER, "afterId must be a recipient id")
      .optional(),
  ),
});

/**
 * POST /api/campaigns/preflight (issue 14): any launch body (email, SMS, generic or video) plus the
 * channel it launches on: `channel`, or a video body's `deliveryMethod` (video_email / video_sms).
 * The audience parts are read and, optionally, the text a text (SMS, video SMS) launch sends: the SMS
 * or video body's `message`, or a generic body's `content.message` (`content.body` without it;
 * `content.landingUrl` for a video channel); with it the preflight counts the recipients the launch
 * would skip because their text, filled in, is too long. Other content is not validated here.
 */
export const preflightInput = z
  .object({
    channel: z
      .enum(CAMPAIGN_CHANNELS, { error: `channel must be one of ${CAMPAIGN_CHANNELS.join(", ")}` })
      .optional(),
    deliveryMethod: z.enum(["email", "sms"], { error: "Delivery method must be email or sms" }).optional(),
    contacts: z.array(recipientInput.passthrough()).max(100_000).optional(),
    recipients: createCampaignInput.shape.recipients.optional(),
    audience: audienceSchema.optional(),
    includeNotOptedIn: z.boolean().optional(),
    scheduledAt: scheduledAtInput,
    /**
     * the SMS or video body's text as it would be launched (merge tags unfilled; a video body's may be
     * "" for its default text); absent, no text is checked (as before this field)
     */
    message: z
      .string({ error: "message must be text" })
      .max(
        SMS_MAX_CHARACTERS,
        `message must be at most ${SMS_MAX_CHARACTERS.toLocaleString("en-US")} characters`,
      )
      .optional(),
    /** a generic launch body's content: its text parts (other fields pass unread) */
    content: z
      .object({
        message: z
          .string({ error: "content.message must be text" })
          .max(
            SMS_MAX_CHARACTERS,
            `content.message must be at most ${SMS_MAX_CHARACTERS.toLocaleString("en-US")} characters`,
          )
          .optional(),
        body: z.string({ error: "content.body must be text" }).max(100_000).optional(),
        landingUrl: z.string({ error: "content.landingUrl must be text" }).max(2000).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type PreflightInput = z.input<typeof preflightInput>;

/**
 * The JSON Drop Cowboy POSTs to a ringless voicemail drop's `callback_url` once delivery was attempted
 * (Drop Cowboy API docs, "Webhooks": `drop_id`, `phone_number`, `attempt_date`, `status` "success" or a
 * failure, `reason`, `dnc`, `spam`, costs, `network`, and the `foreign_id` we sent). Only the fields we
 * use are checked (other fields are dropped, not refused); `phone_number` is never trusted (the drop is found by `drop_id`
 * and the signed token bound to `foreign_id`).
 */
export const dropCowboyRvmCallback = z.object({
  drop_id: z
    .string({ error: "drop_id must be Drop Cowboy's drop id (text)" })
    .trim()
    .min(1, "drop_id must not be empty")
    .max(100, "drop_id must be at most 100 characters"),
  foreign_id: z
    .string({ error: "foreign_id must be the id this app sent with the drop (text)" })
    .min(1, "foreign_id must not be empty")
    .max(256, "foreign_id must be at most 256 characters"),
  status: z
    .string({ error: 'status must be text ("success" or a failure)' })
    .trim()
    .min(1, "status must not be empty")
    .max(40, "status must be at most 40 characters"),
  reason: z
    .string({ error: "reason must be text" })
    .max(2000, "reason must be at most 2000 characters")
    .nullish(),
  dnc: z.boolean({ error: "dnc must be true or false" }).nullish(),
  spam: z.boolean({ error: "spam must be true or false" }).nullish(),
  attempt_date: z.string({ error: "attempt_date must be text" }).max(64).nullish(),
});
export type DropCowboyRvmCallback = z.output<typeof dropCowboyRvmCallback>;
