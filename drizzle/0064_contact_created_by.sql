-- Who added a contact by hand (the Add Contact form, POST /api/contacts, tRPC crm.create): a team's
-- contact page says "Added by Cara Member". Null for contacts added before this migration, through the
-- public API, an import (its contact_imports row keeps who imported the file) or a campaign's list, and
-- once that account is deleted. The partial index serves the foreign key's ON DELETE SET NULL when an
-- account is deleted (no scan of every contact).
ALTER TABLE "contacts" ADD COLUMN "created_by" uuid REFERENCES "users"("id") ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX "contacts_created_by_idx" ON "contacts" ("created_by") WHERE "created_by" IS NOT NULL;
