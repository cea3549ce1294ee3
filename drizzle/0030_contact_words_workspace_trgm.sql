-- Typo correction reads the workspace's own search dictionary (issue 11): the trigram GIN index of
-- contact_words leads with workspace_id (btree_gin), so a lookup no longer reads and throws away the
-- similar words of every other workspace (bench DB, two workspaces of ~50,000 words: 13.4 -> 5.5 ms for
-- 'rasmusen'; with many tenants the old index read every tenant's similar words).
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX IF EXISTS "contact_words_trgm_idx";--> statement-breakpoint
CREATE INDEX "contact_words_ws_trgm_idx" ON "contact_words" USING gin ("workspace_id", "word" gin_trgm_ops);
