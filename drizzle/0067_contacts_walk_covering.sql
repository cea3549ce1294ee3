-- A broad search's page (issue 11, the load benchmark's search leg): a term with many matches is paged
-- by walking the workspace's (created_at, id) index newest first and testing each row's search text
-- (crm.queries selectBroadSearchPage, and selectSearchPage past SEARCH_COUNT_CAP matches). Each row
-- the walk passed over was read from the table: 'garcia', one contact in 24 of 100,000, read 1,205
-- rows (1,231 buffers) for one page of 51. The list index now carries the search text, lifecycle stage
-- and lead status (INCLUDE), so the walk is an index-only scan that reads the table only for the page's
-- own rows: Postgres time per page 1.49 -> 1.0 ms (pgbench, one client, the statement as run). The
-- index grows from 9.8 MB to 17 MB per 110,000 contacts. It replaces the old index of the same keys.
DROP INDEX IF EXISTS "contacts_ws_created_id_idx";--> statement-breakpoint
CREATE INDEX "contacts_ws_created_id_idx" ON "contacts" USING btree ("workspace_id","created_at","id") INCLUDE ("search_text","lifecycle_stage","lead_status");
