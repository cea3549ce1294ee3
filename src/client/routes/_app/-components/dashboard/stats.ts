import { queryOptions } from "@tanstack/react-query";
import { api } from "@/client/lib/api";

/** One dashboard figure: this month's value, last month's, and the month-over-month change in percent. */
export interface DashboardStat {
  value: number;
  previous: number;
  /** null when last month was 0 */
  changePct: number | null;
}

export interface DashboardStats {
  totalCampaigns: DashboardStat;
  totalContacts: DashboardStat;
  messagesSent: DashboardStat;
  /** value is a percentage 0-100 with one decimal */
  engagementRate: DashboardStat;
}

/** GET /api/dashboard/stats, cached under ["dashboard", "stats"]. */
export const dashboardStatsQuery = queryOptions({
  queryKey: ["dashboard", "stats"],
  queryFn: () => api.get<{ stats: DashboardStats }>("/api/dashboard/stats").then((r) => r.stats),
});

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
