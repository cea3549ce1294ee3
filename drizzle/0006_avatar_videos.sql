CREATE TABLE "avatar_videos" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"vendor_video_id" text,
	"status" text DEFAULT 'created' NOT NULL,
	"vendor_status" text,
	"script" text NOT NULL,
	"title" text NOT NULL,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"transient_failures" integer DEFAULT 0 NOT NULL,
	"vendor_video_url" text,
	"media_id" bigint,
	"duration_seconds" double precision,
	"deadline_at" timestamp with time zone NOT NULL,
	"next_poll_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "avatar_videos" ADD CONSTRAINT "avatar_videos_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "avatar_videos" ADD CONSTRAINT "avatar_videos_media_id_media_items_id_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media_items"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "avatar_videos_user_created_idx" ON "avatar_videos" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "avatar_videos_vendor_uq" ON "avatar_videos" USING btree ("provider","vendor_video_id");