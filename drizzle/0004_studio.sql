CREATE TABLE "contact_counts" (
	"user_id" uuid NOT NULL,
	"lifecycle_stage" text NOT NULL,
	"lead_status" text NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "contact_counts_user_id_lifecycle_stage_lead_status_pk" PRIMARY KEY("user_id","lifecycle_stage","lead_status")
);
--> statement-breakpoint
CREATE TABLE "contact_imports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"file_name" text NOT NULL,
	"file_size" bigint NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"mapping" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"on_duplicate" text DEFAULT 'skip' NOT NULL,
	"bytes_processed" bigint DEFAULT 0 NOT NULL,
	"rows_processed" integer DEFAULT 0 NOT NULL,
	"created" integer DEFAULT 0 NOT NULL,
	"updated" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error_count" integer DEFAULT 0 NOT NULL,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "media_edits" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "media_edits_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"media_id" bigint NOT NULL,
	"mode" text NOT NULL,
	"edl" jsonb NOT NULL,
	"input_key" text NOT NULL,
	"save_as_draft" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"progress" real DEFAULT 0 NOT NULL,
	"error" text,
	"output_key" text,
	"output_duration_seconds" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "media_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "media_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"source" text DEFAULT 'upload' NOT NULL,
	"is_draft" boolean DEFAULT false NOT NULL,
	"processing_status" text DEFAULT 'processing' NOT NULL,
	"processing_error" text,
	"mime_type" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"original_size_bytes" bigint NOT NULL,
	"duration_seconds" double precision,
	"width" integer,
	"height" integer,
	"probe" jsonb,
	"peaks" jsonb,
	"current_key" text,
	"poster_key" text,
	"gif_key" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "media_renditions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "media_renditions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"media_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"storage_key" text NOT NULL,
	"mime_type" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"duration_seconds" double precision,
	"edit_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_landing_pages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "video_landing_pages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"token" text NOT NULL,
	"media_id" bigint NOT NULL,
	"campaign_id" text,
	"contact_id" bigint,
	"recipient_name" text,
	"recipient_email" text,
	"recipient_phone" text,
	"message" text DEFAULT '' NOT NULL,
	"cta_label" text,
	"cta_url" text,
	"view_count" integer DEFAULT 0 NOT NULL,
	"max_percent" integer DEFAULT 0 NOT NULL,
	"first_viewed_at" timestamp with time zone,
	"last_viewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_view_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "video_view_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"page_id" bigint NOT NULL,
	"event" text NOT NULL,
	"percent" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "contacts_user_stage_idx";--> statement-breakpoint
DROP INDEX "contacts_user_status_idx";--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(company, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(phone_raw, '') || ' ' || coalesce(mobile, ''))) STORED;--> statement-breakpoint
ALTER TABLE "contact_imports" ADD CONSTRAINT "contact_imports_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media_edits" ADD CONSTRAINT "media_edits_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media_edits" ADD CONSTRAINT "media_edits_media_id_media_items_id_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media_items" ADD CONSTRAINT "media_items_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media_renditions" ADD CONSTRAINT "media_renditions_media_id_media_items_id_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_landing_pages" ADD CONSTRAINT "video_landing_pages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_landing_pages" ADD CONSTRAINT "video_landing_pages_media_id_media_items_id_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_view_events" ADD CONSTRAINT "video_view_events_page_id_video_landing_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."video_landing_pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_imports_user_idx" ON "contact_imports" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "media_edits_media_idx" ON "media_edits" USING btree ("media_id","created_at");--> statement-breakpoint
CREATE INDEX "media_edits_user_idx" ON "media_edits" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "media_items_user_created_idx" ON "media_items" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "media_renditions_media_idx" ON "media_renditions" USING btree ("media_id");--> statement-breakpoint
CREATE UNIQUE INDEX "media_renditions_key_uq" ON "media_renditions" USING btree ("storage_key");--> statement-breakpoint
CREATE UNIQUE INDEX "video_landing_pages_token_uq" ON "video_landing_pages" USING btree ("token");--> statement-breakpoint
CREATE INDEX "video_landing_pages_campaign_idx" ON "video_landing_pages" USING btree ("campaign_id");--> statement-breakpoint
CREATE INDEX "video_landing_pages_user_idx" ON "video_landing_pages" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "video_view_events_page_idx" ON "video_view_events" USING btree ("page_id","created_at");--> statement-breakpoint
CREATE INDEX "contacts_user_id_idx" ON "contacts" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "contacts_user_stage_id_idx" ON "contacts" USING btree ("user_id","lifecycle_stage","id");--> statement-breakpoint
CREATE INDEX "contacts_user_status_id_idx" ON "contacts" USING btree ("user_id","lead_status","id");--> statement-breakpoint
CREATE INDEX "contacts_user_phone_idx" ON "contacts" USING btree ("user_id","phone");--> statement-breakpoint
CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("search_text" gin_trgm_ops);