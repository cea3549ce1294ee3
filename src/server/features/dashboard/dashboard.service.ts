import type { AppContext } from "../../context";
import { countCampaigns } from "../campaigns/campaigns.service";
import { countContacts, countMessageActivity } from "../crm/crm.service";

export interface StatCard {
  value: number;
  /** the same figure for last month (cumulative totals: as of the end of last month) */
  previous: number;
  /** month-over-month change in percent, one decimal; null when both are 0 or previous is 0 */
  changePct: number | null;
}

function card(value: number, previous: number): StatCard {
  const changePct = previous === 0 ? null : Math.round(((value - previous) / previous) * 1000) / 10;
  return { value, previous, changePct };
}

/**
 * The dashboard's four stat cards (spec: Dashboard) with real counts and month-over-month change.
 * Months are calendar months in UTC. Engagement rate = engaged contacts / messages sent, percent.
 */
export async function getDashboardStats(ctx: AppContext, workspaceId: string, now = new Date()) {
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const lastMonthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const [campaigns, campaignsBefore, contacts, contactsBefore, thisMonth, lastMonth] = await Promise.all([
    countCampaigns(ctx, workspaceId),
    countCampaigns(ctx, workspaceId, { before: monthStart }),
    countContacts(ctx, workspaceId),
    countContacts(ctx, workspaceId, { before: monthStart }),
    countMessageActivity(ctx, workspaceId, monthStart, new Date(now.getTime() + 1)),
    countMessageActivity(ctx, workspaceId, lastMonthStart, monthStart),
  ]);
  const rate = (a: { sent: number; engaged: number }) =>
    a.sent === 0 ? 0 : Math.round((Math.min(a.engaged, a.sent) / a.sent) * 1000) / 10;
  return {
    totalCampaigns: card(campaigns, campaignsBefore),
    totalContacts: card(contacts, contactsBefore),
    messagesSent: card(thisMonth.sent, lastMonth.sent),
    engagementRate: card(rate(thisMonth), rate(lastMonth)),
  };
}
