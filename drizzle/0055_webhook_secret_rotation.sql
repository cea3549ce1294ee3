-- Webhook signing secret rotation ("Roll secret", as Stripe and Svix offer): rolling an endpoint's
-- secret keeps the old one in "previous_secret" until "previous_secret_expires_at", and while that is
-- in the future each delivery is signed with both (webhook-signature: "v1,<new> v1,<old>", Standard
-- Webhooks), so a receiver can switch to the new secret without losing deliveries. Both null: no
-- previous secret (never rolled, or rolled with an immediate expiry).
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret" text;
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_expires_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_previous_secret_ck"
  CHECK (("previous_secret" IS NULL) = ("previous_secret_expires_at" IS NULL));
