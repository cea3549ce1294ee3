-- The stranded-delivery sweep (webhooks.requeue-stranded-deliveries, every 5 minutes) looks for
-- deliveries stored but never attempted; this partial index holds only those rows, so the sweep
-- stays one small index read however long the delivery log grows.
CREATE INDEX IF NOT EXISTS "webhook_deliveries_unattempted_idx" ON "webhook_deliveries" USING btree ("created_at") WHERE "webhook_deliveries"."status" = 'pending' and "webhook_deliveries"."attempts" = 0;
