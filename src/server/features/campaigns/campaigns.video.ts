import { z } from "zod";
import type { AppContext } from "../../context";
import type { CampaignRecipient, MediaItem, VideoCampaign, VideoLandingPage } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { mergeFor, toMergeTags } from "../../lib/merge-tags";
import { parseInput } from "../../lib/validate";
import { assertCanSend } from "../auth/auth.service";
import { MAX_SCRIPT_CHARS } from "../avatar/avatar.schemas";
import { PROVIDER_DISPLAY } from "../avatar/avatar.service";
import { assertWorkspaceFeature } from "../billing/billing.service";
import { getContactsByIds, recordActivities } from "../crm/crm.service";
import { findMedia, getMedia } from "../studio/studio.service";
import {
  emitWebhookEvent,
  queueWebhookDeliveries,
  type WebhookEmit,
  type WebhookEmitCtx,
} from "../webhooks/webhooks.service";
import { getSenderProfile, type SenderProfile } from "../workspaces/workspaces.service";
import { clickSignature, videoLandingUrl, videoSenderName, videoSmsMessage } from "./campaigns.content";
import { applyRecipientEvent, recipientByToken } from "./campaigns.events";
import { selectCampaignContent } from "./campaigns.queries";
import { allowRepeatInput, audienceSchema, launchTokenInput, scheduledAtInput } from "./campaigns.schemas";
import { answerRepeatedLaunch, createAndLaunchCampaign, type LaunchResult } from "./campaigns.service";
import {
  deleteVideoCampaign,
  forgetLandingRecipient,
  insertLandingPage,
  insertVideoCampaign,
  recordPageProgress,
  recordPageView,
  selectLandingPage,
  selectVideoCampaignByPublicId,
  selectVideoCampaignOf,
  selectVideoEngagement,
  setVideoCampaignCampaign,
} from "./campaigns.video.queries";
import { queueRecipientAvatars } from "./campaigns.video-avatars";

const COMPLETE_STEPS = "Please complete all steps";

/**
 * The landing page button's link (ctaUrl; the public API's content.cta_url): an absolute http or
 * https URL of at most 2,000 characters. Any other scheme (javascript:, data:, ftp:, ...) is refused
 * with a 400 rather than stored and silently dropped by the landing page (campaigns.landing safeHref).
 * `name` is how the sentence names the field.
 */
export function ctaUrlSchema(name = "The button link") {
  return z
    .url({ protocol: /^https?$/, error: `${name} must be a full http(s) URL (https://...)` })
    .max(2000, `${name} must be at most 2,000 characters`);
}

/**
 * POST /api/campaigns/video (spec sections 5, 7): campaignName, videoId, videoUrl (ignored: the
 * server knows the video), deliveryMethod email|sms, optional message, contacts {name, company,
 * email or phone}. Extensions: subject, ctaLabel, ctaUrl for the landing page's button, and
 * includeNotOptedIn (SMS: the user confirmed consent, as for single sends in spec section 5),
 * `audience` (issue 14) instead of `contacts`: a saved segment, tag, contacts-list filter or ids, and
 * scheduledAt (a later launch, as for every other channel; not with avatarScript). The public API's
 * `POST /api/v1/campaigns` with channel video_email / video_sms maps its snake_case body to this.
 */
