import { DateTime } from "luxon";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
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
 * The instant of local midnight on the 1st of the calendar month `back` months before the month
 * `now` falls in, in IANA time zone `zone` (luxon: daylight saving time included).
 */
export function monthStartIn(now: Date, zone: string, back = 0): Date {
  return DateTime.fromJSDate(now, { zone }).startOf("month").minus({ months: back }).toJSDate();
}

/**
 * `timeZone` when it is an IANA zone this runtime knows, else UTC when absent.
 * @throws AppError BAD_REQUEST for an unknown zone
 */
export function dashboardTimeZone(timeZone: string | undefined | null): string {
  if (!timeZone) return "UTC";
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw new AppError(
      "BAD_REQUEST",
      `Unknown time zone "${timeZone.slice(0, 64)}": use an IANA name such as Europe/Paris`,
    );
  }
}

/**
 * The dashboard's four stat cards (spec: Dashboard) with real counts and month-over-month change.
 * Months are calendar months in `timeZone` (IANA; the viewer's own zone, which the client sends;
 * UTC when absent), so "this month" starts at the viewer's local midnight on the 1st, not at UTC's.
 * Total Campaigns = campaigns that went out (campaigns countCampaigns: sending, paused, completed, or
 * cancelled after sending; previous = those that began sending before this month). Engagement rate =
 * engaged contacts / messages sent, percent.
 * @throws AppError BAD_REQUEST for an unknown time zone
 */
export async function getDashboardStats(
  ctx: AppContext,
  workspaceId: string,
  now = new Date(),
  timeZone?: string | null,
) {
  const zone = dashboardTimeZone(timeZone);
  const monthStart = monthStartIn(now, zone);
  const lastMonthStart = monthStartIn(now, zone, 1);
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
