import { createFileRoute } from "@tanstack/react-router";
import { Phone } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/campaigns/call")({
  component: CallCampaignPage,
});

function CallCampaignPage() {
  return (
    <ComingSoonPage
      title="Call Campaign"
      icon={Phone}
      description="Reach your contacts with AI voice calls that speak your script in a natural voice."
    />
  );
}
