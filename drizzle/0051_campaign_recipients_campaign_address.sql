-- The send-time screen asks, for every part of up to 500 rows, which of its addresses another row of
-- the same campaign was sent (or is being sent) to (campaigns.queries selectAddressesReached, since
-- 5acd66d for every row). Served by (address, channel) the query read every campaign's row at each
-- address and kept this campaign's: its cost grew with the list's history (a list texted weekly reads
-- one more row per address each week). bench:campaigns database, 19 campaigns at the same 10,000
-- numbers, 500 addresses: 2.4-9.7 ms -> 0.35-1.1 ms (EXPLAIN ANALYZE of the prepared statement).
CREATE INDEX IF NOT EXISTS "campaign_recipients_campaign_address_idx" ON "campaign_recipients" USING btree ("campaign_id","address");
