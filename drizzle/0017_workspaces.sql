-- Workspaces become the tenant (issue 10). Every user gets a personal workspace whose id is the user's id,
-- so every tenant row moves into it by renaming its user_id column to workspace_id: no row or id changes.
CREATE TABLE "workspaces" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "name" text NOT NULL,
  "slug" text NOT NULL,
  "owner_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE RESTRICT,
  "plan" text DEFAULT 'free' NOT NULL,
  "subscription_status" text,
  "subscription_tier" text,
  "current_period_end" timestamp with time zone,
  "cancel_at_period_end" boolean DEFAULT false NOT NULL,
  "stripe_customer_id" text,
  "stripe_subscription_id" text,
  "first_paid_at" timestamp with time zone,
  "logo_url" text,
  "brand_color" text,
  "sender_name" text,
  "hide_branding" boolean DEFAULT false NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "workspaces_slug_uq" ON "workspaces" ("slug");
--> statement-breakpoint
CREATE INDEX "workspaces_owner_idx" ON "workspaces" ("owner_id");
--> statement-breakpoint
CREATE TABLE "workspace_members" (
  "workspace_id" uuid NOT NULL REFERENCES "workspaces"("id") ON DELETE CASCADE,
  "user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "role" text NOT NULL,
  "joined_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "workspace_members_pk" PRIMARY KEY ("workspace_id", "user_id"),
  CONSTRAINT "workspace_members_role_ck" CHECK ("role" IN ('owner', 'admin', 'member'))
);
--> statement-breakpoint
CREATE INDEX "workspace_members_user_idx" ON "workspace_members" ("user_id");
--> statement-breakpoint
CREATE TABLE "workspace_invites" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "workspace_id" uuid NOT NULL REFERENCES "workspaces"("id") ON DELETE CASCADE,
  "email" text NOT NULL,
  "role" text NOT NULL,
  "token_hash" text NOT NULL,
  "invited_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "accepted_at" timestamp with time zone,
  "accepted_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
  "revoked_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "workspace_invites_role_ck" CHECK ("role" IN ('admin', 'member'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_invites_token_uq" ON "workspace_invites" ("token_hash");
--> statement-breakpoint
CREATE INDEX "workspace_invites_workspace_idx" ON "workspace_invites" ("workspace_id", "created_at");
--> statement-breakpoint
CREATE INDEX "workspace_invites_pending_idx" ON "workspace_invites" ("workspace_id") WHERE accepted_at is null and revoked_at is null;
--> statement-breakpoint
INSERT INTO "workspaces" ("id", "name", "slug", "owner_id", "plan", "subscription_status", "subscription_tier", "created_at", "updated_at")
SELECT u.id,
  coalesce(nullif(btrim(u.business_name), ''), u.name || '''s workspace'),
  coalesce(nullif(btrim(regexp_replace(lower(coalesce(nullif(btrim(u.business_name), ''), u.name)), '[^a-z0-9]+', '-', 'g'), '-'), ''), 'workspace') || '-' || substr(replace(u.id::text, '-', ''), 1, 8),
  u.id, u.plan, u.subscription_status, u.subscription_tier, u.created_at, now()
FROM "users" u;
--> statement-breakpoint
INSERT INTO "workspace_members" ("workspace_id", "user_id", "role", "joined_at") SELECT u.id, u.id, 'owner', u.created_at FROM "users" u;
--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "plan";
--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "subscription_status";
--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "subscription_tier";
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "workspace_id" uuid REFERENCES "workspaces"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "sessions" SET "workspace_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "activities" DROP CONSTRAINT "activities_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "contacts" DROP CONSTRAINT "contacts_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "notes" DROP CONSTRAINT "notes_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "segments" DROP CONSTRAINT "segments_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "tags" DROP CONSTRAINT "tags_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "suppressions" DROP CONSTRAINT "suppressions_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "contact_imports" DROP CONSTRAINT "contact_imports_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "media_edits" DROP CONSTRAINT "media_edits_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "media_items" DROP CONSTRAINT "media_items_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "video_landing_pages" DROP CONSTRAINT "video_landing_pages_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "avatar_videos" DROP CONSTRAINT "avatar_videos_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "campaign_recipients" DROP CONSTRAINT "campaign_recipients_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "video_campaigns" DROP CONSTRAINT "video_campaigns_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "outbox_messages" DROP CONSTRAINT "outbox_messages_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "activities" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "contacts" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "notes" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "segments" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "tags" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "suppressions" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "contact_counts" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "contact_imports" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "media_edits" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "media_items" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "video_landing_pages" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "avatar_videos" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "campaign_recipients" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "campaigns" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "video_campaigns" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "contact_words" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "outbox_messages" RENAME COLUMN "user_id" TO "workspace_id";
--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "notes" ADD CONSTRAINT "notes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "contact_imports" ADD CONSTRAINT "contact_imports_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "media_edits" ADD CONSTRAINT "media_edits_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "media_items" ADD CONSTRAINT "media_items_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "video_landing_pages" ADD CONSTRAINT "video_landing_pages_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "avatar_videos" ADD CONSTRAINT "avatar_videos_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD CONSTRAINT "campaign_recipients_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "video_campaigns" ADD CONSTRAINT "video_campaigns_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "outbox_messages" ADD CONSTRAINT "outbox_messages_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE SET NULL;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "campaigns" SET "created_by" = "workspace_id" WHERE "workspace_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "notes" SET "created_by" = "workspace_id" WHERE "workspace_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "media_items" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "media_items" SET "created_by" = "workspace_id" WHERE "workspace_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "contact_imports" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "contact_imports" SET "created_by" = "workspace_id" WHERE "workspace_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "avatar_videos" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "avatar_videos" SET "created_by" = "workspace_id" WHERE "workspace_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "media_edits" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "media_edits" SET "created_by" = "workspace_id" WHERE "workspace_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "video_campaigns" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
UPDATE "video_campaigns" SET "created_by" = "workspace_id" WHERE "workspace_id" IS NOT NULL;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.contact_words_upd()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO contact_words (workspace_id, word)
  SELECT DISTINCT n.workspace_id, w
  FROM new_rows n JOIN old_rows o ON o.id = n.id,
    regexp_split_to_table(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.company, '')), '[^[:alnum:]]+') w
  WHERE (n.first_name, n.last_name, n.company) IS DISTINCT FROM (o.first_name, o.last_name, o.company)
    AND length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$

;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.contact_words_add()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
  IF coalesce(current_setting('pitchwise.defer_contact_words', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO contact_words (workspace_id, word)
  SELECT DISTINCT n.workspace_id, w
  FROM new_rows n,
    regexp_split_to_table(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.company, '')), '[^[:alnum:]]+') w
  WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$

;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.contact_counts_ins()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO contact_counts (workspace_id, lifecycle_stage, lead_status, n)
  SELECT workspace_id, lifecycle_stage, lead_status, count(*) FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (workspace_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$

;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.contact_counts_del()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO contact_counts (workspace_id, lifecycle_stage, lead_status, n)
  SELECT workspace_id, lifecycle_stage, lead_status, -count(*) FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (workspace_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$

;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.contact_counts_upd()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO contact_counts (workspace_id, lifecycle_stage, lead_status, n)
  SELECT workspace_id, lifecycle_stage, lead_status, sum(d) FROM (
    SELECT workspace_id, lifecycle_stage, lead_status, -1 AS d FROM old_rows
    UNION ALL
    SELECT workspace_id, lifecycle_stage, lead_status, 1 AS d FROM new_rows
  ) x GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (workspace_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$

;
