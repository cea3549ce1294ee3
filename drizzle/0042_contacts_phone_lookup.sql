-- The inbound SMS webhook looks a number up across workspaces: the contacts a workspace texted from
-- the contact page at that number (phone or mobile) take a STOP, START or HELP reply too.
CREATE INDEX IF NOT EXISTS "contacts_phone_idx" ON "contacts" ("phone") WHERE phone is not null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contacts_mobile_idx" ON "contacts" ("mobile") WHERE mobile is not null;
