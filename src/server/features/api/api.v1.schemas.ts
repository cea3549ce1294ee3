import { z } from "zod";
import {
  CAMPAIGN_CHANNELS,
  CAMPAIGN_STATUSES,
  LEAD_STATUSES,
  LIFECYCLE_STAGES,
  MEDIA_TYPES,
  PROCESSING_STATUSES,
  RECIPIENT_STATUSES,
} from "../../db/schema";
import { jsonTyped } from "../../lib/validate";
import { MAX_SCRIPT_CHARS } from "../avatar/avatar.schemas";
import {
  type AudienceFilter,
  type campaignContentInput,
  recipientInput,
  SCHEDULE_MAX_AHEAD_DAYS,
  scheduledAtIso,
} from "../campaigns/campaigns.schemas";
import { ctaUrlSchema, type VideoCampaignInput } from "../campaigns/campaigns.video";
import { IMPORT_FIELDS } from "../crm/crm.headers";
import {
  contactFieldsSchema,
  createContactSchema,
  createSegmentSchema,
  createTagSchema,
  customFieldsSchema,
  noteSchema,
  segmentFilterSchema,
  tagIdParam,
} from "../crm/crm.schemas";
import { searchSchema } from "../leads/leads.schemas";
import {
  createEndpointSchema,
  rotateSecretBody as rotateSecretBodySchema,
  testEventSchema,
  updateEndpointSchema,
  WEBHOOK_EVENT_TYPES,
} from "../webhooks/webhooks.schemas";
import { v1PageSchema } from "./api.schemas";
import { leadFiltersBody } from "./api.v1.leads";

/**
 * Request and response schemas of the public REST API v1 (issue 15). Request bodies are the owning
 * features' own zod schemas (crm, campaigns, webhooks); the few v1-only shapes here rename
 * camelCase service inputs to the API's snake_case. The OpenAPI document is generated from these.
 *
 * Every request body is closed, nested objects too (`.strict()`, `z.strictObject`; the OpenAPI
 * document says `additionalProperties: false`): an unknown or misspelt field is a 400 naming it
 * ("This field is not accepted here: enable", `param: "enable"`), never silently ignored. Many
 * features' schemas are closed already (crm bodies, webhooks, API keys, workspaces, account,
 * checkout: the app's routes refuse the same keys); the rest are closed here. Query strings
 * are closed too: apiV1 registers each route's `query` object `.strict()` (a route without one takes
 * no parameters), so `?stage=customer` on GET /contacts (whose filter is `lifecycle_stage`) is a 400
 * naming `stage`, not the whole list.
 */

const iso = z.iso.datetime({ offset: true });
const nullableText = z.string().nullable();

// --- contacts -----------------------------------------------------------------------------------
export const contactListQuery = v1PageSchema.extend({
  search: z.string().max(200).optional().describe("substring of name, email, company or phone"),
  lifecycle_stage: z.enum(LIFECYCLE_STAGES).optional(),
  lead_status: z.enum(LEAD_STATUSES).optional(),
  tag_id: tagIdParam("tag_id"),
});

/**
 * The contact fields crm.schemas also reads from text (forms, CSVs: a score "5", an opt-in "yes"),
 * with their rules, taking only their documented JSON type here (jsonTyped): `"lead_score": "5"` is a
 * 400 naming lead_score, not the number 5.
 */
const contactJsonTypes = {
  lead_score: jsonTyped("number", contactFieldsSchema.shape.lead_score),
  engagement_score: jsonTyped("number", contactFieldsSchema.shape.engagement_score),
  email_opt_in: jsonTyped("boolean", contactFieldsSchema.shape.email_opt_in),
  sms_opt_in: jsonTyped("boolean", contactFieldsSchema.shape.sms_opt_in),
  call_opt_in: jsonTyped("boolean", contactFieldsSchema.shape.call_opt_in),
};
export const contactCreateBody = createContactSchema.extend(contactJsonTypes).strict();
export const contactUpdateBody = contactFieldsSchema.extend(contactJsonTypes).strict();
/**
 * One row of POST /contacts/bulk: the fields the crm import reads (IMPORT_FIELDS: those of POST
 * /contacts, plus `name` split into first and last), as text, numbers or booleans, and
 * `custom_fields` (merged into an existing contact's); the import checks each value and reports a
 * bad row in `error_rows` instead of refusing the request.
 */
const bulkValue = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: "must be text, a number or true/false",
});
const bulkRow = z.strictObject({
  ...Object.fromEntries(IMPORT_FIELDS.map((f) => [f, bulkValue.optional()])),
  custom_fields: customFieldsSchema.optional(),
});
export const contactBulkBody = z.strictObject({
  contacts: z
    .array(bulkRow, { error: "contacts must be a list of contact objects" })
    .min(1, "contacts must not be empty")
    .max(1000, "At most 1,000 contacts per request")
    .describe("contact objects with the fields of POST /contacts; matched by email, existing ones updated"),
});

