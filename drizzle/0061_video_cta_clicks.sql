-- Video landing pages record their call-to-action button's clicks: the button now links through the
-- campaign's signed click-tracking link (/c/{token}/{content.ctaLink}/{signature}), and the first click
-- by a person (not a HEAD, not a bot) stamps the page, so GET /api/campaigns/video/{id}/stats counts
-- the recipients who clicked the button (cta_clicks). Null until then (pages of earlier campaigns too).
ALTER TABLE "video_landing_pages" ADD COLUMN "cta_clicked_at" timestamp with time zone;--> statement-breakpoint
-- Video campaign emails showed the recipient the video's file name from the sender's library ("Watch:
-- mdn-flower", its alt text the same): the launch stored it as the engine content's videoTitle. No video
-- campaign launch lets the sender choose a title, so the video campaigns' stored titles go and their
-- later emails (scheduled, paused, still sending) read "Watch the video". Only campaigns launched
-- through the video campaign builder or API (those with a video_campaigns row) change.
UPDATE "campaigns" c SET "content" = c."content" - 'videoTitle'
WHERE c."channel" IN ('video_email', 'video_sms') AND c."content" -> 'videoTitle' IS NOT NULL
  AND EXISTS (SELECT 1 FROM "video_campaigns" vc WHERE vc."campaign_id" = c."id");