export const videoCampaignInput = z.object({
  campaignName: z.string().trim().max(200, "Campaign name must be at most 200 characters").default(""),
  videoId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  videoUrl: z.string().max(2000).optional().nullable(),
  /**
   * Personalised AI avatar instead of `videoId`: a script with merge tags (`{{name|there}}`) rendered
   * into one avatar video per recipient before that recipient's message goes out.
   */
  avatarScript: z
    .string()
    .max(MAX_SCRIPT_CHARS, `The script must be at most ${MAX_SCRIPT_CHARS} characters`)
    .optional()
    .nullable(),
  /** avatar provider of `avatarScript`: local (offline preview, default), did or heygen */
  avatarProvider: z
    .enum(["local", "did", "heygen", "d-id"], { error: "Provider must be local, d-id or heygen" })
    .optional(),
  deliveryMethod: z
    .enum(["email", "sms"], { error: "Delivery method must be email or sms" })
    .default("email"),
  message: z.string().max(1600, "Message must be at most 1600 characters").default(""),
  subject: z.string().trim().max(300).optional(),
  ctaLabel: z.string().trim().max(60).optional(),
  ctaUrl: z.string().trim().pipe(ctaUrlSchema()).optional().or(z.literal("")),
  /** SMS: the user confirmed consent for contacts not opted in to SMS (opt-outs are always skipped) */
  includeNotOptedIn: z.boolean().optional(),
  contacts: z
    .array(
      z.object({
        name: z.string().max(300).optional().nullable(),
        company: z.string().max(300).optional().nullable(),
        email: z.string().max(320).optional().nullable(),
        phone: z.string().max(64).optional().nullable(),
        mobile: z.string().max(64).optional().nullable(),
      }),
    )
    .max(100_000, "At most 100,000 contacts per campaign")
    .default([]),
  /** instead of `contacts`: a CRM audience (segment, tag, filter or ids; issue 14) */
  audience: audienceSchema.optional(),
  /** launch at this time (ISO string or Date); past or absent = now. Not with `avatarScript`. */
  scheduledAt: scheduledAtInput,
  /** the draft's launch token (or the Idempotency-Key header): a repeat answers the first campaign */
  launchToken: launchTokenInput.optional(),
  /** send even when an identical campaign was launched within 10 minutes (`allowRepeatInput`) */
  allowRepeat: allowRepeatInput.optional(),
});
export type VideoCampaignInput = z.input<typeof videoCampaignInput>;

/**
 * Creates and launches a video campaign through the campaign engine (`createAndLaunchCampaign`,
 * channel video_email or video_sms). Each recipient gets a personal landing page
 * `APP_URL/v/{token}`; emails show the GIF preview (else the poster) linking to it, SMS carries the
 * link. The studio keeps the campaign's video and call to action in `video_campaigns`.
 * With `avatarScript` (personalised AI avatar) there is no campaign video: each recipient's message
 * is held while their own avatar video renders (see campaigns.video-avatars.ts), and their landing
 * page plays it. The plan's monthly video messages (spec section 9) must cover the recipients.
 * @throws AppError BAD_REQUEST 'Please complete all steps' (no name, video or contact), NOT_FOUND
 * (video not the user's), UNPROCESSABLE (video not ready, avatar provider not configured),
 * PAYMENT_REQUIRED (plan without video campaigns or over its monthly video messages); BAD_REQUEST for
 * scheduledAt with avatarScript; the engine's validation errors.
 */
