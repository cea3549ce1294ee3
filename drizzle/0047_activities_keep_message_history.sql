-- A contact's deletion keeps their message history for the dashboard (Messages Sent, Engagement
-- rate): the deleting statement (crm.queries deleteContactRow, deleteContactsWhere[ReturningIds])
-- first detaches the contact's sent and engaged activities (contact_id null, former_contact_id =
-- the id, metadata emptied); the rest still cascade with the contact. contact_id keeps its ON
-- DELETE CASCADE foreign key, so any other delete path behaves as before. Both statements change
-- only the catalog (a nullable column without a default rewrites nothing).
ALTER TABLE "activities" ALTER COLUMN "contact_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "former_contact_id" bigint;
