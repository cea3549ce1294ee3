import { useMutation, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Progress } from "@/client/components/ui/progress";
import { Skeleton } from "@/client/components/ui/skeleton";
import { formatMoment, formatNumber } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";
import { OWNER_ONLY_SENTENCE } from "./plan-refusal";

/** Labels of the server's usage keys (spec section 9 limits). */
const LABELS: Record<string, string> = {
  contacts: "Contacts",
  seats: "Team members",
  lead_searches: "Lead searches",
  emails: "Emails",
  video_messages: "Video messages",
  sms_messages: "SMS messages",
  voice_calls: "Voice calls",
};

/** What stops at 100 % of each meter (for the limit banner). */
const STOPS: Record<string, string> = {
  contacts: "new contacts and imports",
  seats: "new invitations",
  lead_searches: "lead searches",
  emails: "email sends",
  video_messages: "video messages",
  sms_messages: "SMS sends",
  voice_calls: "voice calls and voicemail drops",
};

/** The workspace's plan usage as the server reports it (`billing.usage`): never computed in the client. */
export function useUsage() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.billing.usage.queryOptions(), staleTime: 30_000 });
}

/**
 * Why a paid plan is on hold, for the owner, or null when it is not: an `unpaid` subscription (the
 * payment retries are exhausted) or a `paused` one (a trial ended without a payment method) grants
 * nothing, so the workspace is on Free until it is paid (the server's `held_plan_name`).
 */
export function heldPlanSentence(data: { status: string | null; held_plan_name: string | null }) {
  if (!data.held_plan_name) return null;
  if (data.status === "paused")
    return `Your trial ended without a payment method, so your ${data.held_plan_name} subscription is paused and the Free plan applies: add a payment method to restore ${data.held_plan_name}.`;
  return `Your last payment failed and the payment retries have stopped, so the Free plan applies: update your card to restore ${data.held_plan_name}.`;
}

/**
 * `children` (a payment or upgrade link) for who may use it, else OWNER_ONLY_SENTENCE in its place.
 * `canPay` is the server's decision (billing.usage / plan refusals `actor_can_pay`), never the role.
 */
export function OwnerAction({ canPay, children }: { canPay: boolean; children: ReactNode }) {
  return <>{canPay ? children : OWNER_ONLY_SENTENCE}</>;
}

/**
 * The way to more for a notice of what the plan in force lacks, for who may take it (OwnerAction):
 * "Pay in Billing to restore <plan>" while a paid plan is held by an unpaid or paused subscription (the
 * server's `held_plan_name`), else "See plans" (/pricing).
 */
export function PlanWayOut({ data }: { data: { held_plan_name: string | null; actor_can_pay: boolean } }) {
  const held = data.held_plan_name;
  return (
    <OwnerAction canPay={data.actor_can_pay}>
      {held ? (
        <Link to="/settings" search={{ tab: "billing" }} className="font-medium underline">
          Pay in Billing to restore {held}
        </Link>
      ) : (
        <Link to="/pricing" className="font-medium underline">
          See plans
        </Link>
      )}
    </OwnerAction>
  );
}

/**
 * Banners under the page header: past-due payment (link to fix the card), a plan on hold (unpaid or
 * paused subscription: link to fix the card), 80 % warnings, and at 100 % what stops with a link to
 * /pricing: a monthly meter until the billing period's end date, the contacts (a total) until an
 * upgrade or a deletion; for an owner or admin, a workspace holding more members and invitations than its
 * plan's seats after a downgrade (the server's `seats_over` sentence, with links to Settings > Team and
 * /pricing). The payment and upgrade links are for who may use them (the server's `actor_can_pay`: the
 * owner); an admin or member reads OWNER_ONLY_SENTENCE in their place.
 */
