import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createFileRoute, Link, useNavigate } from "@tanstack/react-router";
import { ArrowLeft, Check, LogOut } from "lucide-react";
import { useEffect, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Skeleton } from "@/client/components/ui/skeleton";
import { useAuth } from "@/client/features/auth/auth-context";
import { type LaunchError, LaunchErrorBanner, launchError } from "@/client/features/campaigns/launch-error";
import { useTRPC, useTRPCClient } from "@/client/trpc";

/** Spec section 9: redirect to the dashboard 3 seconds after a successful payment. */
const SUCCESS_REDIRECT_MS = 3000;

export const Route = createFileRoute("/_app/pricing")({
  validateSearch: (
    search: Record<string, unknown>,
  ): { success?: boolean; canceled?: boolean; session_id?: string } => ({
    ...(search.success === true || search.success === "true" ? { success: true } : {}),
    ...(search.canceled === true || search.canceled === "true" ? { canceled: true } : {}),
    // the checkout session the payment page returned from (its outcome is asked of the server)
    ...(typeof search.session_id === "string" && /^cs_[A-Za-z0-9_-]{1,250}$/.test(search.session_id)
      ? { session_id: search.session_id }
      : {}),
  }),
  component: PricingPage,
});

/** Spec section 2 FAQ: the four questions. */
const FAQ = [
  {
    q: "Can I change plans anytime?",
    a: "Yes. Upgrades and plan changes take effect immediately, and the price difference is prorated.",
  },
  {
    q: "What happens if I exceed my limits?",
    a: "We notify you when you reach 80% of a limit. Once a limit is reached, you need to upgrade to keep sending; nothing you already have is deleted.",
  },
  {
    q: "Can I cancel anytime?",
    a: "Yes. Cancel from Settings whenever you like. There is no long-term contract.",
  },
  {
    q: "Is there a money-back guarantee?",
    a: "Yes. Cancel within 14 days of your first payment and we refund it in full.",
  },
];

/**
 * /pricing (spec sections 2, 4, 9): the four plans as the server describes them (the client never
 * decides what a plan allows), 'Most Popular' on Professional, 'Current Plan' disabled, 'Upgrade to
 * {Plan}' starting a checkout ('Downgrade to {Plan}' for a plan cheaper than the current one, which the
 * server answers with the billing portal) ('Processing...' meanwhile; a workspace whose subscription is unpaid or
 * paused is sent to the billing portal instead, as the server answers, and told so), a refused plan
 * choice in the chosen plan's card (the server's sentence with its plan refusal's link, LaunchErrorBanner:
 * e.g. too many members for the plan's seats, "Go to Settings > Team"), the closable portal error, and the
 * success / canceled messages on return from checkout (success goes to /dashboard after 3 s; a second
 * checkout that the server refunded because the workspace already had a paid plan says so and stays:
 * tRPC billing.checkoutResult).
 */
