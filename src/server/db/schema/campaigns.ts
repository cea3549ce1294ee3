import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "./auth";
import { contacts } from "./crm";
import { mediaItems } from "./studio";
import { workspaces } from "./workspaces";

/** Channels a campaign sends on. `video_email` / `video_sms` carry a per-recipient landing-page URL (studio). */
export const CAMPAIGN_CHANNELS = ["email", "sms", "voice", "voicemail", "video_email", "video_sms"] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];

/** Campaign lifecycle (issue 4). */
export const CAMPAIGN_STATUSES = [
  "draft",
  "scheduled",
  "sending",
  "paused",
  "completed",
  "cancelled",
  "failed",
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** What paused a campaign (campaigns.pause_cause, migration 0065); a pause by a person has none. */
export const CAMPAIGN_PAUSE_CAUSES = ["plan", "departure"] as const;
export type CampaignPauseCause = (typeof CAMPAIGN_PAUSE_CAUSES)[number];

/**
 * Recipient status machine: queued -> sending -> sent -> delivered -> opened -> clicked / replied;
 * sending -> queued (transient vendor error, retried with backoff); sending -> failed (permanent);
 * queued -> skipped (compliance) or cancelled; sent/delivered -> bounced.
 */
export const RECIPIENT_STATUSES = [
  "queued",
  "sending",
  "sent",
  "delivered",
  "opened",
  "clicked",
  "replied",
  "bounced",
  "failed",
  "skipped",
  "cancelled",
] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/** What a campaign sends; fields used depend on the channel. Merge tags allowed in every text. */
export interface CampaignContent {
  subject?: string;
  /** email body (plain text with merge tags; paragraphs split on blank lines) */
  body?: string;
  /** SMS text */
  message?: string;
  /** AI call script (spoken with TwiML <Say>) or voicemail text-to-speech script */
  script?: string;
  /**
   * ringless voicemail audio: launches store `audioMediaId` (one of the workspace's audio items,
   * campaigns.voicemail.ts); `audioUrl` is only read from campaigns launched before issue 14
   */
  audioUrl?: string | null;
  /** ringless voicemail audio: the workspace's media item played (served to the provider signed) */
  audioMediaId?: number | null;
  /** answering-machine detection for AI calls */
  machineDetection?: boolean;
  /** video campaigns: landing page URL template, `{{token}}` is replaced by the recipient token */
  landingUrl?: string;
  videoTitle?: string;
  thumbnailUrl?: string | null;
  /** links found in the content at launch; clicks go through /c/:token/:index */
  links?: string[];
  /**
   * video campaigns: the index in `links` of the landing page button's destination (appended at
   * launch, after the message's own links), so the button's clicks go through the signed
   * /c/:token/:ctaLink link and count as the video's button clicks; absent when the page has no link
   */
  ctaLink?: number;
  /** the user's email signature, copied at launch */
  signature?: string;
  /** the workspace's sender (business) name at launch: `{{my_business}}` and the email From name */
  myBusiness?: string;
  /** send to contacts who have not opted in to this channel (single sends after confirmation) */
  ignoreOptIn?: boolean;
}

export const campaigns = pgTable(
  "campaigns",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** who did it (the acting user); null once that user is deleted */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    name: text().notNull(),
    channel: text().$type<CampaignChannel>().notNull(),
    status: text().$type<CampaignStatus>().notNull().default("draft"),
    content: jsonb().$type<CampaignContent>().notNull().default({}),
    /** where the recipients came from: csv | contacts | segment | single */
    source: text().notNull().default("contacts"),
    segmentId: bigint({ mode: "number" }),
    scheduledAt: timestamp({ withTimezone: true }),
    startedAt: timestamp({ withTimezone: true }),
    completedAt: timestamp({ withTimezone: true }),
    /**
     * Start of the billing period whose meter holds the plan units of the campaign's messages not
     * sent yet: the period its launch foresaw it sending in (its scheduled time's, else the launch's).
     * Parts sent in another period reserve there and leave this one (billing chargeCampaignSend).
     * Null for campaigns launched before it was recorded (migration 0038): their launch's period.
     */
    meterPeriodStart: timestamp({ withTimezone: true }),
    recipientCount: integer().notNull().default(0),
    /** SMS segments per message of the un-merged template (GSM-7 / UCS-2) */
    segmentsPerMessage: integer().notNull().default(1),
    /** bumped by "resend to failed only"; part of the send-job idempotency id */
    round: integer().notNull().default(0),
    /** a paused campaign's reason as its report shows it (`pausedReason`); cleared by a resume */
    error: text(),
    /**
     * What paused it (migration 0065): "plan" (the send engine, the plan no longer allowing its
     * messages) or "departure" (the member who launched it left while it was scheduled); null when
     * it is not paused or a person paused it. Only a `paused` campaign has one (a check constraint):
     * resume and cancel clear it.
     */
    pauseCause: text().$type<CampaignPauseCause>(),
    /**
     * The launch token of the request that created it (a builder's per-draft UUID, or the app's
     * `Idempotency-Key` header): unique per workspace, so a repeated launch answers this campaign
     * instead of creating and sending another (migration 0035)
     */
    launchToken: text(),
    /** what that launch answered (queued, skipped by reason), replayed to a repeat of it */
    launchResult: jsonb().$type<CampaignLaunchResult>(),
    /**
     * SHA-256 (hex) of the launch's normalised request (campaigns.delivery launchFingerprint). An
     * identical launch of the workspace within LAUNCH_REPEAT_WINDOW_MINUTES, without a token or with
     * another one, answers this campaign instead of creating another unless it says `allowRepeat`
     * (migration 0040); null for token launches made before every launch was fingerprinted.
     */
    launchFingerprint: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("campaigns_user_created_idx").on(t.workspaceId, t.createdAt),
    index("campaigns_status_idx").on(t.status),
    check(
      "campaigns_pause_cause_ck",
      sql`${t.pauseCause} is null or (${t.status} = 'paused' and ${t.pauseCause} in ('plan', 'departure'))`,
    ),
    uniqueIndex("campaigns_workspace_launch_token_idx")
      .on(t.workspaceId, t.launchToken)
      .where(sql`${t.launchToken} is not null`),
    index("campaigns_workspace_launch_fingerprint_idx")
      .on(t.workspaceId, t.launchFingerprint, t.createdAt)
      .where(sql`${t.launchFingerprint} is not null`),
  ],
);

