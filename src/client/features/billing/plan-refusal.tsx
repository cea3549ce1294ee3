import { Link } from "@tanstack/react-router";
import { TRPCClientError, type TRPCClientErrorLike } from "@trpc/client";
import type { AppRouter } from "@/server/trpc/router";

/**
 * A plan refusal as the server decided it (billing.plans PlanRefusal with `actor_can_pay`, billing.service
 * PlanRefusalDetail): a tRPC error's `data.planRefusal`, or a paused campaign's report `pausedRefusal`.
 * `action`: "pay" (a paid plan held by an unpaid or paused subscription: Settings > Billing), "upgrade"
 * (/pricing), "remove_members" (a plan change refused because the workspace's members and pending
 * invitations exceed the chosen plan's seats: Settings > Team) or "none"; `actor_can_pay`: whether the
 * signed-in member may pay or change the plan (only the owner).
 */
export type PlanRefusal = NonNullable<NonNullable<TRPCClientErrorLike<AppRouter>["data"]>["planRefusal"]>;

/** The plan refusal a failed tRPC call carries (`error.data.planRefusal`), or null for any other error. */
export function planRefusalOf(e: unknown): PlanRefusal | null {
  if (!(e instanceof TRPCClientError)) return null;
  return (e as TRPCClientError<AppRouter>).data?.planRefusal ?? null;
}

/** Told to an admin or member instead of a link to Billing or /pricing, which only the owner can use. */
export const OWNER_ONLY_SENTENCE = "Only the workspace owner can pay for or change the plan.";

/**
 * What follows a plan refusal's sentence, from the server's decision (never from the sentence's
 * wording): "Go to Settings > Team" (/settings?tab=team) when a plan change needs members removed first;
 * for the owner "Go to Billing" (/settings?tab=billing) when the plan is to be paid, "See plans"
 * (/pricing) when it is to be upgraded; for an admin or member OWNER_ONLY_SENTENCE instead; nothing
 * without a refusal or when no plan allows more. One place for the builders' launch banner, Settings >
 * Team's invite error, a paused campaign's report and /pricing's refused plan choice.
 */
export function PlanRefusalLink({
  refusal,
  className = "font-medium underline",
}: {
  refusal: PlanRefusal | null | undefined;
  className?: string;
}) {
  if (!refusal || refusal.action === "none") return null;
  // removing members is Settings > Team's (owners and admins), not a payment
  if (refusal.action === "remove_members")
    return (
      <Link to="/settings" search={{ tab: "team" }} className={className}>
        Go to Settings &gt; Team
      </Link>
    );
  if (!refusal.actor_can_pay) return <span>{OWNER_ONLY_SENTENCE}</span>;
  if (refusal.action === "pay")
    return (
      <Link to="/settings" search={{ tab: "billing" }} className={className}>
        Go to Billing
      </Link>
    );
  return (
    <Link to="/pricing" className={className}>
      See plans
    </Link>
  );
}
