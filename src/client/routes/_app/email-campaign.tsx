import { createFileRoute } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { EmailCampaignBuilder } from "@/client/features/campaigns/email-builder";

export const Route = createFileRoute("/_app/email-campaign")({
  component: EmailCampaignPage,
});

/** /email-campaign (spec section 2): the 4-step email campaign builder. */
function EmailCampaignPage() {
  return (
    <>
      <PageHeader
        title="Email Campaign"
        description="Write an email with merge tags, send yourself a test and launch it to your contact list."
      />
      <EmailCampaignBuilder />
    </>
  );
}
