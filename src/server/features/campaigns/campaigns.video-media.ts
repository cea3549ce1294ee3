import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import type { Campaign, CampaignStatus } from "../../db/schema";
import { findMedia, type MediaUse, type MediaUser, registerMediaUser } from "../studio/studio.service";
import { selectVideoCampaignOf } from "./campaigns.video.queries";
import {
  markCampaignVideoDeleted,
  selectCampaignsUsingMedia,
  selectLandingVideos,
} from "./campaigns.video-media.queries";

// Video campaigns and the library videos they send: the campaigns using a video (the Studio asks
// before deleting one, through studio registerMediaUser: campaigns imports the studio, so the studio
// cannot import campaigns), and the send-time check that a recipient's video still exists.

/** Campaign statuses with messages still to send: a video they use cannot be deleted meanwhile. */
export const STATUSES_STILL_SENDING: readonly CampaignStatus[] = ["scheduled", "sending", "paused"];

/** The reason a video message fails with when its video was deleted before it was sent (the report's Reason). */
export const VIDEO_DELETED_REASON = "the video was deleted before this message was sent";

/**
 * The workspace's campaigns using library item `mediaId` (as the campaign's video or a recipient's
 * personalised video), newest first; `pending` for those with messages still to send
 * (STATUSES_STILL_SENDING).
 */
export async function campaignsUsingMedia(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  mediaId: number,
): Promise<MediaUse[]> {
  const rows = await selectCampaignsUsingMedia(ctx.db, workspaceId, mediaId);
  return rows.map((r) => ({ ...r, pending: STATUSES_STILL_SENDING.includes(r.status) }));
}

/**
 * What campaigns registers with the studio (studio registerMediaUser): its uses of an item, and the
 * note on video campaigns, in the deletion's transaction, that their video was deleted (their
 * landing pages and engagement stay; the report says the video was deleted).
 */
export const videoCampaignMediaUser: MediaUser = {
  uses: campaignsUsingMedia,
  deleting: (tx: DbOrTx, workspaceId: string, mediaId: number) =>
    markCampaignVideoDeleted(tx, workspaceId, mediaId),
};

// registered as this module loads: campaigns.send imports it, so every process that can launch or
// send a campaign (campaigns.service -> campaigns.engine -> campaigns.send) has the studio ask it
registerMediaUser(videoCampaignMediaUser);

/**
 * Send-time check of a video campaign's rows (campaigns.send): the ids of those whose video is gone
 * from the library (deleted since the launch), which must fail with VIDEO_DELETED_REASON instead of
 * going out with a link to "This video is no longer available". A row's video is its landing page's
 * (a personalised recipient's own video) or else the campaign's, as the landing page resolves it
 * (campaigns.video landingByToken). Empty for other channels.
 */
export async function rowsWithoutVideo(
  ctx: Pick<AppContext, "db">,
  campaign: Pick<Campaign, "id" | "workspaceId" | "channel">,
  rows: { id: number; token: string }[],
): Promise<Set<number>> {
  const none = new Set<number>();
  if (rows.length === 0 || (campaign.channel !== "video_email" && campaign.channel !== "video_sms"))
    return none;
  const vc = await selectVideoCampaignOf(ctx.db, campaign.id);
  // a video campaign is always launched with its row (campaigns.video launchVideoCampaign)
  if (!vc) return none;
  const pages = new Map(
    (
      await selectLandingVideos(
        ctx.db,
        rows.map((r) => r.token),
      )
    ).map((p) => [p.token, p.mediaId]),
  );
  const videoOf = (r: { token: string }) => pages.get(r.token) ?? vc.mediaId;
  const ids = [...new Set(rows.map(videoOf).filter((m): m is number => m !== null))];
  const present = new Set<number>();
  for (const id of ids) if (await findMedia(ctx, campaign.workspaceId, id)) present.add(id);
  for (const r of rows) {
    const m = videoOf(r);
    if (m === null || !present.has(m)) none.add(r.id);
  }
  return none;
}
