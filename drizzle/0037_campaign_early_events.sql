-- Provider status events whose message id matched no recipient yet (a Twilio status callback or a
-- Postmark webhook can arrive before the send that got the id has recorded it): held until that
-- send records the id, then applied and deleted; purged after an hour (ids no campaign sent).
CREATE TABLE "campaign_early_events" (
  "id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  "provider" text NOT NULL,
  "provider_message_id" text NOT NULL,
  "payload" jsonb NOT NULL,
  "received_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "campaign_early_events_message_idx" ON "campaign_early_events" ("provider_message_id");--> statement-breakpoint
CREATE INDEX "campaign_early_events_received_idx" ON "campaign_early_events" ("received_at");
