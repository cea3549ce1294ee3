-- Custom SQL migration: a CSV import job may defer the search dictionary to a follow-up job
-- (crm.index-contact-words) by setting pitchwise.defer_contact_words = 'on' on its connection.
CREATE OR REPLACE FUNCTION contact_words_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('pitchwise.defer_contact_words', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO contact_words (user_id, word)
  SELECT DISTINCT n.user_id, w
  FROM new_rows n,
    regexp_split_to_table(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.company, '')), '[^[:alnum:]]+') w
  WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