export async function launchVideoCampaign(
  ctx: AppContext,
  workspaceId: string,
  raw: unknown,
  createdBy: string | null = null,
): Promise<LaunchResult & { videoCampaignId: number | null }> {
  const input = parseInput(videoCampaignInput, raw);
  if (createdBy) await assertCanSend(ctx, createdBy);
  // a repeat of a launch that already made its campaign (launchToken, audit finding 7): answer it
  // before anything is created (no second video campaign row, no second avatar render)
  const channel = input.deliveryMethod === "email" ? "video_email" : "video_sms";
  const repeat = await answerRepeatedLaunch(ctx, workspaceId, input.launchToken, channel);
  if (repeat) {
    const first = await selectVideoCampaignOf(ctx.db, repeat.campaign.id, workspaceId);
    return { ...repeat, videoCampaignId: first?.id ?? null };
  }
  const avatarScript = input.avatarScript?.trim() || "";
  const personalised = !input.videoId && avatarScript.length > 0;
  if (
    !input.campaignName ||
    !(input.videoId || personalised) ||
    (input.contacts.length === 0 && !input.audience)
  )
    throw new AppError("BAD_REQUEST", COMPLETE_STEPS);
  if (personalised && input.scheduledAt)
    throw new AppError(
      "BAD_REQUEST",
      "A personalised avatar campaign launches at once (each video renders first); leave out the schedule",
    );
  const avatarProvider = input.avatarProvider === "d-id" ? "did" : (input.avatarProvider ?? "local");
  let media: MediaItem | null = null;
  if (personalised) {
    if (!ctx.providers.avatar.get(avatarProvider))
      throw new AppError(
        "UNPROCESSABLE",
        `${PROVIDER_DISPLAY[avatarProvider]} is not configured on this server; choose another provider`,
      );
  } else {
    media = await getMedia(ctx, workspaceId, input.videoId as number);
    if (media.type !== "video")
      throw new AppError("BAD_REQUEST", "Please choose a video", { param: "videoId" });
    if (media.processingStatus !== "ready")
      throw new AppError(
        "UNPROCESSABLE",
        "This video is not ready yet. Please wait until it has been processed.",
      );
  }
  const contactsIn = input.contacts
    .map((c) => ({ ...c, phone: c.phone || c.mobile || null }))
    .filter((c) => (input.deliveryMethod === "email" ? c.email?.trim() : c.phone?.trim()));
  if (contactsIn.length === 0 && !input.audience)
    throw new AppError(
      "BAD_REQUEST",
      input.deliveryMethod === "email"
        ? 'CSV must have an "email" column for email delivery'
        : 'CSV must have a "phone" or "mobile" column for SMS delivery',
    );
  // video campaigns are a plan feature; their monthly video messages are reserved by the launch
  await assertWorkspaceFeature(ctx, workspaceId, "videoCampaigns");

  const sender = await getSenderProfile(ctx, workspaceId);
  const from = videoSenderName(sender);
  const publicId = randomToken(16);
  const vc = await insertVideoCampaign(ctx.db, {
    workspaceId,
    createdBy,
    publicId,
    mediaId: media?.id ?? null,
    deliveryMethod: input.deliveryMethod,
    message: input.message,
    ctaLabel: input.ctaLabel || null,
    ctaUrl: input.ctaUrl || null,
  });
  const appUrl = ctx.env.APP_URL;
  const merged = toMergeTags(input.message.trim());
  try {
    const result = await createAndLaunchCampaign(
      ctx,
      workspaceId,
      {
        name: input.campaignName,
        channel,
        content: {
          landingUrl: videoLandingUrl(appUrl),
          // no videoTitle: the library name is the sender's own label, never shown to recipients
          // (the email's button reads "Watch the video"); the request has no title field (spec section 7)
          thumbnailUrl:
            media && (media.gifKey || media.posterKey)
              ? `${appUrl}/v/t/${publicId}.${media.gifKey ? "gif" : "jpg"}`
              : null,
          ...(input.deliveryMethod === "email"
            ? {
                subject: input.subject || `${from} recorded a video for you`,
                body: merged || `Hi {{name|there}}, I recorded a short video for you.`,
              }
            : // the text the preflight checks too (campaigns.audience preflightAudience)
              { message: videoSmsMessage(input.message, from) }),
        },
        includeNotOptedIn: input.deliveryMethod === "sms" ? input.includeNotOptedIn : undefined,
        launchToken: input.launchToken,
        allowRepeat: input.allowRepeat,
        // personalised: launched "scheduled" so nothing sends before the recipients are held
        scheduledAt: personalised ? new Date(Date.now() + 10 * 60 * 1000) : input.scheduledAt,
        audience: input.audience,
        recipients: {
          csv: contactsIn.map((c) => ({
            name: c.name ?? null,
            company: c.company ?? null,
            email: c.email ?? null,
            phone: c.phone ?? null,
          })),
        },
      },
      createdBy,
      undefined,
      {
        // a launch without a token is known by this request's own fields (the engine content above
        // carries this launch's random thumbnail id, and the personalised launch's schedule is now + 10 min)
        repeatRequest: {
          video: input.videoId ?? null,
          avatarScript,
          avatarProvider: personalised ? avatarProvider : null,
          deliveryMethod: input.deliveryMethod,
          message: input.message,
          subject: input.subject ?? null,
          ctaLabel: input.ctaLabel || null,
          ctaUrl: input.ctaUrl || null,
          includeNotOptedIn: !!input.includeNotOptedIn,
          scheduledAt: input.scheduledAt ?? null,
        },
        // the landing page button links through the signed click-tracking link (landingCtaHref)
        ctaUrl: input.ctaUrl || undefined,
        // the personalised launch's schedule above holds it for its renders: reserved as sent now
        heldUntilReady: personalised,
      },
    );
    if (result.repeated) {
      // a concurrent launch with the same token (or, without one, an identical launch within the
      // repeat window) made the campaign first: this row is not needed
      await deleteVideoCampaign(ctx.db, vc.id);
      const first = await selectVideoCampaignOf(ctx.db, result.campaign.id, workspaceId);
      return { ...result, videoCampaignId: first?.id ?? null };
    }
    await setVideoCampaignCampaign(ctx.db, vc.id, result.campaign.id);
    if (personalised && result.queued > 0) {
      await queueRecipientAvatars(ctx, {
        campaignId: result.campaign.id,
        videoCampaignId: vc.id,
        campaignName: input.campaignName,
        provider: avatarProvider,
        script: avatarScript,
        myBusiness: sender.businessName,
      });
      return {
        ...result,
        campaign: { ...result.campaign, status: "sending", scheduledAt: null },
        videoCampaignId: vc.id,
      };
    }
    return { ...result, videoCampaignId: vc.id };
  } catch (error) {
    await deleteVideoCampaign(ctx.db, vc.id);
    throw error;
  }
}