export const contactObject = z.object({
  id: z.number().int(),
  first_name: nullableText,
  last_name: nullableText,
  email: nullableText,
  phone: nullableText,
  phone_e164: nullableText,
  mobile: nullableText,
  mobile_e164: nullableText,
  company: nullableText,
  job_title: nullableText,
  website: nullableText,
  street_address: nullableText,
  city: nullableText,
  state: nullableText,
  postal_code: nullableText,
  country: nullableText,
  lifecycle_stage: z.enum(LIFECYCLE_STAGES),
  lead_status: z.enum(LEAD_STATUSES),
  lead_source: nullableText,
  lead_score: z.number().int().nullable(),
  engagement_score: z.number().int().nullable(),
  email_opt_in: z.boolean(),
  sms_opt_in: z.boolean(),
  call_opt_in: z.boolean(),
  preferred_language: nullableText,
  timezone: nullableText,
  linkedin_url: nullableText,
  twitter_handle: nullableText,
  facebook_url: nullableText,
  instagram_handle: nullableText,
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  custom_fields: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .describe("custom fields: name -> text, number or true/false"),
  created_at: iso,
  updated_at: iso,
});

export const bulkResult = z.object({
  imported: z.number().int().describe("created plus updated"),
  created: z.number().int().describe("new contacts"),
  updated: z
    .number()
    .int()
    .describe("existing contacts a row changed (updated_at set; contact.updated sent)"),
  skipped: z
    .number()
    .int()
    .describe("existing contacts left as they were: every value in the row equals the stored one"),
  errors: z.number().int().describe("rows rejected"),
  phone_invalid: z
    .number()
    .int()
    .describe("rows imported with a phone that is not a valid number (kept; cannot be texted or called)"),
  fields_cleared: z
    .number()
    .int()
    .describe(
      "rows imported with a field left empty: a website, linkedin_url or facebook_url that is not an " +
        "http(s) URL or a bare domain, or a timezone that is not an IANA name (an existing contact keeps " +
        "its stored value); each such field is in error_rows with kept true and its field",
    ),
  opt_outs_kept: z
    .number()
    .int()
    .describe(
      "rows whose person opted out earlier (unsubscribed, replied STOP, pressed 9; the workspace's suppression " +
        "list): imported with those opt-ins kept false, whatever the row says (a new contact's email opt-in " +
        "too). Only the person can opt back in. Each is in error_rows with kept true and kind opted_out",
    ),
  error_rows: z
    .array(
      z.object({
        line: z.number().int().describe("the row's position in contacts, from 1"),
        reason: z.string(),
        kept: z
          .boolean()
          .describe(
            "true: imported anyway (an invalid phone, or a field left empty: see field); false: rejected",
          ),
        field: z
          .string()
          .optional()
          .describe(
            "on a kept row: the field the problem is about (phone, mobile, website, linkedin_url, facebook_url, timezone; email_opt_in, sms_opt_in or call_opt_in for kind opted_out)",
          ),
        kind: z
          .enum(["encoding", "opted_out"])
          .optional()
          .describe(
            "encoding: the field's values hold bytes the file's encoding could not read; opted_out: the row's person opted out earlier, its opt-ins kept false",
          ),
      }),
    )
    .describe("the first 1,000 rows with a problem"),
});

// --- tags, segments, notes ------------------------------------------------------------------------
export const tagCreateBody = createTagSchema.strict();
export const noteCreateBody = noteSchema.strict();
/**
 * A contacts-list filter (search, lifecycle_stage, lead_status, tag_id: the names of GET /contacts'
 * query): a segment's `filter` and a campaign's `audience.filter` are this one schema.
 */
export const contactFilterBody = segmentFilterSchema;
export type ContactFilterBody = z.output<typeof contactFilterBody>;

/** A v1 contacts filter as the campaigns service's audience filter (its own camelCase names). */
export function toAudienceFilter(f: ContactFilterBody): AudienceFilter {
  return { search: f.search, stage: f.lifecycle_stage, status: f.lead_status, tagId: f.tag_id };
}
export const segmentCreateBody = createSegmentSchema
  .extend({ filter: contactFilterBody.default({}) })
  .strict();

export const tagObject = z.object({
  id: z.number().int(),
  name: z.string(),
  color: z.string(),
  contact_count: z.number().int().optional(),
});
/** POST /contacts/{id}/tags: the tag to put on the contact (as the bulk operation add_tag's data). */
export const contactTagBody = z.strictObject({
  tag_id: z
    .number({ error: "tag_id must be a tag's id (a number)" })
    .int("tag_id must be a whole number")
    .positive("tag_id must be a tag's id (a number)"),
});
export const contactTagObject = z.object({ contact_id: z.number().int(), tag_id: z.number().int() });
export const contactTagDeleted = contactTagObject.extend({ deleted: z.literal(true) });
export const segmentObject = z.object({
  id: z.number().int(),
  name: z.string(),
  filter: z.object({
    search: z.string().optional(),
    lifecycle_stage: z.enum(LIFECYCLE_STAGES).optional(),
    lead_status: z.enum(LEAD_STATUSES).optional(),
    tag_id: z.number().int().optional(),
  }),
  contact_count: z.number().int().optional(),
  created_at: iso,
});
export const noteObject = z.object({ id: z.number().int(), note_text: z.string(), created_at: iso });

