import { TRPCClientError } from "@trpc/client";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { type PlanRefusal, PlanRefusalLink, planRefusalOf } from "@/client/features/billing/plan-refusal";
import { NETWORK_ERROR_MESSAGE } from "@/client/lib/errors";

/**
 * A send's error (a builder's launch, the contact page's Add Contact and single send): the sentence and,
 * for a plan refusal, the server's structured refusal.
 */
export interface LaunchError {
  message: string;
  refusal: PlanRefusal | null;
}

/**
 * A failed launch over tRPC as the banner shows it: the server's sentence (a plan refusal of
 * billing.plans among them, with its `data.planRefusal`), or NETWORK_ERROR_MESSAGE for a failure with
 * no response, else `fallback`.
 */
export function launchError(e: unknown, fallback: string): LaunchError {
  if (e instanceof TRPCClientError) {
    if (!e.data && /fetch|network/i.test(e.message)) return { message: NETWORK_ERROR_MESSAGE, refusal: null };
    return { message: e.message || fallback, refusal: planRefusalOf(e) };
  }
  return { message: (e as Error)?.message || fallback, refusal: null };
}

/**
 * The error banner of a campaign builder's launch (and of the contact dialogs' sends, and /pricing's refused
 * plan choice): the sentence (a plain string: the builder's own check)
 * and, for a plan refusal, what follows it (PlanRefusalLink: "Go to Billing" when the workspace's paid
 * plan waits for a payment, "See plans" when it is to be upgraded, "Go to Settings > Team" when a plan
 * change needs members removed first, or that only the owner can, for an admin or member). Nothing when
 * `error` is null.
 */
export function LaunchErrorBanner({ error }: { error: string | LaunchError | null }) {
  if (!error) return null;
  const { message, refusal } = typeof error === "string" ? { message: error, refusal: null } : error;
  return (
    <AlertBanner variant="error">
      {message} <PlanRefusalLink refusal={refusal} />
    </AlertBanner>
  );
}
