-- Contacts are read by many small requests at once (list pages, searches, lookups), never by one
-- report that a second CPU would speed up. Postgres still planned parallel scans for them: the broad
-- search walk's generic plan (crm.queries selectBroadSearchPage) took a Gather Merge over a parallel
-- backward index scan, 70 ms for 'smith' at 1,000,000 contacts against 4.5 ms for the same walk on
-- one process (worker start-up and the merge), and under load the workers only compete with other
-- requests for the same cores. No parallel workers for this table.
ALTER TABLE "contacts" SET (parallel_workers = 0);
