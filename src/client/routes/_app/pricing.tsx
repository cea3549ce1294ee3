import { createFileRoute } from "@tanstack/react-router";
import { CreditCard } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

export const Route = createFileRoute("/_app/pricing")({
  component: PricingPage,
});

function PricingPage() {
  return (
    <ComingSoonPage
      title="Choose Your Plan"
      icon={CreditCard}
      description="Compare the Free, Professional, Business and Enterprise plans and upgrade in a few clicks."
    />
  );
}
