-- SMS segments of every attempt handed to the provider, per recipient: "resend to failed" used to
-- overwrite `segments` with the second message's count, so the report lost the first attempt's
-- (billed) segments. Rows already sent keep the one attempt they recorded.
ALTER TABLE "campaign_recipients" ADD COLUMN "segments_sent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "campaign_recipients" SET "segments_sent" = "segments" WHERE "sent_at" IS NOT NULL;
