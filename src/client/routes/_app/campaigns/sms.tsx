import { createFileRoute } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { SmsCampaignBuilder } from "@/client/features/campaigns/sms-builder";

export const Route = createFileRoute("/_app/campaigns/sms")({
  component: SmsCampaignPage,
});

/** /campaigns/sms (spec section 2): the 4-step SMS campaign builder. */
function SmsCampaignPage() {
  return (
    <>
      <PageHeader
        title="SMS Campaign"
        description="Write a text message with merge tags, pick your contacts and launch."
      />
      <SmsCampaignBuilder />
    </>
  );
}
