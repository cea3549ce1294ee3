-- Opt-in flags an import or an edit turned back on after the person opted out, before every write path
-- kept them off (compliance optOutsOf, issue 11 QA): the contact page showed "Email opt-in Yes" above
-- "Opted out". Sends were never affected (they read the suppression list); this puts the flags back in
-- line with it, by optOutsOf's rules: email by the email's suppression ("email" or "all"; compared
-- trimmed and lower-cased, as the list's unique index); SMS by a number (phone or mobile) suppressed for
-- "sms" or "all" in the workspace, or whose last reply to the shared sending number was STOP; calls by a
-- number suppressed for "voice", "voicemail" or "all", a workspace STOP ("sms" list, reason stop_reply)
-- or that last STOP. Only flags that are on change; nothing else is written.
UPDATE "contacts" c SET "email_opt_in" = false
WHERE c."email_opt_in" AND c."email" IS NOT NULL AND EXISTS (
  SELECT 1 FROM "suppressions" s
  WHERE s."workspace_id" = c."workspace_id" AND s."channel" IN ('email', 'all')
    AND lower(s."value") = lower(trim(c."email"))
);--> statement-breakpoint
UPDATE "contacts" c SET "sms_opt_in" = false
WHERE c."sms_opt_in" AND (
  EXISTS (
    SELECT 1 FROM "suppressions" s
    WHERE s."workspace_id" = c."workspace_id" AND s."channel" IN ('sms', 'all')
      AND lower(s."value") IN (lower(trim(c."phone")), lower(trim(c."mobile")))
  )
  OR EXISTS (
    SELECT 1 FROM (
      SELECT DISTINCT ON (e."phone") e."phone", e."kind" FROM "sms_opt_events" e
      WHERE e."phone" IN (trim(c."phone"), trim(c."mobile"))
      ORDER BY e."phone", e."provider_time" DESC, e."id" DESC
    ) last WHERE last."kind" = 'stop'
  )
);--> statement-breakpoint
UPDATE "contacts" c SET "call_opt_in" = false
WHERE c."call_opt_in" AND (
  EXISTS (
    SELECT 1 FROM "suppressions" s
    WHERE s."workspace_id" = c."workspace_id"
      AND lower(s."value") IN (lower(trim(c."phone")), lower(trim(c."mobile")))
      AND (s."channel" IN ('voice', 'voicemail', 'all') OR (s."channel" = 'sms' AND s."reason" = 'stop_reply'))
  )
  OR EXISTS (
    SELECT 1 FROM (
      SELECT DISTINCT ON (e."phone") e."phone", e."kind" FROM "sms_opt_events" e
      WHERE e."phone" IN (trim(c."phone"), trim(c."mobile"))
      ORDER BY e."phone", e."provider_time" DESC, e."id" DESC
    ) last WHERE last."kind" = 'stop'
  )
);
