-- Custom SQL migration: exact per-user contact counts by (lifecycle stage, lead status), maintained by
-- statement-level triggers with transition tables (one aggregate per statement, not per row).
CREATE OR REPLACE FUNCTION contact_counts_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts (user_id, lifecycle_stage, lead_status, n)
  SELECT user_id, lifecycle_stage, lead_status, count(*) FROM new_rows GROUP BY 1, 2, 3
  ON CONFLICT (user_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_counts_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts (user_id, lifecycle_stage, lead_status, n)
  SELECT user_id, lifecycle_stage, lead_status, -count(*) FROM old_rows GROUP BY 1, 2, 3
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
  ) x GROUP BY 1, 2, 3 HAVING sum(d) <> 0
  ON CONFLICT (user_id, lifecycle_stage, lead_status) DO UPDATE SET n = contact_counts.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contacts_counts_ins AFTER INSERT ON contacts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contact_counts_ins();
--> statement-breakpoint
CREATE TRIGGER contacts_counts_del AFTER DELETE ON contacts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contact_counts_del();
--> statement-breakpoint
CREATE TRIGGER contacts_counts_upd AFTER UPDATE ON contacts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contact_counts_upd();
--> statement-breakpoint
INSERT INTO contact_counts (user_id, lifecycle_stage, lead_status, n)
SELECT user_id, lifecycle_stage, lead_status, count(*) FROM contacts GROUP BY 1, 2, 3
ON CONFLICT (user_id, lifecycle_stage, lead_status) DO UPDATE SET n = excluded.n;
