-- Deleting a workspace (features/account) takes several steps outside one transaction: the payments
-- vendor's subscription is ended, unfinished campaigns are cancelled, then the row goes.
-- "deletion_started_at" marks a workspace whose deletion has begun, so an invitation cannot be
-- accepted into it meanwhile (that made an account deletion stop with a conflict after its
-- subscription was already ended); a failed deletion clears it, and a mark older than 15 minutes
-- (a process that died mid-way) no longer counts.
ALTER TABLE "workspaces" ADD COLUMN "deletion_started_at" timestamp with time zone;
--> statement-breakpoint
-- The workspaces this deployment deleted, with the payments vendor's customer and subscription they
-- last had: a checkout completed at the vendor after its workspace was deleted (opened in another
-- tab before) makes a subscription no workspace holds; its events find the workspace here, and the
-- subscription is ended and refunded (it grants nothing). Only this deployment's own deleted
-- workspaces count, so a vendor account shared with another deployment never has that one's
-- subscriptions ended. No foreign key: the workspace row is gone.
CREATE TABLE "billing_deleted_workspaces" (
  "workspace_id" uuid PRIMARY KEY NOT NULL,
  "stripe_customer_id" text,
  "stripe_subscription_id" text,
  "deleted_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "billing_deleted_workspaces_customer_idx" ON "billing_deleted_workspaces" ("stripe_customer_id")
  WHERE "stripe_customer_id" IS NOT NULL;
