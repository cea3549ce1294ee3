-- A retried campaign message is looked up at the vendor before it is sent again only when its last
-- attempt's outcome is unknown (a timeout, a network error, a 408 or 5xx: the vendor may have taken
-- it), not after a refusal such as a 429, which said it did not (campaigns.send recoverReclaimed).
-- A column with a constant default changes only the catalog.
ALTER TABLE "campaign_recipients" ADD COLUMN "outcome_unknown" boolean DEFAULT false NOT NULL;
