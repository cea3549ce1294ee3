import { and, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import {
  type CampaignRecipient,
  campaignRecipients,
  campaigns,
  type VideoCampaign,
  type VideoLandingPage,
  videoCampaigns,
  videoLandingPages,
  videoViewEvents,
} from "../../db/schema";

// The SQL of video campaigns: the video campaign rows, recipients' landing pages and their view
// events, and the personalised (avatar) recipients' hold and release. Rules: campaigns.video.ts,
// campaigns.video-avatars.ts.

/** Inserts a video campaign and returns it. */
export async function insertVideoCampaign(
  db: DbOrTx,
  values: typeof videoCampaigns.$inferInsert,
): Promise<VideoCampaign> {
  const [vc] = await db.insert(videoCampaigns).values(values).returning();
  if (!vc) throw new Error("insert into video_campaigns returned no row");
  return vc;
}

/** Links a video campaign to the campaign the engine sends. */
export async function setVideoCampaignCampaign(db: DbOrTx, id: number, campaignId: number): Promise<void> {
  await db.update(videoCampaigns).set({ campaignId }).where(eq(videoCampaigns.id, id));
}

/** Deletes a video campaign (its launch failed). */
export async function deleteVideoCampaign(db: DbOrTx, id: number): Promise<void> {
  await db.delete(videoCampaigns).where(eq(videoCampaigns.id, id));
}

/** The video campaign with public id `publicId` (email thumbnails), or undefined. */
export async function selectVideoCampaignByPublicId(db: DbOrTx, publicId: string) {
  const [vc] = await db.select().from(videoCampaigns).where(eq(videoCampaigns.publicId, publicId));
  return vc;
}

/** The video campaign of engine campaign `campaignId` (any workspace when `workspaceId` is omitted), or undefined. */
export async function selectVideoCampaignOf(db: DbOrTx, campaignId: number, workspaceId?: string) {
  const [vc] = await db
    .select()
    .from(videoCampaigns)
    .where(
      and(
        eq(videoCampaigns.campaignId, campaignId),
        workspaceId ? eq(videoCampaigns.workspaceId, workspaceId) : undefined,
      ),
    );
  return vc;
}

/** A recipient's landing page by its token, or undefined. */
export async function selectLandingPage(db: DbOrTx, token: string): Promise<VideoLandingPage | undefined> {
  const [page] = await db.select().from(videoLandingPages).where(eq(videoLandingPages.token, token));
  return page;
}

/**
 * Creates a recipient's landing page. `onConflict`: "keep" leaves an existing page of the token as
 * it is; "media" points the existing page at this page's video (a personalised video that is ready).
 */
export async function insertLandingPage(
  db: DbOrTx,
  values: typeof videoLandingPages.$inferInsert,
  onConflict: "keep" | "media",
): Promise<void> {
  const q = db.insert(videoLandingPages).values(values);
  if (onConflict === "keep") await q.onConflictDoNothing();
  else await q.onConflictDoUpdate({ target: videoLandingPages.token, set: { mediaId: values.mediaId } });
}

/**
 * Forgets the person a landing page was made for, once their contact was deleted: the name, email,
 * phone and contact link go, and the message becomes `message` (merged for nobody). Returns the
 * page as it is now.
 */
export async function forgetLandingRecipient(
  db: DbOrTx,
  pageId: number,
  message: string,
): Promise<VideoLandingPage | undefined> {
  const [page] = await db
    .update(videoLandingPages)
    .set({ contactId: null, recipientName: null, recipientEmail: null, recipientPhone: null, message })
    .where(eq(videoLandingPages.id, pageId))
    .returning();
  return page;
}

/** Counts a view of a page (view_count + 1, last viewed now, first viewed kept) and logs the view event. */
export async function recordPageView(db: DbOrTx, page: VideoLandingPage, now: Date): Promise<void> {
  await db
    .update(videoLandingPages)
    .set({
      viewCount: sql`${videoLandingPages.viewCount} + 1`,
      lastViewedAt: now,
      firstViewedAt: page.firstViewedAt ?? now,
    })
    .where(eq(videoLandingPages.id, page.id));
  await db.insert(videoViewEvents).values({ pageId: page.id, event: "view" });
}

/**
 * Raises a page's watch milestone to `percent` and logs the progress event; false (nothing written)
 * when the page already reached `percent`.
 */
export async function recordPageProgress(db: DbOrTx, pageId: number, percent: number): Promise<boolean> {
  const updated = await db
    .update(videoLandingPages)
    .set({ maxPercent: percent })
    .where(and(eq(videoLandingPages.id, pageId), sql`${videoLandingPages.maxPercent} < ${percent}`))
    .returning({ id: videoLandingPages.id });
  if (!updated.length) return false;
  await db.insert(videoViewEvents).values({ pageId, event: "progress", percent });
  return true;
}

/**
 * Viewers, views, recipients past each watch milestone and recipients who clicked the call-to-action
 * button (`ctaClicks`: pages with a first button click) of one campaign's landing pages.
 */
export async function selectVideoEngagement(db: DbOrTx, workspaceId: string, campaignId: number) {
  const [row] = await db
    .select({
      viewers: sql<number>`count(*) filter (where ${videoLandingPages.viewCount} > 0)::int`,
      views: sql<number>`coalesce(sum(${videoLandingPages.viewCount}), 0)::int`,
      p25: sql<number>`count(*) filter (where ${videoLandingPages.maxPercent} >= 25)::int`,
      p50: sql<number>`count(*) filter (where ${videoLandingPages.maxPercent} >= 50)::int`,
      p75: sql<number>`count(*) filter (where ${videoLandingPages.maxPercent} >= 75)::int`,
      p100: sql<number>`count(*) filter (where ${videoLandingPages.maxPercent} >= 100)::int`,
      ctaClicks: sql<number>`count(*) filter (where ${videoLandingPages.ctaClickedAt} is not null)::int`,
    })
    .from(videoLandingPages)
    .where(
      and(
        eq(videoLandingPages.campaignId, String(campaignId)),
        eq(videoLandingPages.workspaceId, workspaceId),
      ),
    );
  return row;
}

/**
 * Records the first click of a landing page's call-to-action button (cta_clicked_at, kept after);
 * true when this was that first click, false when the page had one already or there is no page of
 * `token`.
 */
export async function recordLandingCtaClick(db: DbOrTx, token: string, now: Date): Promise<boolean> {
  const updated = await db
    .update(videoLandingPages)
    .set({ ctaClickedAt: now })
    .where(and(eq(videoLandingPages.token, token), isNull(videoLandingPages.ctaClickedAt)))
    .returning({ id: videoLandingPages.id });
  return updated.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Personalised (avatar) recipients
// ---------------------------------------------------------------------------------------------

/** A recipient with its video campaign (both must match), or undefined. */
export async function selectRecipientWithVideoCampaign(
  db: DbOrTx,
  recipientId: number,
  videoCampaignId: number,
): Promise<{ r: CampaignRecipient; vc: VideoCampaign } | undefined> {
  const [row] = await db
    .select({ r: campaignRecipients, vc: videoCampaigns })
    .from(campaignRecipients)
    .innerJoin(videoCampaigns, eq(videoCampaigns.campaignId, campaignRecipients.campaignId))
    .where(and(eq(campaignRecipients.id, recipientId), eq(videoCampaigns.id, videoCampaignId)));
  return row;
}

/** Skips a still-queued recipient with `reason` (its hold cleared); false when it was no longer queued. */
export async function skipQueuedRecipient(db: DbOrTx, recipientId: number, reason: string): Promise<boolean> {
  const skipped = await db
    .update(campaignRecipients)
    .set({ status: "skipped", reason, notBefore: null, updatedAt: new Date() })
    .where(and(eq(campaignRecipients.id, recipientId), eq(campaignRecipients.status, "queued")))
    .returning({ id: campaignRecipients.id });
  return skipped.length > 0;
}

/** Clears a still-queued recipient's hold; false when it is no longer queued. */
export async function releaseQueuedRecipient(db: DbOrTx, recipientId: number): Promise<boolean> {
  const released = await db
    .update(campaignRecipients)
    .set({ notBefore: null, updatedAt: new Date() })
    .where(and(eq(campaignRecipients.id, recipientId), eq(campaignRecipients.status, "queued")))
    .returning({ id: campaignRecipients.id });
  return released.length > 0;
}

/** Holds every queued recipient of a campaign until `until`; returns `{id, contactId, workspaceId}` of each. */
export async function holdQueuedRecipients(db: DbOrTx, campaignId: number, until: Date) {
  return db
    .update(campaignRecipients)
    .set({ notBefore: until, updatedAt: new Date() })
    .where(and(eq(campaignRecipients.campaignId, campaignId), eq(campaignRecipients.status, "queued")))
    .returning({
      id: campaignRecipients.id,
      contactId: campaignRecipients.contactId,
      workspaceId: campaignRecipients.workspaceId,
    });
}

/** Starts a `scheduled` campaign now (status sending, schedule cleared). */
export async function startScheduledCampaign(db: DbOrTx, campaignId: number): Promise<void> {
  await db
    .update(campaigns)
    .set({ status: "sending", scheduledAt: null, startedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, "scheduled")));
}
