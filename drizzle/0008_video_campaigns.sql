CREATE TABLE "video_campaigns" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "video_campaigns_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"public_id" text NOT NULL,
	"media_id" bigint,
	"campaign_id" bigint,
	"delivery_method" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"cta_label" text,
	"cta_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "video_campaigns" ADD CONSTRAINT "video_campaigns_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_campaigns" ADD CONSTRAINT "video_campaigns_media_id_media_items_id_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media_items"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "video_campaigns_public_uq" ON "video_campaigns" USING btree ("public_id");--> statement-breakpoint
CREATE INDEX "video_campaigns_campaign_idx" ON "video_campaigns" USING btree ("campaign_id");