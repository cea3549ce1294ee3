-- Custom SQL migration: the count triggers upsert their (user, stage, status) rows in key order, so two
-- statements writing contacts of one user at once (an import's two writers, a bulk update beside an
-- import) take the row locks in the same order and cannot deadlock.
CREATE OR REPLACE FUNCTION contact_counts_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts (user_id, lifecycle_stage, lead_status, n)
  SELECT user_id, lifecycle_stage, lead_status, count(*) FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (user_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_counts_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts (user_id, lifecycle_stage, lead_status, n)
  SELECT user_id, lifecycle_stage, lead_status, -count(*) FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (user_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_counts_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts (user_id, lifecycle_stage, lead_status, n)
  SELECT user_id, lifecycle_stage, lead_status, sum(d) FROM (
    SELECT user_id, lifecycle_stage, lead_status, -1 AS d FROM old_rows
    UNION ALL
    SELECT user_id, lifecycle_stage, lead_status, 1 AS d FROM new_rows
  ) x GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (user_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$;
