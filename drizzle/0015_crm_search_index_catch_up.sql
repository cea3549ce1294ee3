DROP INDEX "contacts_search_trgm_idx";--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "search_indexed" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX "contacts_search_pending_idx" ON "contacts" USING btree ("user_id") WHERE not search_indexed;--> statement-breakpoint
CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("search_text" gin_trgm_ops) WHERE search_indexed;--> statement-breakpoint
-- LIKE '%term%' selectivity comes from the histogram of search_text: with the default 100 bounds a
-- term in 2% of the contacts (a common last name) often matches none of them, the planner then
-- expects ~100 rows and the list takes the count-every-match path (250 ms at 1,000,000 contacts).
-- 1,000 bounds keep the estimate within a few percent.
ALTER TABLE "contacts" ALTER COLUMN "search_text" SET STATISTICS 1000;
