-- One phone rule (issue 14): numbers typed without a +country prefix are read in the workspace's
-- default country (ISO 3166-1 alpha-2), chosen in Settings > Workspace.
ALTER TABLE "workspaces" ADD COLUMN "phone_country" text DEFAULT 'US' NOT NULL;