/** A launch's answer as stored with its campaign: recipients queued, and skipped ones by reason. */
export interface CampaignLaunchResult {
  queued: number;
  skipped: Record<string, number>;
  /**
   * of `skipped`, those that made no recipient row, by reason (campaigns.audience unrecordedSkips: a
   * list's duplicate rows, rows with no valid email or phone number, ids that are no contact); the
   * report and the finished email add them to the recipients' skipped rows. Absent for campaigns
   * launched before it was kept (campaigns.delivery reportSkipped derives it for them).
   */
  unrecorded?: Record<string, number>;
}

export const campaignRecipients = pgTable(
  "campaign_recipients",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    campaignId: bigint({ mode: "number" })
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /**
     * the contact it was sent to; null once that contact was deleted: the row stays (the report keeps
     * counting the message, its unsubscribe link and provider events still work; RFC 8058, CAN-SPAM's
     * 30 days) with its address
     */
    contactId: bigint({ mode: "number" }).references(() => contacts.id, { onDelete: "set null" }),
    channel: text().$type<CampaignChannel>().notNull(),
    /** lower-cased email or E.164 number */
    address: text().notNull(),
    status: text().$type<RecipientStatus>().notNull().default("queued"),
    /** why skipped / failed / bounced (the vendor's reason when there is one) */
    reason: text(),
    attempts: integer().notNull().default(0),
    /**
     * the last attempt ended in an answer that may have come after the vendor took the message (a
     * timeout, a network error, a 408 or 5xx): its retry asks the vendor first (findSent). False after
     * a refusal the vendor gave before taking it (a 429) and after a lookup that found nothing
     * (migration 0050).
     */
    outcomeUnknown: boolean().notNull().default(false),
    /** a claimed (`sending`) row belongs to its claimer until this time */
    leaseUntil: timestamp({ withTimezone: true }),
    /** quiet hours or retry backoff: not before this time */
    notBefore: timestamp({ withTimezone: true }),
    providerMessageId: text(),
    /** public token for unsubscribe (/u/:token), click tracking (/c/:token/:i) and video landing pages */
    token: text().notNull(),
    /** SMS segments of the merged message (of its latest attempt) */
    segments: integer().notNull().default(1),
    /**
     * SMS segments handed to the provider for this recipient over all its attempts: each send adds
     * its message's segments (a "resend to failed" after an undelivered message adds the second
     * message's; the carrier bills both). What the report's segment total sums (migration 0038).
     */
    segmentsSent: integer().notNull().default(0),
    /** the opt-out footer was added (first SMS to this contact) */
    optOutNotice: boolean().notNull().default(false),
    sentAt: timestamp({ withTimezone: true }),
    deliveredAt: timestamp({ withTimezone: true }),
    openedAt: timestamp({ withTimezone: true }),
    clickedAt: timestamp({ withTimezone: true }),
    repliedAt: timestamp({ withTimezone: true }),
    failedAt: timestamp({ withTimezone: true }),
    /**
     * who answered a completed call (Twilio AnsweredBy: human, machine_start, machine_end_beep,
     * machine_end_silence, machine_end_other, fax, unknown); null when not known
     */
    answeredBy: text(),
    /**
     * when the recipient opted out from this campaign's message (unsubscribe link, STOP reply, spam
     * complaint, a key pressed during the call): set once and never cleared, so a START or a Postmark
     * reactivation (which clear `reason` 'unsubscribed') leaves the campaign's report as it happened
     * (migration 0063)
     */
    optedOutAt: timestamp({ withTimezone: true }),
    /** the text of the latest SMS reply the recipient sent (attacker text: escape it), null without one */
    replyText: text(),
    /** a completed call's length in seconds (Twilio CallDuration), null when not a completed call */
    callSeconds: integer(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("campaign_recipients_campaign_contact_channel_uq").on(t.campaignId, t.contactId, t.channel),
    uniqueIndex("campaign_recipients_token_uq").on(t.token),
    index("campaign_recipients_campaign_status_idx").on(t.campaignId, t.status),
    index("campaign_recipients_provider_msg_idx")
      .on(t.providerMessageId)
      .where(sql`${t.providerMessageId} is not null`),
    index("campaign_recipients_user_address_idx").on(t.workspaceId, t.channel, t.address),
    // an inbound SMS or call looks its number up across workspaces (migration 0043)
    index("campaign_recipients_address_idx").on(t.address, t.channel),
    // the send-time screen asks which of a part's addresses the campaign already reached (migration 0051)
    index("campaign_recipients_campaign_address_idx").on(t.campaignId, t.address),
  ],
);