// --- campaigns ------------------------------------------------------------------------------------
export const campaignListQuery = v1PageSchema;
export const recipientListQuery = v1PageSchema.extend({ status: z.enum(RECIPIENT_STATUSES).optional() });

const VIDEO_CHANNELS = new Set(["video_email", "video_sms"]);
const positiveId = (what: string) =>
  z
    .number({ error: `${what} must be an id (a number)` })
    .int(`${what} must be a whole number`)
    .positive(`${what} must be an id (a number)`)
    .max(Number.MAX_SAFE_INTEGER, `${what} must be an id (a number)`);
/** Sentence of every refusal that points a video campaign at the media library. */
const PASS_VIDEO_ID =
  "pass content.video_id: a ready video from your media library (GET /media); each recipient then gets a personal landing page";

/**
 * The content fields each channel other than the video ones uses (campaigns.send: an email's subject
 * and body, a text's message, a call's script and answering-machine detection, a voicemail's
 * recording or script); POST /campaigns refuses the others' fields on it.
 */
const CHANNEL_CONTENT = {
  email: { label: "Email", uses: ["subject", "body"] },
  sms: { label: "SMS", uses: ["message"] },
  voice: { label: "Voice", uses: ["script", "machine_detection"] },
  voicemail: { label: "Voicemail", uses: ["script", "audio_url", "audio_media_id"] },
} as const;
const OTHER_CHANNEL_CONTENT = [
  "subject",
  "body",
  "message",
  "script",
  "audio_url",
  "audio_media_id",
  "machine_detection",
] as const;

/**
 * POST /campaigns: the campaigns service's createCampaignInput in snake_case; for video_email /
 * video_sms the fields of the app's video campaign call (spec section 7, POST /api/campaigns/video:
 * videoId, message, subject, ctaLabel/ctaUrl, avatarScript) in snake_case, launched by the same
 * service (campaigns.video launchVideoCampaign).
 */