/** A campaign-wide thumbnail for emails: the GIF preview or poster of the campaign's video, or null. */
export async function thumbnailByPublicId(
  ctx: Pick<AppContext, "db">,
  publicId: string,
): Promise<{ media: MediaItem; kind: "gif" | "poster" } | null> {
  if (!/^[a-z0-9]{16,64}$/.test(publicId)) return null;
  const vc = await selectVideoCampaignByPublicId(ctx.db, publicId);
  if (!vc?.mediaId) return null;
  const media = await findMedia(ctx, vc.workspaceId, vc.mediaId);
  if (!media) return null;
  return { media, kind: media.gifKey ? "gif" : "poster" };
}

/** Everything a recipient's landing page shows. */
export interface LandingData {
  recipient: CampaignRecipient;
  page: VideoLandingPage;
  media: MediaItem;
  campaign: VideoCampaign;
  /** the workspace's sender details and branding */
  sender: Pick<
    SenderProfile,
    "name" | "businessName" | "email" | "phone" | "brandColor" | "logoUrl" | "hideBranding"
  >;
}

/**
 * Resolves `/v/{token}`: the campaign recipient (engine token), the studio's video campaign, the
 * video and the sender; creates the recipient's landing page row on first use with the message
 * merged for them. Once their contact is deleted, the page forgets them (forgetLandingRecipient:
 * "A video for you", the message merged for nobody). Returns null for an unknown token or a deleted video.
 */
