import { createFileRoute } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { VoiceCampaignBuilder } from "@/client/features/campaigns/voice-builder";

export const Route = createFileRoute("/_app/campaigns/voice")({
  component: VoiceCampaignPage,
});

/** /campaigns/voice: ringless voicemail campaign builder (4 steps). */
function VoiceCampaignPage() {
  return (
    <>
      <PageHeader
        title="Voicemail Campaign"
        description="Drop a recording or a text-to-speech message straight into voicemail, without ringing."
      />
      <VoiceCampaignBuilder kind="voicemail" />
    </>
  );
}
