-- Contacts list order (issue 11, "contacts list on imported contacts is linear"): newest first by
-- (created_at desc, id desc), unique, with one index per list shape so page 1 is a backward index scan
-- that stops after one page. Ordering by id alone let the planner walk the primary key backwards and
-- filter by workspace: 3.95 s for page 1 of a workspace whose 300,000 contacts were older than another
-- workspace's 300,000 (it skipped all of those), since the primary key provides "id desc" too.
-- No index but these provides (created_at, id) order within a workspace.
CREATE INDEX "contacts_ws_created_id_idx" ON "contacts" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "contacts_ws_stage_created_id_idx" ON "contacts" USING btree ("workspace_id","lifecycle_stage","created_at","id");--> statement-breakpoint
CREATE INDEX "contacts_ws_status_created_id_idx" ON "contacts" USING btree ("workspace_id","lead_status","created_at","id");--> statement-breakpoint
DROP INDEX IF EXISTS "contacts_user_id_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "contacts_user_stage_id_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "contacts_user_status_id_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "contacts_user_created_idx";
