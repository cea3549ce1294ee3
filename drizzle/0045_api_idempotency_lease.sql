-- An Idempotency-Key claim in progress is a lease its running request renews (api.service
-- idempotencyLease): a retry with the same key takes it over only once the lease lapsed (its owner
-- died), no longer 5 minutes after the claim however long the first request still ran. claim_id fences
-- the owner's renewals and its stored response. Claims made before this have neither: they lapse 5
-- minutes after created_at, as before.
ALTER TABLE "api_idempotency_keys" ADD COLUMN IF NOT EXISTS "claim_id" uuid;--> statement-breakpoint
ALTER TABLE "api_idempotency_keys" ADD COLUMN IF NOT EXISTS "lease_expires_at" timestamp with time zone;