export const campaignCreateBody = z
  .strictObject({
    name: z.string().trim().min(1, "Please enter a campaign name").max(200),
    channel: z.enum(CAMPAIGN_CHANNELS),
    content: z.strictObject({
      subject: z.string().max(500).optional().describe("email, video_email (video: at most 300 characters)"),
      body: z.string().max(100_000).optional().describe("email"),
      message: z
        .string()
        .max(1600)
        .optional()
        .describe(
          "sms; video_email / video_sms: the text of the email or SMS, also shown on the landing page " +
            "(placeholders {name}, {company}, {email}, {phone} or merge tags such as {{name|there}})",
        ),
      script: z.string().max(5000).optional().describe("voice, voicemail (text to speech)"),
      audio_url: z
        .string()
        .max(2000)
        .nullish()
        .describe("voicemail: the library URL of one of your audio recordings (/api/media/{id}/file)"),
      audio_media_id: z
        .number()
        .int()
        .positive()
        .nullish()
        .describe("voicemail: one of your audio recordings"),
      machine_detection: z
        .boolean()
        .optional()
        .describe(
          "voice: detect an answering machine (default true); the recipient's answered_by then says who answered",
        ),
      video_id: positiveId("video_id")
        .optional()
        .describe(
          "video_email / video_sms: a ready video of your media library (GET /media, type video). Each " +
            "recipient gets a personal landing page {APP_URL}/v/{token} playing it (views tracked, " +
            "video.viewed webhook events). Counted against the plan's video messages. Needs the " +
            "media:read scope as well as campaigns:write, since the landing pages play the video.",
        ),
      avatar_script: z
        .string()
        .max(MAX_SCRIPT_CHARS, `avatar_script must be at most ${MAX_SCRIPT_CHARS} characters`)
        .optional()
        .describe(
          "video_email / video_sms, instead of video_id: a script with merge tags ({{name|there}}) " +
            "rendered into one AI avatar video per recipient before their message goes out",
        ),
      avatar_provider: z
        .enum(["local", "did", "heygen"], { error: "avatar_provider must be local, did or heygen" })
        .optional()
        .describe("the avatar provider of avatar_script (default local)"),
      cta_label: z.string().trim().max(60).optional().describe("video: the landing page's button text"),
      cta_url: ctaUrlSchema("The button link (cta_url)")
        .optional()
        .describe("video: the landing page's button link"),
      landing_url: z
        .string()
        .max(2000)
        .optional()
        .meta({ deprecated: true })
        .describe(`Not accepted (400): ${PASS_VIDEO_ID}.`),
      video_title: z
        .string()
        .max(300)
        .optional()
        .meta({ deprecated: true })
        .describe("Not accepted (400): the title is the library video's name."),
      thumbnail_url: z
        .string()
        .max(2000)
        .nullish()
        .meta({ deprecated: true })
        .describe("Not accepted (400): the email shows the library video's preview."),
    }),
    audience: z
      .strictObject({
        contacts: z
          .array(recipientInput.extend({ id: jsonTyped("number", recipientInput.shape.id) }).strict())
          .max(100_000)
          .optional()
          .describe("inline recipients (become contacts)"),
        contact_ids: z.array(z.number().int().positive()).max(100_000).optional(),
        segment_id: z.number().int().positive().optional(),
        tag_id: z.number().int().positive().optional().describe("every contact with this tag"),
        filter: contactFilterBody
          .optional()
          .describe(
            "every contact matching a contacts-list filter, the same as a segment's filter and GET " +
              "/contacts' query: search, lifecycle_stage, lead_status, tag_id",
          ),
      })
      .refine((a) => a.tag_id === undefined || a.filter === undefined, {
        message: "give tag_id or filter, not both (a filter can hold tag_id)",
        path: ["tag_id"],
      })
      .describe(
        "the union of inline contacts, contact ids, a saved segment, a tag and a contacts filter; " +
          "a video campaign takes inline contacts plus at most one of contact_ids, segment_id, tag_id or filter",
      ),
    scheduled_at: scheduledAtIso
      .nullish()
      .describe(`launch later, at most ${SCHEDULE_MAX_AHEAD_DAYS} days ahead; absent or past = now`),
    include_not_opted_in: z
      .boolean()
      .optional()
      .describe(
        "SMS and calls: you confirmed consent for contacts not opted in (opt-outs are always skipped)",
      ),
  })
  .superRefine((b, ctx) => {
    const c = b.content;
    const video = VIDEO_CHANNELS.has(b.channel);
    const refuse = (field: string, message: string) =>
      ctx.addIssue({ code: "custom", path: ["content", field], message });
    for (const f of ["landing_url", "video_title", "thumbnail_url"] as const)
      if (c[f] !== undefined && c[f] !== null) refuse(f, `content.${f} is not accepted: ${PASS_VIDEO_ID}.`);
    // an audience naming nobody, and the content each channel needs, are refused here with the field
    // in `param` (the document's 400: "the message names the field"); the campaigns service's own
    // sentences ('Please complete all steps', 'Please select at least one contact') are the app
    // wizard's and name no field
    const a0 = b.audience;
    if (
      !a0.contacts?.length &&
      !a0.contact_ids?.length &&
      a0.segment_id === undefined &&
      a0.tag_id === undefined &&
      a0.filter === undefined
    )
      ctx.addIssue({
        code: "custom",
        path: ["audience"],
        message: "audience names nobody: give contacts, contact_ids, segment_id, tag_id or filter",
      });
    const blank = (v: string | null | undefined) => !v?.trim();
    if (!video) {
      for (const f of ["video_id", "avatar_script", "avatar_provider", "cta_label", "cta_url"] as const)
        if (c[f] !== undefined) refuse(f, `content.${f} is for video_email and video_sms campaigns`);
      // a field of another channel (an SMS's subject, a voicemail's machine_detection) was dropped
      // without a word: the launch went out without it
      const { label, uses } = CHANNEL_CONTENT[b.channel as keyof typeof CHANNEL_CONTENT];
      for (const f of OTHER_CHANNEL_CONTENT)
        if (c[f] !== undefined && c[f] !== null && !(uses as readonly string[]).includes(f))
          refuse(
            f,
            `${label} campaigns do not use content.${f}: they take ${uses.map((u) => `content.${u}`).join(", ")}`,
          );
      if (b.channel === "email")
        for (const f of ["subject", "body"] as const)
          if (blank(c[f])) refuse(f, `content.${f} is required for an email campaign`);
      if (b.channel === "sms" && blank(c.message))
        refuse("message", "content.message is required for an SMS campaign");
      if (b.channel === "voice" && blank(c.script))
        refuse("script", "content.script (what the call says) is required for a voice campaign");
      if (b.channel === "voicemail" && blank(c.script) && !c.audio_url && !c.audio_media_id)
        refuse(
          "script",
          "a voicemail campaign needs content.audio_media_id (or audio_url), a recording of yours, or content.script",
        );
      return;
    }
    for (const f of ["body", "script", "audio_url", "audio_media_id", "machine_detection"] as const)
      if (c[f] !== undefined && c[f] !== null)
        refuse(
          f,
          f === "body"
            ? "content.body is not used by video campaigns: put the text in content.message"
            : `content.${f} is not used by video campaigns`,
        );
    if (b.channel === "video_email" && (c.subject?.length ?? 0) > 300)
      refuse("subject", "content.subject of a video email must be at most 300 characters");
    if (b.channel === "video_sms" && c.subject !== undefined)
      refuse("subject", "content.subject is for video_email; an SMS has no subject");
    if (c.video_id !== undefined && c.avatar_script !== undefined)
      refuse("avatar_script", "give content.video_id or content.avatar_script, not both");
    // a script that is only whitespace is the script's fault, not a missing video_id
    if (c.video_id === undefined && c.avatar_script !== undefined && !c.avatar_script.trim())
      refuse(
        "avatar_script",
        `content.avatar_script is empty: write what the avatar says (at most ${MAX_SCRIPT_CHARS} characters), or ${PASS_VIDEO_ID}`,
      );
    else if (c.video_id === undefined && c.avatar_script === undefined)
      refuse("video_id", `A video campaign needs a video: ${PASS_VIDEO_ID} (or content.avatar_script).`);
    if (c.avatar_script !== undefined && b.scheduled_at)
      ctx.addIssue({
        code: "custom",
        path: ["scheduled_at"],
        message: "an avatar campaign launches at once (each video renders first); leave out scheduled_at",
      });
    const a = b.audience;
    const crm = [a.contact_ids, a.segment_id, a.tag_id, a.filter].filter((v) => v !== undefined);
    if (crm.length > 1)
      ctx.addIssue({
        code: "custom",
        path: ["audience"],
        message:
          "a video campaign takes inline contacts plus at most one of contact_ids, segment_id, tag_id or filter",
      });
  });
