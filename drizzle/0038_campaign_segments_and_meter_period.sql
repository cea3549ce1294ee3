-- SMS segments of every attempt handed to the provider, per recipient: "resend to failed" used to
-- overwrite `segments` with the second message's count, so the report lost the first attempt's
-- (billed) segments. Rows already sent keep the one attempt they recorded.
ALTER TABLE "campaign_recipients" ADD COLUMN "segments_sent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "campaign_recipients" SET "segments_sent" = "segments" WHERE "sent_at" IS NOT NULL;--> statement-breakpoint
-- The billing period whose meter holds a campaign's unsent messages' plan units: a scheduled campaign
-- reserves in the period of its time, and parts sent in another period (a month boundary, a downgrade
-- that moved the periods) reserve there instead. Null for earlier campaigns: their launch's period.
ALTER TABLE "campaigns" ADD COLUMN "meter_period_start" timestamp with time zone;
