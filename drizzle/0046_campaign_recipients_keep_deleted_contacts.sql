-- A contact's deletion keeps the campaign recipients it had, with contact_id null (it deleted them):
-- a message already sent stays in its campaign's report and counts, and its unsubscribe link
-- (RFC 8058 one-click and the page, which CAN-SPAM needs working 30 days after the message) and the
-- provider's bounce / complaint events still find their recipient, so the address is suppressed.
-- The constraint keeps its name (the launch retries on it, campaigns.service isRecipientContactGone);
-- the existing rows already satisfy it, so it is added NOT VALID and validated after.
ALTER TABLE "campaign_recipients" ALTER COLUMN "contact_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_recipients" DROP CONSTRAINT IF EXISTS "campaign_recipients_contact_id_contacts_id_fk";--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD CONSTRAINT "campaign_recipients_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "campaign_recipients" VALIDATE CONSTRAINT "campaign_recipients_contact_id_contacts_id_fk";