export type CampaignCreateBody = z.output<typeof campaignCreateBody>;

/** True for the channels launched as video campaigns (video_email, video_sms). */
export const isVideoChannel = (channel: string) => VIDEO_CHANNELS.has(channel);

/** Maps the v1 body to the campaigns service input (same fields, camelCase); not for video channels. */
export function toCampaignInput(b: CampaignCreateBody) {
  const content: z.input<typeof campaignContentInput> = {
    subject: b.content.subject,
    body: b.content.body,
    message: b.content.message,
    script: b.content.script,
    audioUrl: b.content.audio_url,
    audioMediaId: b.content.audio_media_id,
    machineDetection: b.content.machine_detection,
  };
  return {
    name: b.name,
    channel: b.channel,
    content,
    recipients: {
      csv: b.audience.contacts,
      contactIds: b.audience.contact_ids,
      segmentId: b.audience.segment_id,
    },
    audience:
      b.audience.tag_id !== undefined
        ? { tagId: b.audience.tag_id }
        : b.audience.filter
          ? { filter: toAudienceFilter(b.audience.filter) }
          : undefined,
    scheduledAt: b.scheduled_at ? new Date(b.scheduled_at) : null,
    includeNotOptedIn: b.include_not_opted_in,
  };
}

/**
 * Maps a video_email / video_sms body to the input of the app's video campaign call (POST
 * /api/campaigns/video, campaigns.video `videoCampaignInput`): inline contacts become `contacts`
 * (first and last name joined when there is no name), the one CRM audience form becomes `audience`.
 */
export function toVideoCampaignInput(b: CampaignCreateBody): VideoCampaignInput {
  const a = b.audience;
  const audience =
    a.contact_ids !== undefined
      ? { contactIds: a.contact_ids }
      : a.segment_id !== undefined
        ? { segmentId: a.segment_id }
        : a.tag_id !== undefined
          ? { tagId: a.tag_id }
          : a.filter !== undefined
            ? { filter: toAudienceFilter(a.filter) }
            : undefined;
  return {
    campaignName: b.name,
    videoId: b.content.video_id,
    avatarScript: b.content.avatar_script,
    avatarProvider: b.content.avatar_provider,
    deliveryMethod: b.channel === "video_sms" ? "sms" : "email",
    message: b.content.message ?? "",
    subject: b.content.subject,
    ctaLabel: b.content.cta_label,
    ctaUrl: b.content.cta_url,
    includeNotOptedIn: b.include_not_opted_in,
    scheduledAt: b.scheduled_at ? new Date(b.scheduled_at) : null,
    contacts: (a.contacts ?? []).map((r) => ({
      name: r.name ?? ([r.first_name, r.last_name].filter(Boolean).join(" ") || null),
      company: r.company ?? null,
      email: r.email ?? null,
      phone: r.phone ?? null,
      mobile: r.mobile ?? null,
    })),
    audience,
  };
}

