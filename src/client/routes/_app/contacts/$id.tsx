import { createFileRoute } from "@tanstack/react-router";
import { UserRound } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/contacts/$id")({
  component: ContactDetailPage,
});

function ContactDetailPage() {
  return (
    <ComingSoonPage
      title="Contact Details"
      icon={UserRound}
      description="View a contact's details, activity and notes, and send them an email, SMS or AI call."
    />
  );
}
