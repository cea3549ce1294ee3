-- Idempotent launches from the app (audit finding 7): the builders send a launch token (a UUID made
-- once per campaign draft; REST also takes it as the Idempotency-Key header), stored with the campaign
-- it created. Unique per workspace, so of two launches with one token (a double click, a retry after a
-- lost response, two tabs) only one inserts: the other waits on this index for the first to commit, gets
-- a unique violation and answers the first campaign with the first answer (launch_result). Partial: only
-- launches that carried a token are indexed (the public API keeps its own Idempotency-Key records).
ALTER TABLE "campaigns" ADD COLUMN IF NOT EXISTS "launch_token" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN IF NOT EXISTS "launch_result" jsonb;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "campaigns_workspace_launch_token_idx" ON "campaigns" USING btree ("workspace_id","launch_token") WHERE "launch_token" is not null;