function PricingPage() {
  const trpc = useTRPC();
  const trpcClient = useTRPCClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { logout, setUser } = useAuth();
  const { success, canceled, session_id: sessionId } = Route.useSearch();
  const plansQuery = useQuery(trpc.billing.plans.queryOptions());
  const [processing, setProcessing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // a refused plan choice, shown in the card of the plan that was chosen
  const [choiceError, setChoiceError] = useState<{ plan: string; error: LaunchError } | null>(null);
  const [dismissed, setDismissed] = useState(false);

  // back from a paid checkout: what it did, as the server reads it from the payments vendor; a
  // second checkout of a workspace that already had a paid plan was refunded, not applied
  const result = useQuery({
    ...trpc.billing.checkoutResult.queryOptions({ session_id: sessionId ?? "" }),
    enabled: Boolean(success && sessionId),
    retry: false,
  });
  const refunded = result.data?.status === "refunded" ? result.data : null;

  // back from a paid checkout: refresh the plan everywhere
  useEffect(() => {
    if (!success) return;
    void trpcClient.auth.me
      .query()
      .then((res) => setUser(res.user))
      .catch(() => {});
    void queryClient.invalidateQueries();
  }, [success, queryClient, setUser, trpcClient]);
  // ... then go to the dashboard after 3 s, unless the payment was refunded (the page says why)
  useEffect(() => {
    if (!success || refunded) return;
    const timer = setTimeout(() => void navigate({ to: "/dashboard" }), SUCCESS_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [success, refunded, navigate]);

  const checkout = useMutation(
    trpc.billing.checkout.mutationOptions({
      onSuccess: (res) => {
        if (!res?.url) {
          setError("Failed to start checkout. Please try again.");
          setProcessing(null);
          return;
        }
        window.location.assign(res.url);
      },
      onError: (e, vars) => {
        setChoiceError({
          plan: vars.planName,
          error: launchError(e, "Failed to start checkout. Please try again."),
        });
        setProcessing(null);
      },
    }),
  );
  const portal = useMutation(
    trpc.billing.portal.mutationOptions({
      onSuccess: (res) => res?.url && window.location.assign(res.url),
      onError: (e) => setError(e.message || "Failed to open the billing portal. Please try again."),
    }),
  );

  const data = plansQuery.data;
  // a held (unpaid or paused) subscription is still the workspace's: it is paid or resumed in the
  // portal, and the server answers any plan choice with the portal rather than a second checkout
  const held = data?.held_plan ?? null;
  const paid = data && (data.current !== "free" || held !== null);
  // a plan cheaper than the one in force is a downgrade (in the billing portal), not an 'Upgrade to'
  const currentPrice = data?.plans.find((p) => p.current)?.price_usd ?? 0;

  return (
    <div className="mx-auto w-full max-w-6xl">
      <header className="mb-8 flex items-center justify-between gap-3">
        <Button asChild variant="ghost" size="sm">
          <Link to="/dashboard">
            <ArrowLeft aria-hidden />
            Back to Dashboard
          </Link>
        </Button>
        <Button
          variant="outline"
          size="sm"
          onClick={() => void logout().then(() => navigate({ to: "/login" }))}
        >
          <LogOut aria-hidden />
          Logout
        </Button>
      </header>

      <div className="mb-8 text-center">
        <h1 className="text-3xl font-semibold tracking-tight sm:text-4xl">Choose Your Plan</h1>
        <p className="mt-2 text-muted-foreground">Start free and upgrade when your outreach grows.</p>
      </div>

      <div className="mb-6 grid gap-3">
        {success && !dismissed && refunded && (
          <AlertBanner variant="warning" onDismiss={() => setDismissed(true)}>
            This workspace already has the {refunded.current_plan_name} plan, so your
            {refunded.plan_name ? ` ${refunded.plan_name}` : ""} payment was refunded in full and that
            subscription ended. To change plans, use{" "}
            <Link to="/settings" search={{ tab: "billing" }} className="font-medium underline">
              Billing
            </Link>
            .
          </AlertBanner>
        )}
        {success && !dismissed && !refunded && (
          <AlertBanner variant="success" onDismiss={() => setDismissed(true)}>
            Payment successful! Your subscription is now active.
          </AlertBanner>
        )}
        {canceled && !dismissed && (
          <AlertBanner variant="info" onDismiss={() => setDismissed(true)}>
            Payment canceled. You can try again anytime.
          </AlertBanner>
        )}
        {error && (
          <AlertBanner variant="error" onDismiss={() => setError(null)}>
            {error}
          </AlertBanner>
        )}
        {data?.held_plan_name && data.can_manage_billing && (
          <AlertBanner variant="info">
            Your {data.held_plan_name} subscription is waiting for a payment, so choosing a plan opens the
            billing portal: pay there to restore {data.held_plan_name}, then change plans if you like.
          </AlertBanner>
        )}
        {data && !data.can_manage_billing && (
          <AlertBanner variant="info">Only the workspace owner can change the plan.</AlertBanner>
        )}
      </div>

      {plansQuery.isError ? (
        <AlertBanner variant="error">Failed to load plans. Please refresh the page.</AlertBanner>
      ) : (
        <section aria-label="Plans" className="grid gap-6 sm:grid-cols-2 xl:grid-cols-4">
          {!data
            ? [0, 1, 2, 3].map((i) => <Skeleton key={i} className="h-96 rounded-xl" />)
            : data.plans.map((plan) => {
                const isProcessing = processing === plan.id;
                return (
                  <Card
                    key={plan.id}
                    data-testid={`plan-${plan.id}`}
                    className={plan.most_popular ? "relative border-primary shadow-lg" : "relative"}
                  >
                    {plan.most_popular && (
                      <Badge variant="accent" className="absolute -top-3 left-1/2 -translate-x-1/2">
                        Most Popular
                      </Badge>
                    )}
                    <CardHeader>
                      <CardTitle>{plan.name}</CardTitle>
                      <CardDescription>
                        <span className="text-3xl font-bold text-foreground">${plan.price_usd}</span>{" "}
                        {plan.id === "free" ? "forever" : "per month"}
                      </CardDescription>
                    </CardHeader>
                    <CardContent className="flex flex-1 flex-col gap-4">
                      <ul className="grid gap-2 text-sm">
                        {plan.highlights.map((h) => (
                          <li key={h} className="flex items-start gap-2">
                            <Check className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
                            <span>{h}</span>
                          </li>
                        ))}
                      </ul>
                      <div className="mt-auto">
                        {plan.current ? (
                          <Button className="w-full" variant="secondary" disabled>
                            Current Plan
                          </Button>
                        ) : plan.id === "free" ? null : (
                          <Button
                            // a long label ("Downgrade to Professional", "Change to ... in the billing
                            // portal") wraps in the narrow four-column cards instead of being cut off
                            className="h-auto min-h-10 w-full py-2 text-center whitespace-normal"
                            variant={plan.most_popular ? "default" : "outline"}
                            disabled={!data.can_manage_billing || processing !== null}
                            onClick={() => {
                              setError(null);
                              setChoiceError(null);
                              setProcessing(plan.id);
                              checkout.mutate({ priceId: plan.price_id ?? "", planName: plan.id });
                            }}
                          >
                            {isProcessing
                              ? "Processing..."
                              : held === plan.id
                                ? `Pay to restore ${plan.name}`
                                : held
                                  ? `Change to ${plan.name} in the billing portal`
                                  : plan.price_usd < currentPrice
                                    ? `Downgrade to ${plan.name}`
                                    : `Upgrade to ${plan.name}`}
                          </Button>
                        )}
                        {choiceError?.plan === plan.id && (
                          <div className="mt-3">
                            <LaunchErrorBanner error={choiceError.error} />
                          </div>
                        )}
                      </div>
                    </CardContent>
                  </Card>
                );
              })}
        </section>
      )}

      {paid && data?.can_manage_billing && (
        <div className="mt-6 text-center">
          <Button variant="link" loading={portal.isPending} onClick={() => portal.mutate()}>
            Manage subscription, card and invoices
          </Button>
        </div>
      )}

      <section aria-labelledby="faq-title" className="mx-auto mt-12 max-w-3xl">
        <h2 id="faq-title" className="mb-4 text-xl font-semibold tracking-tight">
          Frequently Asked Questions
        </h2>
        <dl className="grid gap-4">
          {FAQ.map(({ q, a }) => (
            <div key={q} className="rounded-lg border bg-card px-4 py-3">
              <dt className="font-medium">{q}</dt>
              <dd className="mt-1 text-sm text-muted-foreground">{a}</dd>
            </div>
          ))}
        </dl>
      </section>
    </div>
  );
}