/**
 * Webhook deliveries already applied, for replay protection: (provider, event key) is unique, so a
 * replayed delivery is recognised and changes nothing.
 */
/**
 * STOP/START replies per phone number with the provider's own time of each message (Twilio's
 * `date_created`, fetched by MessageSid: inbound webhooks carry no timestamp). The latest by provider
 * time decides the number's SMS opt-out state, so an old START delivered (or replayed) after a newer
 * STOP cannot re-subscribe the number (issue 11, finding 5).
 */
export const smsOptEvents = pgTable(
  "sms_opt_events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** E.164 of the person who replied */
    phone: text().notNull(),
    /** stop | start */
    kind: text().notNull(),
    providerMessageId: text().notNull(),
    providerTime: timestamp({ withTimezone: true }).notNull(),
    receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("sms_opt_events_message_uq").on(t.providerMessageId),
    index("sms_opt_events_phone_time_idx").on(t.phone, t.providerTime),
  ],
);

export const webhookEvents = pgTable(
  "webhook_events",
  {
    provider: text().notNull(),
    eventKey: text().notNull(),
    receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.eventKey] }),
    index("webhook_events_received_idx").on(t.receivedAt),
  ],
);

/**
 * Provider status events (Twilio status callbacks, Postmark webhooks) whose message id matched no
 * recipient yet: a callback can arrive before the send that got the id has recorded it. Held here
 * until that send records it (then applied and deleted), or for an hour (then purged: an id no
 * campaign sent, e.g. a single send from the contact page).
 */