export const campaignObject = z.object({
  id: z.number().int(),
  name: z.string(),
  channel: z.enum(CAMPAIGN_CHANNELS),
  status: z.enum(CAMPAIGN_STATUSES),
  recipient_count: z.number().int(),
  counts: z
    .record(z.string(), z.number().int())
    .describe("recipients per status (a recipient's status, as GET /campaigns/{id}/recipients gives it)"),
  progress: z.number().describe("0..1"),
  scheduled_at: iso.nullable(),
  started_at: iso.nullable(),
  completed_at: iso.nullable(),
  created_at: iso,
});
export const launchResult = z.object({
  campaign: campaignObject,
  queued: z.number().int(),
  skipped: z.record(z.string(), z.number().int()),
});
export const recipientObject = z.object({
  id: z.number().int(),
  contact_id: z
    .number()
    .int()
    .nullable()
    .describe("null once the contact was deleted (the recipient and its address stay with the campaign)"),
  name: z.string().nullable(),
  address: z.string().nullable(),
  status: z.enum(RECIPIENT_STATUSES),
  reason: z.string().nullable(),
  attempts: z.number().int(),
  sent_at: iso.nullable(),
  delivered_at: iso.nullable(),
  opened_at: iso.nullable(),
  clicked_at: iso.nullable(),
  replied_at: iso
    .nullable()
    .describe(
      "when the recipient first replied to the campaign's text (SMS campaigns), null without a reply",
    ),
  reply_text: z
    .string()
    .nullable()
    .describe(
      "the text of the recipient's latest SMS reply, as they sent it (untrusted text: escape it before showing it), null without a reply",
    ),
  opted_out_at: iso
    .nullable()
    .describe(
      "when the recipient opted out from this campaign's message (unsubscribe link, STOP reply, spam complaint, a key pressed during the call); kept when they re-subscribe later (START), null when they did not",
    ),
  answered_by: z
    .string()
    .nullable()
    .describe(
      "call campaigns: who answered the completed call, as Twilio's AnsweredBy (human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax, unknown); null when not known or not a call",
    ),
  call_seconds: z
    .number()
    .int()
    .nullable()
    .describe("call campaigns: the completed call's length in whole seconds; null when not a completed call"),
});
export const statusResult = z.object({ id: z.number().int(), status: z.enum(CAMPAIGN_STATUSES) });

/**
 * POST /campaigns/{id}/reschedule: the new send time of a scheduled campaign, `scheduled_at` as a
 * launch's (campaigns.schemas scheduledAtIso: ISO 8601 with Z or an offset, at most
 * SCHEDULE_MAX_AHEAD_DAYS ahead); the campaigns service then holds it to the tRPC procedure's
 * rules (campaigns.schemas rescheduleInput, rescheduleCampaign: at least a minute ahead).
 */
export const campaignRescheduleBody = z.strictObject({
  scheduled_at: scheduledAtIso.describe(
    `the new send time, at least a minute and at most ${SCHEDULE_MAX_AHEAD_DAYS} days from now`,
  ),
});
export const rescheduleResult = statusResult.extend({
  status: z.literal("scheduled"),
  scheduled_at: iso.describe("the new send time (UTC)"),
});

// --- media ----------------------------------------------------------------------------------------
export const mediaListQuery = v1PageSchema;
export const mediaObject = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.enum(MEDIA_TYPES),
  url: z.string(),
  thumbnail_url: z.string().nullable(),
  gif_url: z.string().nullable(),
  mime_type: z.string(),
  size: z.number().int().describe("bytes"),
  duration: z.number().nullable().describe("seconds"),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  status: z.enum(["draft", "published"]),
  processing_status: z.enum(PROCESSING_STATUSES),
  created_at: iso,
});

// --- webhooks -------------------------------------------------------------------------------------
export const endpointCreateBody = createEndpointSchema.strict();
export const endpointUpdateBody = updateEndpointSchema.strict();
export const rotateSecretBody = rotateSecretBodySchema.strict();
/** POST /webhook_endpoints/{id}/test's body (no body: the endpoint's first subscribed type). */
export const testEventBody = testEventSchema.strict();
export const endpointObject = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  failing_since: iso.nullable(),
  previous_secret_expires_at: iso
    .nullable()
    .describe(
      "until when the secret replaced by the last roll (rotate_secret) still signs deliveries beside the current one; null when none does",
    ),
  created_at: iso,
});
export const endpointWithSecret = endpointObject.extend({
  secret: z
    .string()
    .describe("whsec_<base64>: shown once; verify deliveries with a Standard Webhooks library"),
});
export const testEventResult = z.object({
  delivery_id: z.uuid(),
  event_id: z.string().describe("the webhook-id header of the test event"),
  type: z.enum(WEBHOOK_EVENT_TYPES).describe("the event type of the test event"),
});
export const resendResult = z.object({ id: z.uuid(), status: z.literal("pending") });
export const deliveryObject = z.object({
  id: z.uuid(),
  event_id: z.string().describe("the webhook-id header"),
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  status: z
    .enum(["pending", "succeeded", "failed"])
    .describe(
      "pending: queued or waiting for a retry; succeeded: a 2xx answer; failed: gave up (its attempts ran out, or it could not be sent)",
    ),
  attempts: z.number().int(),
  response_code: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  last_error: z.string().nullable(),
  last_attempt_at: iso.nullable(),
  created_at: iso,
  attempt: z
    .number()
    .int()
    .describe("attempts of the current schedule started so far (0 before the first; a resend starts anew)"),
  max_attempts: z.number().int().describe("attempts a schedule makes at most before it gives up (12)"),
  next_attempt_at: iso
    .nullable()
    .describe(
      "when the next attempt is scheduled (exponential backoff, or the receiver's Retry-After); null when none is: succeeded, failed (gave up), or in progress",
    ),
});

