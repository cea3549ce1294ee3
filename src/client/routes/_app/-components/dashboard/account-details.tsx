import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import type { User } from "@/client/features/auth/types";
import { UsageBars } from "@/client/features/billing/usage";
import { formatDate, planLabel, statusLabel } from "@/client/lib/format";

/**
 * Account Details card: email, plan (planLabel: "Free" for the free plan, Starter when missing), status
 * (default Trial), member since (or N/A).
 */
export function AccountDetails({ user }: { user: User }) {
  const status = statusLabel(user.subscription_status);
  const rows: { label: string; value: ReactNode }[] = [
    {
      label: "Email",
      value: (
        <span className="block break-all sm:truncate" title={user.email}>
          {user.email}
        </span>
      ),
    },
    { label: "Plan", value: <Badge variant="accent">{planLabel(user.plan)}</Badge> },
    {
      label: "Status",
      value: <Badge variant={status === "Active" ? "success" : "secondary"}>{status}</Badge>,
    },
    { label: "Member Since", value: formatDate(user.created_at) },
  ];
  return (
    <Card>
      <CardHeader className="flex-row items-start justify-between gap-4">
        <div className="grid gap-1.5">
          <CardTitle>Account Details</CardTitle>
          <CardDescription>Your subscription at a glance.</CardDescription>
        </div>
        <Button asChild variant="outline" size="sm">
          <Link to="/pricing">View Plans</Link>
        </Button>
      </CardHeader>
      <CardContent>
        <dl className="grid gap-x-6 gap-y-4 sm:grid-cols-2 lg:grid-cols-4">
          {rows.map(({ label, value }) => (
            <div key={label} className="grid min-w-0 content-start gap-1.5 rounded-lg bg-muted/60 px-4 py-3">
              <dt className="text-xs font-medium tracking-wide text-muted-foreground uppercase">{label}</dt>
              <dd className="min-w-0 text-sm font-medium">{value}</dd>
            </div>
          ))}
        </dl>
        <div className="mt-6">
          <h4 className="mb-3 text-sm font-medium">Usage this period</h4>
          <UsageBars compact />
        </div>
      </CardContent>
    </Card>
  );
}
