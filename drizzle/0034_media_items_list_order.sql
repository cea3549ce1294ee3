-- Media library order (GET /api/v1/media reads one keyset page in SQL): newest first by
-- (created_at desc, id desc) within a workspace, with the row comparison
-- (created_at, id) < (cursor ts, cursor id). The old (workspace_id, created_at) index could not take
-- the id of the comparison nor give the id order of ties; this one serves the whole key, so a page
-- is a backward index scan that stops after limit + 1 rows. It also serves every read the old one
-- did (the studio's whole-library list orders by the same key), so the old one goes.
CREATE INDEX IF NOT EXISTS "media_items_ws_created_id_idx" ON "media_items" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
DROP INDEX IF EXISTS "media_items_user_created_idx";