export function UsageBanners() {
  const { data } = useUsage();
  const trpc = useTRPC();
  const portal = useMutation(
    trpc.billing.portal.mutationOptions({ onSuccess: (r) => r?.url && window.location.assign(r.url) }),
  );
  if (!data) return null;
  const held = heldPlanSentence(data);
  const limits = data.alerts.filter((a) => a.level === "limit");
  // the contact limit is a total, not a monthly meter: it never comes back on the period's end date
  const contactsFull = limits.find((a) => a.meter === "contacts");
  const monthlyFull = limits.filter((a) => a.meter !== "contacts");
  const warnings = data.alerts.filter((a) => a.level === "warning");
  return (
    <div className="mb-6 grid gap-3 empty:hidden">
      {data.past_due && (
        <AlertBanner variant="error" title="Your last payment failed">
          Please update your card to keep your {data.plan_name} plan.{" "}
          <OwnerAction canPay={data.actor_can_pay}>
            <Button variant="link" className="h-auto p-0" onClick={() => portal.mutate()}>
              Update payment method
            </Button>
          </OwnerAction>
        </AlertBanner>
      )}
      {held && (
        <AlertBanner
          variant="error"
          title={data.status === "paused" ? "Your subscription is paused" : "Your subscription is unpaid"}
        >
          {held}{" "}
          <OwnerAction canPay={data.actor_can_pay}>
            <Button variant="link" className="h-auto p-0" onClick={() => portal.mutate()}>
              Update payment method
            </Button>
          </OwnerAction>
        </AlertBanner>
      )}
      {limits.length > 0 && (
        <AlertBanner variant="error" title="Plan limit reached">
          {contactsFull && (
            <>
              You have used all {formatNumber(contactsFull.limit)} contacts your {data.plan_name} plan
              includes: {STOPS.contacts} are refused until you upgrade or delete contacts.{" "}
            </>
          )}
          {monthlyFull.length > 0 && (
            <>
              You have used all the {monthlyFull.map((a) => LABELS[a.meter]?.toLowerCase()).join(", ")} your{" "}
              {data.plan_name} plan includes this billing period:{" "}
              {monthlyFull.map((a) => STOPS[a.meter]).join(", ")} are refused until{" "}
              {formatMoment(data.period_end)} or an upgrade.{" "}
            </>
          )}
          <OwnerAction canPay={data.actor_can_pay}>
            <Link to="/pricing" className="font-medium underline">
              Upgrade your plan
            </Link>
          </OwnerAction>
        </AlertBanner>
      )}
      {data.seats_over && (
        <AlertBanner variant="warning" title="More team members than your plan includes">
          {data.seats_over.sentence} New invitations are refused meanwhile.{" "}
          <Link to="/settings" search={{ tab: "team" }} className="font-medium underline">
            Go to Settings &gt; Team
          </Link>{" "}
          <OwnerAction canPay={data.actor_can_pay}>
            <Link to="/pricing" className="font-medium underline">
              See plans
            </Link>
          </OwnerAction>
        </AlertBanner>
      )}
      {warnings.length > 0 && (
        <AlertBanner variant="warning" title="Approaching your plan limit">
          {warnings
            .map((a) => `${LABELS[a.meter]}: ${formatNumber(a.used)} of ${formatNumber(a.limit)}`)
            .join(" · ")}
          .{" "}
          <OwnerAction canPay={data.actor_can_pay}>
            <Link to="/pricing" className="font-medium underline">
              See plans
            </Link>
          </OwnerAction>
        </AlertBanner>
      )}
    </div>
  );
}

/** One bar per limit (Settings > Billing, dashboard): used of limit, 'Unlimited' or 'Not included'. */
export function UsageBars({ compact = false }: { compact?: boolean }) {
  const { data, isError } = useUsage();
  if (isError) return <p className="text-sm text-muted-foreground">Usage could not be loaded.</p>;
  if (!data) return <Skeleton className="h-40" />;
  const keys = Object.keys(data.usage).filter((k) => !compact || data.usage[k]!.limit !== 0);
  return (
    <>
      <ul className={compact ? "grid gap-3 sm:grid-cols-2" : "grid gap-4"} aria-label="Plan usage">
        {keys.map((k) => {
          const { used, limit } = data.usage[k]!;
          const label = LABELS[k] ?? k;
          const text =
            limit === null
              ? `${formatNumber(used)} · Unlimited`
              : limit === 0
                ? "Not included"
                : `${formatNumber(used)} of ${formatNumber(limit)}`;
          const share = limit ? used / limit : 0;
          return (
            <li key={k} className="grid gap-1.5" data-testid={`usage-${k}`}>
              <div className="flex items-baseline justify-between gap-2 text-sm">
                <span className="font-medium">{label}</span>
                <span className="text-muted-foreground tabular-nums">{text}</span>
              </div>
              <Progress
                value={limit ? Math.min(used, limit) : 0}
                max={limit || 1}
                aria-label={`${label}: ${text}`}
                indicatorClassName={share >= 1 ? "bg-destructive" : share >= 0.8 ? "bg-warning" : undefined}
              />
            </li>
          );
        })}
      </ul>
      {!compact && (
        <p className="mt-3 text-xs text-muted-foreground" data-testid="usage-period-note">
          Monthly counts are this billing period's: messages sent, and those reserved by campaigns still
          sending, paused or scheduled in it. A campaign scheduled into a later period counts in that period.
        </p>
      )}
    </>
  );
}