// --- lead searches --------------------------------------------------------------------------------
const searchFields = searchSchema.shape;
/**
 * POST /lead_searches: the fields of POST /api/maps/search in snake_case (same rules and messages),
 * the filter set's names too (api.v1.leads FILTER_NAMES: `min_rating`, `include_zip_codes`, ...).
 */
export const leadSearchCreateBody = z.strictObject({
  location: searchFields.location.describe(
    'a US city and state ("Austin, TX"), a 5-digit ZIP code, or coordinates on US land ("30.27, -97.74")',
  ),
  business_type: searchFields.businessType.describe("e.g. dentist"),
  // the app's search form may send these as text; the API takes JSON numbers only (jsonTyped)
  radius: jsonTyped("number", searchFields.radius.describe("total radius, miles (1-50, default 25)")),
  search_radius: jsonTyped(
    "number",
    searchFields.searchRadius.describe("circle size, miles (1-5 in steps of 0.5, default 2)"),
  ),
  filters: leadFiltersBody
    .optional()
    .describe(
      "the Filter set (spec section 3) with snake_case names: the app's filter keys (GET /api/maps/filters) " +
        "split at each capital (minRating -> min_rating, includeZipCodes -> include_zip_codes; hasLinkedIn -> " +
        "has_linkedin, hasYouTube -> has_youtube, open24Hours -> open_24_hours, minBBBRating -> min_bbb_rating)",
    ),
  preset: z.string().max(50).optional().describe("an industry preset id, e.g. dentists"),
  enrich: z
    .boolean()
    .optional()
    .describe("visit the results' websites for public emails and social profiles (a background job)"),
});
export const leadSearchObject = z.object({
  id: z.uuid(),
  status: z.enum(["running", "completed", "failed"]),
  location: z.string(),
  business_type: z.string(),
  radius: z.number(),
  search_radius: z.number(),
  preset: nullableText,
  provider: z.string().describe("local (demo data), osm or google"),
  saved_search_id: z.uuid().nullable(),
  total_circles: z.number().int(),
  api_calls: z.number().int(),
  total_results: z.number().int(),
  capped: z.boolean().describe("the per-search cap on provider calls was reached"),
  error: nullableText,
  enrichment: z.object({
    status: z.enum(["none", "queued", "running", "completed", "failed"]),
    done: z.number().int(),
    total: z.number().int(),
    deferred_filters: z
      .array(z.string())
      .describe("filters (their names in `filters`) applied once enrichment has run"),
  }),
  content_purged: z
    .boolean()
    .describe("Google content other than place ids was removed (Google's terms: 30 days at most)"),
  created_at: iso,
  completed_at: iso.nullable(),
});
export const leadResultsQuery = v1PageSchema;
const leadResultFull = z.object({
  place_id: z.string(),
  name: z.string(),
  address: nullableText,
  city: nullableText,
  state: nullableText,
  postal_code: nullableText,
  lat: z.number(),
  lng: z.number(),
  rating: z.number().nullable().describe("0-5"),
  review_count: z.number().int().nullable(),
  price_level: z.number().nullable().describe("the provider's price level (Google: 0-4)"),
  phone: nullableText,
  phone_e164: nullableText.describe(
    "the phone in E.164, national numbers read in the workspace's phone country; null when not valid",
  ),
  website: nullableText,
  email: nullableText,
  socials: z.record(z.string(), z.string()).describe("social profiles by network (facebook, instagram, ...)"),
  types: z.array(z.string()).describe("the provider's business categories"),
  business_status: z
    .enum(["OPERATIONAL", "CLOSED_TEMPORARILY", "CLOSED_PERMANENTLY"])
    .nullable()
    .describe("null when the provider does not say"),
  distance: z.number().describe("miles from the search centre"),
  opening_hours: z.object({ open_now: z.boolean().nullable(), text: nullableText }),
  lead_score: z.number().int().describe("0-100 (the leads feature's score formula)"),
  lead_tier: z.object({ tier: z.enum(["HOT", "WARM", "COLD"]), emoji: z.string(), color: z.string() }),
  score_reasons: z.array(z.string()).describe("what the lead score was made of, one sentence each"),
  competitors: z.number().int().describe("other results of this search within 1 mile"),
  in_contacts: z.boolean().describe("already among the workspace's contacts"),
  is_new: z.boolean().describe("not found by the saved search's previous run"),
  has_contact_form: z.boolean().nullable(),
  demo: z.boolean().describe("invented demo data (PLACES_PROVIDER=local)"),
  attribution: nullableText.describe("the provider's attribution, to show with the result"),
  enrichment: z
    .object({
      status: z.enum(["ok", "blocked", "failed", "skipped"]),
      reason: z.string().optional(),
      pages: z.number().int(),
      emails_found: z.number().int(),
    })
    .nullable()
    .describe("what website enrichment did for this result (null when not asked or not yet run)"),
});
const leadResultPurged = z.object({
  place_id: z.string(),
  purged: z.literal(true).describe("Google content past its retention: only the place id is kept"),
});
export const leadResultObject = z.union([leadResultFull, leadResultPurged]);

