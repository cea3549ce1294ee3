-- Registration and email changes ask whether an address waits for another account's email-recovery
-- link (auth emailHeldForRecovery): unused recovery links by lower(email).
CREATE INDEX IF NOT EXISTS "auth_tokens_recovery_email_idx" ON "auth_tokens" (lower("email")) WHERE purpose = 'email_recovery' and used_at is null;--> statement-breakpoint
-- An inbound SMS, an inbound call to the callback number and its menu's key look the caller's number
-- up across workspaces (campaigns selectRecipientsAtAddress); the only address index led with the workspace.
CREATE INDEX IF NOT EXISTS "campaign_recipients_address_idx" ON "campaign_recipients" ("address","channel");
