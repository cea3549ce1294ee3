import { Link } from "@tanstack/react-router";

/**
 * Where a plan refusal from the server (a 402 sentence of billing.plans: assertWithinPlan,
 * assertPlanFeature, a campaign paused by its plan) leads the person who reads it:
 * - "billing": the workspace's paid plan is held by an unpaid or paused subscription and the sentence
 *   says to pay ("... in Settings > Billing to restore ..."): Settings > Billing, where it is paid;
 * - "pricing": the sentence offers an upgrade ("Upgrade to Business ..."): /pricing;
 * - null: neither (not a plan refusal, or no plan allows more).
 */
export function planRefusalLink(message: string): "billing" | "pricing" | null {
  if (/in Settings > Billing to restore/.test(message)) return "billing";
  if (/Upgrade to/.test(message)) return "pricing";
  return null;
}

/**
 * The link a plan refusal leads to (planRefusalLink): "Go to Billing" (/settings?tab=billing) or "See
 * plans" (/pricing); `fallback` when the sentence names neither (null: no link). One place for the
 * builders' launch banner, Settings > Team's invite error and a paused campaign's report.
 */
export function PlanRefusalLink({
  message,
  className = "font-medium underline",
  fallback = null,
}: {
  message: string;
  className?: string;
  fallback?: "pricing" | null;
}) {
  const link = planRefusalLink(message) ?? fallback;
  if (link === "billing")
    return (
      <Link to="/settings" search={{ tab: "billing" }} className={className}>
        Go to Billing
      </Link>
    );
  if (link === "pricing")
    return (
      <Link to="/pricing" className={className}>
        See plans
      </Link>
    );
  return null;
}
