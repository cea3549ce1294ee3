-- contact_search_query_keys (0044) in PL/pgSQL, same body and result. As a LANGUAGE sql function whose
-- body holds a sub-select (array(select ... intersect ...)) Postgres cannot inline it, and runs it
-- through the SQL-function executor, which parses and plans that body again in every statement that
-- calls it: each search's page statement (crm.queries selectSearchPage, a prepared statement on its
-- generic plan, calls it once per run as the trigram index scan's key) and each planning with the
-- term inlined (the first runs of a prepared statement, the search estimate). PL/pgSQL keeps the
-- body's plan for the connection's life. pgbench -M prepared of the search page statement on its
-- generic plan (bench:crm's load account, 'garcia': 417 of 10,000 contacts), six interleaved runs of 800
-- each: 1.436 -> 1.350 ms average latency. Planned with the term inlined it gains nothing measurable.
CREATE OR REPLACE FUNCTION contact_search_query_keys(ws uuid, term text) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$ begin return array(select left(encode(uuid_send(ws), 'base64'), 4) || t from (select unnest(public.show_trgm(term)) intersect select unnest(public.show_trgm('q' || term || 'q'))) s(t)); end $$;
