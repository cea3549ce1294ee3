import { createFileRoute } from "@tanstack/react-router";
import { Voicemail } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/campaigns/voice")({
  component: VoiceCampaignPage,
});

function VoiceCampaignPage() {
  return (
    <ComingSoonPage
      title="Voice Campaign"
      icon={Voicemail}
      description="Drop ringless voicemails straight into your contacts' inboxes without ringing their phones."
    />
  );
}
