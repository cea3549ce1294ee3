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
