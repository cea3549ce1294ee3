import { createFileRoute } from "@tanstack/react-router";
import { MessageSquare } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/campaigns/sms")({
  component: SmsCampaignPage,
});

function SmsCampaignPage() {
  return (
    <ComingSoonPage
      title="SMS Campaign"
      icon={MessageSquare}
      description="Write a text message with personal merge fields, pick your contacts and launch in minutes."
    />
  );
}
