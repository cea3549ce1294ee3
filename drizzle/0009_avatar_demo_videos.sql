ALTER TABLE "avatar_videos" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "avatar_videos" ADD COLUMN "demo_request_id" bigint;--> statement-breakpoint
ALTER TABLE "avatar_videos" ADD COLUMN "public_token" text;--> statement-breakpoint
ALTER TABLE "avatar_videos" ADD COLUMN "storage_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "avatar_videos_demo_request_uq" ON "avatar_videos" USING btree ("demo_request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "avatar_videos_public_token_uq" ON "avatar_videos" USING btree ("public_token");