-- Who did what, where 0064 left gaps (a small team's contact page and settings must say it):
--   contacts.created_by_api_key_id, notes.created_by_api_key_id: the API key a contact or note was
--     added through (the public API, /api/v1), shown as "Added through API key 'Zapier'". A key is
--     never deleted when revoked (api_keys.revoked_at), so its name stays readable; SET NULL only for
--     a deleted key row. Null for rows added by a person and for rows from before this migration.
--   activities.created_by: the person who made a timeline entry (an email, SMS or call sent from the
--     contact's page, a note written, edited or deleted), shown as "Sent by Cara Member"; null for
--     what nobody did by hand (campaign sends, replies, opens, imports) and for older rows.
--   webhook_endpoints.reenabled_by: who last enabled the endpoint again; the endpoint then delivers
--     with their authority (they must stay an owner or admin), while created_by keeps who added it
--     (re-enabling used to overwrite created_by). Null until someone re-enables it.
-- The partial indexes serve the foreign keys' ON DELETE SET NULL (a deleted key or account) without
-- a scan of every contact, note or activity.
ALTER TABLE "contacts" ADD COLUMN "created_by_api_key_id" uuid REFERENCES "api_keys"("id") ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX "contacts_created_by_api_key_idx" ON "contacts" ("created_by_api_key_id") WHERE "created_by_api_key_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "created_by_api_key_id" uuid REFERENCES "api_keys"("id") ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX "notes_created_by_api_key_idx" ON "notes" ("created_by_api_key_id") WHERE "created_by_api_key_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX "activities_created_by_idx" ON "activities" ("created_by") WHERE "created_by" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "reenabled_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;
