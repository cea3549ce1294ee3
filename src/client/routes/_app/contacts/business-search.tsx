import { createFileRoute } from "@tanstack/react-router";
import { SearchCheck } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/contacts/business-search")({
  component: BusinessSearchPage,
});

function BusinessSearchPage() {
  return (
    <ComingSoonPage
      title="Business Lead Search"
      icon={SearchCheck}
      description="Find local businesses by location and type with 131 advanced filters, presets and saved searches."
    />
  );
}