export const campaignEarlyEvents = pgTable(
  "campaign_early_events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    provider: text().notNull(),
    providerMessageId: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("campaign_early_events_message_idx").on(t.providerMessageId),
    index("campaign_early_events_received_idx").on(t.receivedAt),
  ],
);

export type Campaign = typeof campaigns.$inferSelect;
export type CampaignRecipient = typeof campaignRecipients.$inferSelect;

// ---- video campaigns (their media lives in studio; the campaign and its recipients here)

/**
 * A recipient's personal video landing page (`/v/{token}`): the video, the sender's message merged for
 * this recipient, a call to action. `campaignId`/`contactId` link it to the campaign engine and CRM.
 */
export const videoLandingPages = pgTable(
  "video_landing_pages",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** unguessable url token (base32, 160 bits) */
    token: text().notNull(),
    /**
     * the video it plays; null once that video is deleted from the library (the page and its views stay
     * for the campaign's report; `/v/{token}` then says the video is no longer available)
     */
    mediaId: bigint({ mode: "number" }).references(() => mediaItems.id, { onDelete: "set null" }),
    campaignId: text(),
    contactId: bigint({ mode: "number" }),
    recipientName: text(),
    recipientEmail: text(),
    recipientPhone: text(),
    /** the sender's message, merged for this recipient */
    message: text().notNull().default(""),
    ctaLabel: text(),
    ctaUrl: text(),
    viewCount: integer().notNull().default(0),
    /** highest watch milestone reached: 0, 25, 50, 75, 100 */
    maxPercent: integer().notNull().default(0),
    firstViewedAt: timestamp({ withTimezone: true }),
    lastViewedAt: timestamp({ withTimezone: true }),
    /**
     * when the recipient first clicked the page's call-to-action button (its signed click link
     * /c/{token}/{content.ctaLink}/{signature}, by a person: not HEAD, not a bot); null until then
     */
    ctaClickedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("video_landing_pages_token_uq").on(t.token),
    index("video_landing_pages_campaign_idx").on(t.campaignId),
    index("video_landing_pages_user_idx").on(t.workspaceId, t.createdAt),
    index("video_landing_pages_media_idx").on(t.mediaId),
  ],
);

/**
 * A video campaign's studio side: which video it sends and the landing page's call to action.
 * `publicId` (unguessable) names the campaign-wide email thumbnail (`/v/t/{publicId}.gif`); each
 * recipient's page is `/v/{recipient token}` (the campaign engine's token).
 */
export const videoCampaigns = pgTable(
  "video_campaigns",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** who did it (the acting user); null once that user is deleted */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    publicId: text().notNull(),
    mediaId: bigint({ mode: "number" }).references(() => mediaItems.id, { onDelete: "set null" }),
    /**
     * when the campaign's video was deleted from the library (`mediaId` is then null; a personalised
     * avatar campaign has no campaign video and keeps this null): its report says so
     */
    mediaDeletedAt: timestamp({ withTimezone: true }),
    /** the campaign engine's campaign id, set right after launch */
    campaignId: bigint({ mode: "number" }),
    deliveryMethod: text().$type<"email" | "sms">().notNull(),
    /** the sender's message with merge tags (name, email, phone, company) */
    message: text().notNull().default(""),
    ctaLabel: text(),
    ctaUrl: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("video_campaigns_public_uq").on(t.publicId),
    index("video_campaigns_campaign_idx").on(t.campaignId),
    index("video_campaigns_media_idx").on(t.mediaId),
  ],
);

/** View tracking of a landing page: `view` on open, `progress` at 25/50/75/100 % (each once). */
export const videoViewEvents = pgTable(
  "video_view_events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    pageId: bigint({ mode: "number" })
      .notNull()
      .references(() => videoLandingPages.id, { onDelete: "cascade" }),
    event: text().$type<"view" | "progress">().notNull(),
    percent: integer(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("video_view_events_page_idx").on(t.pageId, t.createdAt)],
);

export type VideoLandingPage = typeof videoLandingPages.$inferSelect;
export type VideoCampaign = typeof videoCampaigns.$inferSelect;
