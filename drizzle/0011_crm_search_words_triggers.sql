-- Custom SQL migration: the per-user search dictionary (contact_words) kept by statement-level
-- triggers with transition tables (one set-based insert per statement, not per row), and backfilled.
CREATE OR REPLACE FUNCTION contact_words_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_words (user_id, word)
  SELECT DISTINCT n.user_id, w
  FROM new_rows n,
    regexp_split_to_table(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.company, '') || ' ' || coalesce(n.email, '')), '[^[:alnum:]]+') w
  WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contacts_words_ins AFTER INSERT ON contacts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contact_words_add();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_words_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_words (user_id, word)
  SELECT DISTINCT n.user_id, w
  FROM new_rows n JOIN old_rows o ON o.id = n.id,
    regexp_split_to_table(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.company, '') || ' ' || coalesce(n.email, '')), '[^[:alnum:]]+') w
  WHERE (n.first_name, n.last_name, n.company, n.email) IS DISTINCT FROM (o.first_name, o.last_name, o.company, o.email)
    AND length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contacts_words_upd AFTER UPDATE ON contacts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contact_words_upd();
--> statement-breakpoint
INSERT INTO contact_words (user_id, word)
SELECT DISTINCT c.user_id, w
FROM contacts c,
  regexp_split_to_table(lower(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '') || ' ' || coalesce(c.company, '') || ' ' || coalesce(c.email, '')), '[^[:alnum:]]+') w
WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
ON CONFLICT DO NOTHING;
