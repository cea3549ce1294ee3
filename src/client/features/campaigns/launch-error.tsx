import { TRPCClientError } from "@trpc/client";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { PlanRefusalLink } from "@/client/features/billing/plan-refusal";
import { NETWORK_ERROR_MESSAGE } from "@/client/lib/errors";

/**
 * The sentence to show for a failed launch over tRPC: the server's (a plan refusal of billing.plans
 * among them), or NETWORK_ERROR_MESSAGE for a failure with no response, else `fallback`.
 */
export function launchErrorMessage(e: unknown, fallback: string): string {
  if (e instanceof TRPCClientError) {
    if (!e.data && /fetch|network/i.test(e.message)) return NETWORK_ERROR_MESSAGE;
    return e.message || fallback;
  }
  return (e as Error)?.message || fallback;
}

/**
 * A campaign builder's launch error banner: the sentence and, for a plan refusal, where it leads
 * (planRefusalLink): "Go to Billing" when the workspace's paid plan waits for a payment, "See plans"
 * when the sentence offers an upgrade. Nothing when `error` is null.
 */
export function LaunchErrorBanner({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <AlertBanner variant="error">
      {error} <PlanRefusalLink message={error} />
    </AlertBanner>
  );
}
