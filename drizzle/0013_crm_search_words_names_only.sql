-- Custom SQL migration: the search dictionary keeps the words of names and companies only. Email
-- local parts are mostly unique words, and indexing them made an import of 100,000 contacts spend
-- more time in the trigger than in the insert.
CREATE OR REPLACE FUNCTION contact_words_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_words (user_id, word)
  SELECT DISTINCT n.user_id, w
  FROM new_rows n,
    regexp_split_to_table(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.company, '')), '[^[:alnum:]]+') w
  WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_words_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_words (user_id, word)
  SELECT DISTINCT n.user_id, w
  FROM new_rows n JOIN old_rows o ON o.id = n.id,
    regexp_split_to_table(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.company, '')), '[^[:alnum:]]+') w
  WHERE (n.first_name, n.last_name, n.company) IS DISTINCT FROM (o.first_name, o.last_name, o.company)
    AND length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
