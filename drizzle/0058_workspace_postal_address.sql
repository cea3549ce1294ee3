-- The workspace's physical postal address (Settings > Workspace), shown in the footer of every campaign
-- email: CAN-SPAM (15 U.S.C. 7704(a)(5)(A)(iii)) requires a valid physical postal address in every
-- commercial email. Free text (multi-line allowed, at most 300 characters, checked by workspaces
-- workspaceSettingsInput); null until the owner or an admin enters it (launches are not refused without
-- it: the email builder's review step says it is missing).
ALTER TABLE "workspaces" ADD COLUMN "postal_address" text;
