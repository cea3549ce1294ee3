import { createFileRoute } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { VoiceCampaignBuilder } from "@/client/features/campaigns/voice-builder";

export const Route = createFileRoute("/_app/campaigns/call")({
  component: CallCampaignPage,
});

/** /campaigns/call: AI voice call campaign builder (4 steps). */
function CallCampaignPage() {
  return (
    <>
      <PageHeader
        title="AI Call Campaign"
        description="An AI voice calls each contact and speaks your personalised script."
      />
      <VoiceCampaignBuilder kind="voice" />
    </>
  );
}
