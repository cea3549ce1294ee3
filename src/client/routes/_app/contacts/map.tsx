import { createFileRoute } from "@tanstack/react-router";
import { Map as MapIcon } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/contacts/map")({
  component: ContactMapPage,
});

function ContactMapPage() {
  return (
    <ComingSoonPage
      title="Contact Map"
      icon={MapIcon}
      description="See your contacts on a map and find everyone within a radius of any point."
    />
  );
}
