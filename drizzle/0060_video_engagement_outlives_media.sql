-- A video deleted from the library no longer takes the engagement of the campaigns that sent it with
-- it: a recipient's landing page (its views and watch milestones, video_view_events) stays, its
-- media_id set to null (the page then shows "This video is no longer available", and the campaign's
-- report keeps its viewers, views and milestones). Before, the cascade deleted the pages, so a sent
-- campaign's report went to "0 of N watched".
ALTER TABLE "video_landing_pages" DROP CONSTRAINT "video_landing_pages_media_id_media_items_id_fk";--> statement-breakpoint
ALTER TABLE "video_landing_pages" ALTER COLUMN "media_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "video_landing_pages" ADD CONSTRAINT "video_landing_pages_media_id_media_items_id_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media_items"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- when the campaign's video was deleted from the library (media_id is then null; a personalised
-- avatar campaign has no campaign video and keeps this null), so its report says so
ALTER TABLE "video_campaigns" ADD COLUMN "media_deleted_at" timestamp with time zone;--> statement-breakpoint
-- the campaigns using a video (the Studio's delete dialog and its refusal) and the set null above
CREATE INDEX "video_landing_pages_media_idx" ON "video_landing_pages" USING btree ("media_id");--> statement-breakpoint
CREATE INDEX "video_campaigns_media_idx" ON "video_campaigns" USING btree ("media_id");
