import { useMutation } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Badge } from "@/client/components/ui/badge";
import { Button, buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { heldPlanSentence, OwnerAction, UsageBars, useUsage } from "@/client/features/billing/usage";
import { formatDate, formatMoment, statusLabel } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";

/**
 * Settings > Billing (issue 12): the workspace's plan, status and period, a bar per plan limit
 * (from `billing.usage`; the client never computes a limit), and the way to change plan or manage
 * the subscription (billing portal: card, invoices, cancel; 'Billing history' once a subscription has
 * ended, for its invoices and receipts).
 */
export function BillingTab() {
  const { data } = useUsage();
  const trpc = useTRPC();
  const portal = useMutation(
    trpc.billing.portal.mutationOptions({ onSuccess: (r) => r?.url && window.location.assign(r.url) }),
  );
  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-4">
        <div className="grid gap-1.5">
          <CardTitle>Billing</CardTitle>
          <CardDescription>
            {data ? (
              <>
                <Badge variant="accent">{data.plan_name}</Badge>{" "}
                <Badge variant={data.status === "active" ? "success" : "secondary"}>
                  {statusLabel(data.status)}
                </Badge>{" "}
                {heldPlanSentence(data) ??
                  (data.plan === "free"
                    ? `Usage resets on ${formatMoment(data.period_end)}.`
                    : data.cancel_at_period_end
                      ? `Ends on ${formatDate(data.period_end)}; then the Free plan applies.`
                      : `Renews on ${formatDate(data.period_end)}.`)}
              </>
            ) : (
              "Your plan and this period's usage."
            )}
          </CardDescription>
        </div>
        {/* changing the plan and the billing portal are the owner's (the server's actor_can_pay) */}
        {data && (
          <div className="flex max-w-xs flex-wrap gap-2 text-sm text-muted-foreground">
            <OwnerAction canPay={data.actor_can_pay}>
              <Link to="/pricing" className={buttonVariants({ variant: "default", size: "sm" })}>
                {data.plan === "free" ? "Upgrade" : "Change plan"}
              </Link>
              {data.plan !== "free" || data.held_plan ? (
                <Button
                  variant="outline"
                  size="sm"
                  loading={portal.isPending}
                  onClick={() => portal.mutate()}
                >
                  Manage subscription
                </Button>
              ) : (
                // a subscription that has ended: its invoices and receipts stay in the billing portal
                data.has_billing_history && (
                  <Button
                    variant="outline"
                    size="sm"
                    loading={portal.isPending}
                    onClick={() => portal.mutate()}
                  >
                    Billing history
                  </Button>
                )
              )}
            </OwnerAction>
          </div>
        )}
      </CardHeader>
      <CardContent>
        {portal.isError && <p className="mb-4 text-sm text-destructive">{portal.error.message}</p>}
        <UsageBars />
      </CardContent>
    </Card>
  );
}
