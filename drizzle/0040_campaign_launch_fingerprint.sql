-- Launches without a launch token (an outside client's POST /api/campaigns/email/launch, sms/launch,
-- /api/campaigns, /api/campaigns/video or /api/v1/campaigns that sends no Idempotency-Key) keep the
-- SHA-256 of their normalised request (campaigns.delivery launchFingerprint: channel, name, content,
-- schedule, recipients). A launch whose fingerprint a campaign of the workspace created within the last
-- 10 minutes (not cancelled) answers that campaign instead of creating and sending a second one; the
-- launches of one fingerprint take a transaction advisory lock first, so of two at once the second sees
-- the first's committed row. Not unique: the same campaign launched again after the window is a new one.
ALTER TABLE "campaigns" ADD COLUMN IF NOT EXISTS "launch_fingerprint" text;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "campaigns_workspace_launch_fingerprint_idx" ON "campaigns" USING btree ("workspace_id","launch_fingerprint","created_at") WHERE "launch_fingerprint" is not null;
