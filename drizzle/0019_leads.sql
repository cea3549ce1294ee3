-- Business lead search (issue 13): saved searches, search runs and their results, per workspace.
CREATE TABLE "lead_saved_searches" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "workspace_id" uuid NOT NULL REFERENCES "workspaces"("id") ON DELETE CASCADE,
  "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
  "search_name" text NOT NULL,
  "location" text NOT NULL,
  "business_type" text NOT NULL,
  "radius" double precision NOT NULL,
  "circle_size" double precision NOT NULL,
  "filters" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "preset" text,
  "result_count" integer DEFAULT 0 NOT NULL,
  "last_place_ids" text[] DEFAULT '{}'::text[] NOT NULL,
  "last_run_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "lead_saved_searches_ws_idx" ON "lead_saved_searches" ("workspace_id", "created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "lead_saved_searches_ws_name_uq" ON "lead_saved_searches" ("workspace_id", lower("search_name"));
--> statement-breakpoint
CREATE TABLE "lead_searches" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "workspace_id" uuid NOT NULL REFERENCES "workspaces"("id") ON DELETE CASCADE,
  "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
  "saved_search_id" uuid REFERENCES "lead_saved_searches"("id") ON DELETE SET NULL,
  "location" text NOT NULL,
  "business_type" text NOT NULL,
  "radius" double precision NOT NULL,
  "circle_size" double precision NOT NULL,
  "filters" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "preset" text,
  "provider" text NOT NULL,
  "latitude" double precision,
  "longitude" double precision,
  "status" text DEFAULT 'running' NOT NULL,
  "circles_done" integer DEFAULT 0 NOT NULL,
  "circles_total" integer DEFAULT 0 NOT NULL,
  "api_calls" integer DEFAULT 0 NOT NULL,
  "total_results" integer DEFAULT 0 NOT NULL,
  "capped" boolean DEFAULT false NOT NULL,
  "error" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "lead_searches_ws_created_idx" ON "lead_searches" ("workspace_id", "created_at");
--> statement-breakpoint
CREATE TABLE "lead_results" (
  "search_id" uuid NOT NULL REFERENCES "lead_searches"("id") ON DELETE CASCADE,
  "place_id" text NOT NULL,
  "position" integer NOT NULL,
  "data" jsonb NOT NULL,
  "is_new" boolean DEFAULT false NOT NULL,
  PRIMARY KEY ("search_id", "place_id")
);
