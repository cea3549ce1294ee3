import { useQuery } from "@tanstack/react-query";
import { createFileRoute } from "@tanstack/react-router";
import { Megaphone, Send, TrendingUp, Users } from "lucide-react";
import { PageHeader } from "@/client/components/layout/page-header";
import { useCurrentUser } from "@/client/features/auth/auth-context";
import { formatNumber } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";
import { AccountDetails } from "./-components/dashboard/account-details";
import { QuickActions } from "./-components/dashboard/quick-actions";
import { StatCard } from "./-components/dashboard/stat-card";
import { greeting } from "./-components/dashboard/stats";

export const Route = createFileRoute("/_app/dashboard")({
  component: DashboardPage,
});

const percent = (value: number) => `${value.toFixed(1)}%`;

function DashboardPage() {
  const user = useCurrentUser();
  const trpc = useTRPC();
  // the cards show skeletons until the figures arrive
  const { data: stats, isError } = useQuery(
    // the viewer's own time zone: "this month" is their calendar month
    trpc.dashboard.stats.queryOptions({ timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone }),
  );

  return (
    <>
      <PageHeader
        title={greeting(user.name?.trim() || user.email, stats)}
        description="Here is how your outreach is doing this month."
      />

      <section aria-label="Statistics" className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <StatCard
          title="Total Campaigns"
          icon={Megaphone}
          stat={stats?.totalCampaigns}
          format={formatNumber}
          failed={isError}
        />
        <StatCard
          title="Total Contacts"
          icon={Users}
          stat={stats?.totalContacts}
          format={formatNumber}
          failed={isError}
        />
        <StatCard
          title="Messages Sent"
          icon={Send}
          stat={stats?.messagesSent}
          format={formatNumber}
          failed={isError}
        />
        <StatCard
          title="Engagement Rate"
          icon={TrendingUp}
          stat={stats?.engagementRate}
          format={percent}
          failed={isError}
        />
      </section>

      <section aria-labelledby="quick-actions-title" className="mt-10">
        <h2 id="quick-actions-title" className="mb-4 text-lg font-semibold tracking-tight">
          Quick Actions
        </h2>
        <QuickActions />
      </section>

      <section aria-label="Account" className="mt-10">
        <AccountDetails user={user} />
      </section>
    </>
  );
}
