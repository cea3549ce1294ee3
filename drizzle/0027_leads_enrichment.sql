-- Business lead search (issue 13): website enrichment per search (status and progress, the filters
-- applied once enrichment has found emails and social profiles), and the purge of Google content
-- other than the place id after the period Google's terms allow.
ALTER TABLE "lead_searches" ADD COLUMN "enrich" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "lead_searches" ADD COLUMN "enrich_status" text DEFAULT 'none' NOT NULL;
--> statement-breakpoint
ALTER TABLE "lead_searches" ADD COLUMN "enrich_done" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "lead_searches" ADD COLUMN "enrich_total" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "lead_searches" ADD COLUMN "deferred_filters" text[] DEFAULT '{}'::text[] NOT NULL;
--> statement-breakpoint
ALTER TABLE "lead_searches" ADD COLUMN "content_purged_at" timestamp with time zone;
--> statement-breakpoint
CREATE INDEX "lead_searches_google_unpurged_idx" ON "lead_searches" ("finished_at") WHERE "provider" = 'google' AND "content_purged_at" IS NULL;