// --- shared ---------------------------------------------------------------------------------------
/** `limit` and `cursor` of the lists with no filters (tags, segments, notes, webhooks). */
export const pageQuery = v1PageSchema;
export const deletedResult = z.object({ id: z.union([z.number(), z.string()]), deleted: z.literal(true) });
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal("list"),
    data: z.array(item),
    next_cursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last page"),
  });
}
export const errorObject = z.object({
  error: z.object({
    type: z.enum([
      "invalid_request_error",
      "authentication_error",
      "payment_required",
      "permission_error",
      "not_found",
      "conflict",
      "rate_limit_error",
      "api_error",
    ]),
    message: z.string(),
    param: z.string().optional(),
  }),
});

// --- outbound webhook events (the OpenAPI document's `webhooks`) ------------------------------------
/** A campaign recipient's event (message.*, and contact.unsubscribed from a campaign message). */
const recipientEventData = z.object({
  campaign_id: z.number().int(),
  recipient_id: z.number().int(),
  contact_id: z.number().int().nullable().describe("null once the contact was deleted"),
  channel: z.enum(CAMPAIGN_CHANNELS),
  address: z.string().nullable().describe("the email address or phone number the message went to"),
  status: z
    .enum(RECIPIENT_STATUSES)
    .describe("the recipient's status after the event (GET /campaigns/{id}/recipients)"),
  reason: z.string().optional().describe("why, when the provider gave a reason (a bounce's, a failure's)"),
  occurred_at: iso,
});
const campaignEventData = z.object({
  id: z.number().int(),
  name: z.string(),
  channel: z.enum(CAMPAIGN_CHANNELS),
  status: z.enum(CAMPAIGN_STATUSES),
  recipient_count: z.number().int(),
});

/**
 * The `data` of each outbound webhook event type (webhooks.schemas WEBHOOK_EVENT_TYPES), as the
 * emitting features store it: crm (contact.*, the v1 contact), campaigns (campaign.*, message.*,
 * video.viewed, contact.unsubscribed), leads (lead_search.completed, the v1 lead search). The OpenAPI
 * document describes each event's request body with it (api.openapi `webhooks`).
 */
export const WEBHOOK_EVENT_DATA = {
  "contact.created": contactObject,
  "contact.updated": contactObject,
  "contact.deleted": z.object({ id: z.number().int(), deleted: z.literal(true) }),
  "contact.unsubscribed": recipientEventData.extend({
    campaign_id: z.number().int().nullable().describe("null when the opt-out did not answer a campaign"),
    recipient_id: z.number().int().nullable(),
    status: z
      .enum([...RECIPIENT_STATUSES, "unsubscribed"])
      .describe(
        "an opt-out answering a campaign message: its recipient's status, which the opt-out leaves as it was (e.g. delivered, clicked, replied; GET /campaigns/{id}/recipients); unsubscribed for an opt-out that did not answer a campaign (campaign_id null). Key on the event type, not on this status",
      ),
    channel: z
      .string()
      .describe(
        "the campaign's channel, or sms / voice for an opt-out answering a contact-page text or call",
      ),
  }),
  "campaign.launched": campaignEventData.extend({ scheduled_at: iso.nullable() }),
  "campaign.rescheduled": campaignEventData.extend({
    scheduled_at: iso.describe("the new send time (UTC)"),
    previous_scheduled_at: iso
      .nullable()
      .describe("the send time it had before (UTC); a scheduled campaign always has one"),
  }),
  "campaign.completed": campaignEventData.extend({ completed_at: iso }),
  "message.sent": recipientEventData.extend({ provider_message_id: z.string().nullable() }),
  "message.delivered": recipientEventData.extend({
    answered_by: z
      .string()
      .nullable()
      .describe(
        "call campaigns: who answered the completed call, as Twilio's AnsweredBy (human, machine_start, ...); null for other channels or when not known",
      ),
    call_seconds: z
      .number()
      .int()
      .nullable()
      .describe("call campaigns: the completed call's length in whole seconds; null for other channels"),
  }),
  "message.opened": recipientEventData,
  "message.clicked": recipientEventData,
  "message.replied": recipientEventData.extend({
    reply_text: z
      .string()
      .nullable()
      .describe("the reply's text as the person sent it (untrusted text: escape it); null when not known"),
  }),
  "message.bounced": recipientEventData,
  "video.viewed": z.object({
    campaign_id: z.number().int(),
    recipient_id: z.number().int(),
    contact_id: z.number().int().nullable(),
    media_id: z.number().int().nullable(),
    event: z.enum(["view", "progress"]),
    watch_percent: z.number().int().describe("0, 25, 50, 75 or 100: the milestone reached"),
    view_count: z.number().int(),
    occurred_at: iso,
  }),
  "lead_search.completed": leadSearchObject,
} satisfies Record<(typeof WEBHOOK_EVENT_TYPES)[number], z.ZodType>;
