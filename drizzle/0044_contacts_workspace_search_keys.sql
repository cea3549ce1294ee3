-- Contact search reads only the workspace's own trigrams (issue 11). The search GIN index led with
-- workspace_id (btree_gin, 0031), but its trigram posting lists held every workspace's contacts and its
-- workspace entry every contact of the workspace: a search intersected both, so its cost grew with the
-- whole table and with the size of the workspace. Here each trigram is keyed by the workspace (the
-- first 4 base64 characters, 24 bits, of its id, then the trigram as pg_trgm's show_trgm gives it),
-- so a posting list holds only that workspace's contacts with the trigram (a rare other workspace
-- sharing the 24 bits only adds candidates the query's workspace_id condition drops). bench:crm,
-- 1,000,000 contacts beside another 1,000,000, GET /api/contacts service p50: 'lindqvist42' 11.8 -> 3.7 ms,
-- 'hooli 441' 12.9 -> 6.5 ms, the typo fallback 20.8 -> 14.8 ms; all queries' HTTP p95 20.2 -> 15.1 ms.
-- Keys compare bytewise (COLLATE "C"). A search pairs the index with the LIKE it always tested
-- (crm.queries searchArms): contact_search_query_keys gives the term's trigrams that any text
-- containing the term has (its inner trigrams, and a word's padded ones where the term itself bounds
-- the word), so the index finds every match and the LIKE drops the rest. The term's first and last
-- words may go on in the text ('ith6' in 'smith627'), so their outer padded trigrams are left out: they
-- are the ones show_trgm(term) has and show_trgm('q' || term || 'q') has not.
CREATE OR REPLACE FUNCTION contact_search_keys(ws uuid, txt text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ select string_to_array(left(encode(uuid_send(ws), 'base64'), 4) || array_to_string(public.show_trgm(txt), ',' || left(encode(uuid_send(ws), 'base64'), 4)), ',') $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_search_query_keys(ws uuid, term text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ select array(select left(encode(uuid_send(ws), 'base64'), 4) || t from (select unnest(public.show_trgm(term)) intersect select unnest(public.show_trgm('q' || term || 'q'))) s(t)) $$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contacts_ws_search_keys_idx" ON "contacts" USING gin ((contact_search_keys(workspace_id, search_text)) COLLATE "C") WHERE search_indexed;--> statement-breakpoint
-- no planner statistics for the index's expression: ANALYZE would compute it for every sampled row
-- (a 300,000-row sample for search_text's statistics target), and the search strategy's estimate
-- reads search_text's own statistics (crm.queries contactWhere "estimate")
ALTER INDEX "contacts_ws_search_keys_idx" ALTER COLUMN 1 SET STATISTICS 0;--> statement-breakpoint
DROP INDEX IF EXISTS "contacts_ws_search_trgm_idx";