export async function landingByToken(
  ctx: Pick<AppContext, "db">,
  token: string,
): Promise<LandingData | null> {
  const recipient = await recipientByToken(ctx.db, token);
  if (!recipient) return null;
  const campaign = await selectVideoCampaignOf(ctx.db, recipient.campaignId);
  // a personalised (avatar) recipient's page row is made with their own video when it is ready
  const existing = await selectLandingPage(ctx.db, token);
  const mediaId = existing?.mediaId ?? campaign?.mediaId;
  if (!campaign || !mediaId) return null;
  const media = await findMedia(ctx, recipient.workspaceId, mediaId);
  if (!media) return null;
  const sender = await getSenderProfile(ctx, recipient.workspaceId);
  let page = existing;
  const nobody = { firstName: null, lastName: null, email: null, phone: null, company: null };
  // the contact was deleted since the page was made (the recipient's link to it is gone): the public
  // page forgets them, their name, email, phone and the message merged with their details
  if (page && page.contactId !== null && recipient.contactId === null)
    page = await forgetLandingRecipient(
      ctx.db,
      page.id,
      mergeFor(campaign.message, nobody, sender.businessName),
    );
  if (!page) {
    const [contact] =
      recipient.contactId === null
        ? []
        : await getContactsByIds(ctx, recipient.workspaceId, [recipient.contactId]);
    const c = contact ?? nobody;
    await insertLandingPage(
      ctx.db,
      {
        workspaceId: recipient.workspaceId,
        token,
        mediaId: media.id,
        campaignId: String(recipient.campaignId),
        contactId: recipient.contactId,
        recipientName: [c.firstName, c.lastName].filter(Boolean).join(" ") || null,
        recipientEmail: c.email,
        recipientPhone: c.phone,
        message: mergeFor(campaign.message, c, sender.businessName),
        ctaLabel: campaign.ctaLabel,
        ctaUrl: campaign.ctaUrl,
      },
      "keep",
    );
    page = await selectLandingPage(ctx.db, token);
  }
  if (!page || !sender) return null;
  return { recipient, page, media, campaign, sender };
}

export const MILESTONES = [25, 50, 75, 100] as const;

export const viewEventInput = z.object({
  event: z.enum(["view", "progress"]),
  percent: z.coerce.number().int().optional(),
});

/**
 * Tracks a landing page event (public, by token). `view`: counts the view, records a `video_viewed`
 * contact activity (once per 30 minutes per page) and, on the first view, the campaign engine's
 * `clicked` event (the report's engagement). `progress`: watch milestones 25/50/75/100 % are recorded
 * once each, in order, as `video_progress` activities with `percent`. Each view and new milestone
 * emits a `video.viewed` webhook event. With `opts.record` false (the event was posted by a bot:
 * isBotUserAgent, e.g. a headless crawler or link-preview service running the page's script) the
 * event is validated the same way and nothing is recorded (no view, milestone, activity, engagement
 * or webhook event); it returns false.
 * Returns false for an unknown token, an ignored event or an event not recorded.
 * @throws AppError BAD_REQUEST for a percent that is not a milestone.
 */
export async function trackView(
  ctx: Pick<AppContext, "db" | "jobs"> & Partial<Pick<AppContext, "log">>,
  token: string,
  raw: unknown,
  opts: { record?: boolean } = {},
): Promise<boolean> {
  const input = parseInput(viewEventInput, raw);
  const data = await landingByToken(ctx, token);
  if (!data) return false;
  const percent = input.percent ?? 0;
  if (input.event === "progress" && !(MILESTONES as readonly number[]).includes(percent))
    throw new AppError("BAD_REQUEST", "percent must be 25, 50, 75 or 100");
  if (opts.record === false) return false;
  const { page, recipient } = data;
  const now = new Date();
  if (input.event === "view") {
    const recent = page.lastViewedAt && now.getTime() - page.lastViewedAt.getTime() < 30 * 60 * 1000;
    // the view, its activity and its video.viewed event in one transaction (the webhooks outbox)
    const emitted = await ctx.db.transaction(async (tx) => {
      await recordPageView(tx, page, now);
      if (recent) return null;
      // (a deleted contact has no timeline left: the view and its event are still recorded)
      if (recipient.contactId !== null)
        await recordActivities(tx, [
          {
            workspaceId: page.workspaceId,
            contactId: recipient.contactId,
            activityType: "video_viewed",
            metadata: { campaignId: recipient.campaignId, mediaId: page.mediaId },
          },
        ]);
      return emitVideoViewed({ db: tx, log: ctx.log }, data, "view", page.maxPercent, now);
    });
    if (!page.firstViewedAt)
      await applyRecipientEvent(ctx, recipient, "clicked", { metadata: { videoView: true } });
    await queueWebhookDeliveries(ctx, emitted);
    return true;
  }
  // the milestone, its activity and its video.viewed event in one transaction (the webhooks outbox)
  const emitted = await ctx.db.transaction(async (tx) => {
    if (!(await recordPageProgress(tx, page.id, percent))) return null;
    if (recipient.contactId !== null)
      await recordActivities(tx, [
        {
          workspaceId: page.workspaceId,
          contactId: recipient.contactId,
          activityType: "video_progress",
          metadata: { campaignId: recipient.campaignId, mediaId: page.mediaId, percent },
        },
      ]);
    return emitVideoViewed({ db: tx, log: ctx.log }, data, "progress", percent, now);
  });
  if (!emitted) return false;
  await queueWebhookDeliveries(ctx, emitted);
  return true;
}

