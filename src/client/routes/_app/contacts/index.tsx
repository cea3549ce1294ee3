import { createFileRoute } from "@tanstack/react-router";
import { Users } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/contacts/")({
  component: ContactsPage,
});

function ContactsPage() {
  return (
    <ComingSoonPage
      title="Contacts"
      icon={Users}
      description="Manage your contacts with search, filters, tags, bulk actions and CSV import."
    />
  );
}
