-- The campaign report's own record of what happened to each recipient (a QA pass of the report):
-- opted_out_at: when the recipient opted out from this campaign's message (unsubscribe link, STOP reply,
--   spam complaint, a key pressed during the call). Set once and never cleared: a later START or a
--   Postmark reactivation clears the recipient's `reason` 'unsubscribed' (so a later opt-out is a new
--   one), and the report, which counted opt-outs by that reason, lost the past campaign's STOP.
-- reply_text: the latest SMS reply's text, for the report's recipients table (it was only on the
--   contact's timeline, the `sms_received` activity's metadata.body).
-- call_seconds: a completed call's length (Twilio CallDuration, seconds), for the call report's talk
--   time (it was only on the `call_completed` activity's metadata.duration).
-- Filled for earlier campaigns from the activities that recorded them (metadata.recipientId; a deleted
-- contact's activities kept no metadata), then, for opt-outs still marked by their reason, from that.
ALTER TABLE "campaign_recipients" ADD COLUMN "opted_out_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD COLUMN "reply_text" text;--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD COLUMN "call_seconds" integer;--> statement-breakpoint
UPDATE "campaign_recipients" r SET "opted_out_at" = a."at"
FROM (
  SELECT "workspace_id", ("metadata"->>'recipientId')::bigint AS "rid", min("created_at") AS "at"
  FROM "activities"
  WHERE "activity_type" IN ('opted_out', 'spam_complaint') AND "metadata"->>'recipientId' ~ '^[0-9]{1,18}$'
  GROUP BY 1, 2
) a
WHERE r."id" = a."rid" AND r."workspace_id" = a."workspace_id";--> statement-breakpoint
UPDATE "campaign_recipients" SET "opted_out_at" = "updated_at"
WHERE "opted_out_at" IS NULL AND "reason" IN ('unsubscribed', 'spam complaint');--> statement-breakpoint
UPDATE "campaign_recipients" r SET "reply_text" = a."body"
FROM (
  SELECT DISTINCT ON ("workspace_id", ("metadata"->>'recipientId'))
    "workspace_id", ("metadata"->>'recipientId')::bigint AS "rid", "metadata"->>'body' AS "body"
  FROM "activities"
  WHERE "activity_type" = 'sms_received' AND "metadata"->>'recipientId' ~ '^[0-9]{1,18}$'
    AND jsonb_typeof("metadata"->'body') = 'string'
  ORDER BY "workspace_id", ("metadata"->>'recipientId'), "created_at" DESC, "id" DESC
) a
WHERE r."id" = a."rid" AND r."workspace_id" = a."workspace_id" AND r."replied_at" IS NOT NULL;--> statement-breakpoint
UPDATE "campaign_recipients" r SET "call_seconds" = a."seconds"
FROM (
  SELECT DISTINCT ON ("workspace_id", ("metadata"->>'recipientId'))
    "workspace_id", ("metadata"->>'recipientId')::bigint AS "rid", ("metadata"->>'duration')::integer AS "seconds"
  FROM "activities"
  WHERE "activity_type" = 'call_completed' AND "metadata"->>'recipientId' ~ '^[0-9]{1,18}$'
    AND "metadata"->>'duration' ~ '^[0-9]{1,7}$'
  ORDER BY "workspace_id", ("metadata"->>'recipientId'), "created_at", "id"
) a
WHERE r."id" = a."rid" AND r."workspace_id" = a."workspace_id" AND r."delivered_at" IS NOT NULL;
