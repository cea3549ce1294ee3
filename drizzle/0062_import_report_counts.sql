-- A CSV import's report counts (phone_invalid, fields_cleared, opt_outs_kept) were counted from the row
-- reports it stores, which stop at 10,000 (crm.import MAX_STORED_ERRORS): a 50,000-row file of people
-- who had opted out said "10,000 opt-outs kept". The importer's own counts are stored beside them;
-- null for imports before this migration, whose figures stay counted from their stored reports.
ALTER TABLE "contact_imports" ADD COLUMN "phone_invalid" integer;--> statement-breakpoint
ALTER TABLE "contact_imports" ADD COLUMN "fields_cleared" integer;--> statement-breakpoint
ALTER TABLE "contact_imports" ADD COLUMN "opt_outs_kept" integer;
