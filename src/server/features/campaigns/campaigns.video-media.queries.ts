import { and, desc, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { campaigns, videoCampaigns, videoLandingPages } from "../../db/schema";

// The SQL of the library videos video campaigns use: which campaigns use one (the Studio's delete
// dialog and refusal), the note of its deletion, and the send-time check of recipients' videos.
// Rules: campaigns.video-media.ts.

/**
 * The workspace's campaigns using media item `mediaId`: as the video campaign's video, or as a
 * recipient's own video (a personalised avatar campaign's landing page), newest first.
 */
export async function selectCampaignsUsingMedia(db: DbOrTx, workspaceId: string, mediaId: number) {
  const asCampaignVideo = db
    .select({ id: videoCampaigns.campaignId })
    .from(videoCampaigns)
    .where(
      and(
        eq(videoCampaigns.workspaceId, workspaceId),
        eq(videoCampaigns.mediaId, mediaId),
        isNotNull(videoCampaigns.campaignId),
      ),
    );
  const asRecipientVideo = db
    .selectDistinct({ id: videoLandingPages.campaignId })
    .from(videoLandingPages)
    .where(and(eq(videoLandingPages.workspaceId, workspaceId), eq(videoLandingPages.mediaId, mediaId)));
  return db
    .select({ id: campaigns.id, name: campaigns.name, status: campaigns.status })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.workspaceId, workspaceId),
        or(inArray(campaigns.id, asCampaignVideo), inArray(sql`${campaigns.id}::text`, asRecipientVideo)),
      ),
    )
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id));
}

/** Notes that media item `mediaId` is being deleted on the video campaigns whose video it is. */
export async function markCampaignVideoDeleted(db: DbOrTx, workspaceId: string, mediaId: number) {
  await db
    .update(videoCampaigns)
    .set({ mediaDeletedAt: new Date() })
    .where(and(eq(videoCampaigns.workspaceId, workspaceId), eq(videoCampaigns.mediaId, mediaId)));
}

/** The landing pages (token, video) of `tokens` that exist. */
export async function selectLandingVideos(db: DbOrTx, tokens: string[]) {
  if (tokens.length === 0) return [];
  return db
    .select({ token: videoLandingPages.token, mediaId: videoLandingPages.mediaId })
    .from(videoLandingPages)
    .where(inArray(videoLandingPages.token, tokens));
}
