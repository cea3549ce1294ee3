-- The delivery log shows a failing delivery's next attempt and attempt count from its pg-boss job
-- (webhooks.service listDeliveries). A delivery's first job has the delivery's id as its job id; a
-- resend queues a job of its own, whose id is kept here (null: the delivery's own id). A nullable
-- column without a default changes only the catalog.
ALTER TABLE "webhook_deliveries" ADD COLUMN "job_id" uuid;
