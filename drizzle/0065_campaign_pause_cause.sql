-- What paused a campaign, as its own column: the campaigns list and report said 'its launcher left'
-- or 'by your plan' by reading the pause reason's text (`error` starting "Paused because ", the words
-- campaigns.departure departurePauseReason writes), so a plan's sentence that happened to begin with
-- those words read as a departure. Codes:
--   plan       the send engine paused it: the workspace's plan no longer allowed its messages
--              (campaigns.queries pauseCampaignForPlan)
--   departure  the member who launched it left or was removed while it was still scheduled
--              (campaigns.queries pauseScheduledCampaignsOf)
-- Null when it is not paused, and for a pause by a person (Pause button, POST /campaigns/{id}/pause).
-- Only a paused campaign has one: resume and cancel clear it (the check refuses a cause on any other
-- status). Paused campaigns of before are filled by the rule the screens used.
ALTER TABLE "campaigns" ADD COLUMN "pause_cause" text;--> statement-breakpoint
UPDATE "campaigns" SET "pause_cause" = CASE WHEN "error" LIKE 'Paused because %' THEN 'departure' ELSE 'plan' END
WHERE "status" = 'paused' AND "error" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_pause_cause_ck"
  CHECK ("pause_cause" IS NULL OR ("status" = 'paused' AND "pause_cause" IN ('plan', 'departure')));
