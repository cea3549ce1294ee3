import { createFileRoute } from "@tanstack/react-router";
import { Video } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/campaigns/video")({
  component: VideoCampaignPage,
});

function VideoCampaignPage() {
  return (
    <ComingSoonPage
      title="Video Campaign"
      icon={Video}
      description="Send a personalised video to every contact by email or SMS in four simple steps."
    />
  );
}
