import { AlertBanner } from "@/client/components/ui/alert-banner";
import { PlanWayOut, useUsage } from "@/client/features/billing/usage";

/**
 * Settings > API keys and Settings > Webhooks: when the plan in force has no API access (the
 * server's `billing.usage` `features.apiAccess`; a paid plan held by an unpaid or paused subscription
 * counts as Free), says so above the forms: requests with the listed keys are refused (402) and no
 * event is sent to the listed endpoints, which the lists alone did not show. The owner gets the way
 * out (Billing for a held plan, else /pricing); an admin reads who can take it. Nothing otherwise.
 */
export function ApiAccessNotice({ what }: { what: "keys" | "webhooks" }) {
  const { data } = useUsage();
  if (!data || data.features.apiAccess) return null;
  const held = data.held_plan_name;
  return (
    <AlertBanner variant="warning" title={`API access is not included in the ${data.plan_name} plan`}>
      {what === "keys"
        ? "New keys cannot be created, and requests with the keys below are refused"
        : "New endpoints cannot be added, and no events are sent to the endpoints below"}
      {held
        ? ` while your ${held} subscription waits for a payment. `
        : " until the workspace is on a plan with API access. "}
      <PlanWayOut data={data} />
    </AlertBanner>
  );
}
