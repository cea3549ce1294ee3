import { createFileRoute } from "@tanstack/react-router";
import { Mail } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/email-campaign")({
  component: EmailCampaignPage,
});

function EmailCampaignPage() {
  return (
    <ComingSoonPage
      title="Email Campaign"
      icon={Mail}
      description="Write an email with merge fields, send yourself a test and launch it to your contact list."
    />
  );
}
