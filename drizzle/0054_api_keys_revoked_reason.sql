-- Why an API key was revoked (kept with the key: revoking never deletes it). A key its creator made
-- stops for good when the creator is removed from the workspace or leaves it (workspaces.service
-- removeMember / leaveWorkspace revoke it in the same transaction, through api.service); before,
-- such a key was only refused while its creator was away and worked again if they were re-invited
-- as an admin. Codes, as api.service REVOKED_REASONS words them:
--   manual            revoked in Settings > API keys (DELETE /api/api-keys/{id})
--   creator_removed   its creator was removed from the workspace
--   creator_left      its creator left the workspace
--   account_recovery  made while someone else held its creator's account (auth account recovery)
-- Keys revoked before this migration keep a null reason (shown as plain "Revoked").
ALTER TABLE "api_keys" ADD COLUMN "revoked_reason" text;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_revoked_reason_ck"
  CHECK ("revoked_reason" IS NULL OR ("revoked_at" IS NOT NULL AND "revoked_reason" IN ('manual', 'creator_removed', 'creator_left', 'account_recovery')));
