import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

/** The dashboard's four figures as `dashboard.stats` returns them. */
export type DashboardStats = inferRouterOutputs<AppRouter>["dashboard"]["stats"];
/** One figure: this month's value, last month's, and the month-over-month change in percent (null when last month was 0). */
export type DashboardStat = DashboardStats["totalCampaigns"];

/**
 * The dashboard greeting (issue 14): neutral while the figures load or failed, 'Welcome to Pitchwise'
 * on a first visit (a workspace with no campaigns, contacts or messages yet), else 'Welcome back'.
 */
export function greeting(name: string, stats: DashboardStats | undefined): string {
  if (!stats) return `Welcome, ${name}!`;
  const fresh =
    stats.totalCampaigns.value === 0 && stats.totalContacts.value === 0 && stats.messagesSent.value === 0;
  return fresh ? `Welcome to Pitchwise, ${name}!` : `Welcome back, ${name}!`;
}

export type ChangeTone = "up" | "down" | "flat" | "new";

/**
 * The change line under a stat: '+N% from last month' / '-N% from last month'; with no previous value,
 * 'New this month' when there is a value now, else '+0% from last month'.
 */
export function describeChange(stat: DashboardStat): { text: string; tone: ChangeTone } {
  if (stat.changePct === null || !Number.isFinite(stat.changePct)) {
    return stat.value > 0
      ? { text: "New this month", tone: "new" }
      : { text: "+0% from last month", tone: "flat" };
  }
  const pct = Math.round(stat.changePct * 10) / 10;
  if (pct === 0) return { text: "+0% from last month", tone: "flat" };
  return pct > 0
    ? { text: `+${pct}% from last month`, tone: "up" }
    : { text: `${pct}% from last month`, tone: "down" };
}