/**
 * The `video.viewed` webhook event (issue 15, "with watch percentage"): sent when a recipient opens
 * their landing page (at most once per 30 minutes per page, like the `video_viewed` activity) with
 * the furthest milestone reached so far, and at each new watch milestone (25/50/75/100 %). Stored
 * with `ctx.db`, the transaction of the view it reports; returns what to queue after its commit.
 */
async function emitVideoViewed(
  ctx: WebhookEmitCtx,
  data: LandingData,
  event: "view" | "progress",
  watchPercent: number,
  at: Date,
): Promise<WebhookEmit> {
  const { page, recipient } = data;
  return emitWebhookEvent(ctx, page.workspaceId, "video.viewed", {
    campaign_id: recipient.campaignId,
    recipient_id: recipient.id,
    contact_id: recipient.contactId,
    media_id: page.mediaId,
    event,
    watch_percent: watchPercent,
    view_count: page.viewCount + (event === "view" ? 1 : 0),
    occurred_at: at.toISOString(),
  });
}

/**
 * Video engagement of one campaign for its report: `viewers` (recipients whose page was opened),
 * `views` (total plays), `watched` (recipients past each watch milestone, 25/50/75/100 %) and
 * `cta_clicks` (recipients who clicked the page's call-to-action button, each counted once: the
 * first click by a person through its signed click link, landingCtaHref; campaigns launched before
 * the button was tracked count 0).
 * @throws AppError NOT_FOUND when the campaign is not the user's video campaign.
 */
export async function videoCampaignStats(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  campaignId: number,
) {
  const vc = await selectVideoCampaignOf(ctx.db, campaignId, workspaceId);
  if (!vc) throw new AppError("NOT_FOUND", "Campaign not found");
  const row = await selectVideoEngagement(ctx.db, workspaceId, campaignId);
  return {
    campaign_id: campaignId,
    media_id: vc.mediaId,
    /** the campaign's video was deleted from the library (its figures above are kept) */
    video_deleted: vc.mediaDeletedAt !== null,
    viewers: row?.viewers ?? 0,
    views: row?.views ?? 0,
    watched: { 25: row?.p25 ?? 0, 50: row?.p50 ?? 0, 75: row?.p75 ?? 0, 100: row?.p100 ?? 0 },
    cta_clicks: row?.ctaClicks ?? 0,
  };
}

/**
 * The landing page button's tracked link for the recipient behind `token`: the relative signed click
 * link `/c/{token}/{content.ctaLink}/{signature}` (campaigns.content clickSignature, the email and SMS
 * links' signature), which records the click (campaigns.events clickByToken: the recipient's `clicked`
 * event, and the page's first button click for the stats' `cta_clicks`) and redirects to the page's
 * `ctaUrl`. Null when the page has no link of its own (its button replies by email) or the campaign
 * was launched before the button was tracked (the page then links straight to `ctaUrl`).
 */
export async function landingCtaHref(
  ctx: Pick<AppContext, "db" | "env">,
  data: Pick<LandingData, "page" | "recipient">,
): Promise<string | null> {
  const { page, recipient } = data;
  if (!page.ctaUrl) return null;
  const content = await selectCampaignContent(ctx.db, recipient.campaignId);
  const i = content?.ctaLink;
  if (i === undefined || content?.links?.[i] !== page.ctaUrl) return null;
  const token = page.token;
  return `/c/${encodeURIComponent(token)}/${i}/${clickSignature(ctx.env.APP_SECRET, token, i, page.ctaUrl)}`;
}
