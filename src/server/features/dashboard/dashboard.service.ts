import { DateTime } from "luxon";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { countCampaigns } from "../campaigns/campaigns.service";
import { countContacts, countMessageActivity } from "../crm/crm.service";
import { getUserProfiles } from "../user/user.service";
import { listUserWorkspaces } from "../workspaces/workspaces.service";

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

/** One workspace's week in the weekly report. */
export interface WeekFigures {
  workspace: string;
  /** contacts now, and how many more than 7 days before (added less deleted) */
  contacts: number;
  contactsChange: number;
  /** campaigns that began sending in the week */
  campaigns: number;
  /** messages sent in the week, and the contacts who engaged (opened, clicked, replied) */
  sent: number;
  engaged: number;
}

const fmt = (n: number) => n.toLocaleString("en-US");

/**
 * The weekly report (job `dashboard.weekly-report`, spec: weeklyReports): emails user `userId` the 7
 * days before `weekEnding` in each workspace they belong to (contacts and their change, campaigns
 * started, messages sent and contacts engaged: the dashboard's own counts), unless the user turned
 * Weekly Reports off since the job was queued. Returns the figures sent, or null when nothing was
 * sent (unknown user, preference off, no workspace).
 */
export async function sendWeeklyReport(
  ctx: Pick<AppContext, "db" | "env" | "providers">,
  userId: string,
  weekEnding: Date,
): Promise<WeekFigures[] | null> {
  const user = (await getUserProfiles(ctx, [userId])).get(userId);
  if (user?.preferences?.weeklyReports !== true) return null;
  const workspaces = await listUserWorkspaces(ctx, userId);
  if (workspaces.length === 0) return null;
  const weekStart = new Date(weekEnding.getTime() - 7 * 24 * 3600 * 1000);
  const figures = await Promise.all(
    workspaces.map(async (w): Promise<WeekFigures> => {
      const [contacts, contactsBefore, campaigns, campaignsBefore, activity] = await Promise.all([
        countContacts(ctx, w.id),
        countContacts(ctx, w.id, { before: weekStart }),
        countCampaigns(ctx, w.id, { before: weekEnding }),
        countCampaigns(ctx, w.id, { before: weekStart }),
        countMessageActivity(ctx, w.id, weekStart, weekEnding),
      ]);
      return {
        workspace: w.name,
        contacts,
        contactsChange: contacts - contactsBefore,
        campaigns: campaigns - campaignsBefore,
        sent: activity.sent,
        engaged: Math.min(activity.engaged, activity.sent),
      };
    }),
  );
  const day = (d: Date) => d.toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
  const app = ctx.env.APP_URL; // without a trailing slash (env)
  const sentTotal = figures.reduce((a, f) => a + f.sent, 0);
  const blocks = figures.map(
    (f) =>
      `${f.workspace}\n` +
      `- Contacts: ${fmt(f.contacts)} (${f.contactsChange >= 0 ? "+" : ""}${fmt(f.contactsChange)} this week)\n` +
      `- Campaigns started: ${fmt(f.campaigns)}\n` +
      `- Messages sent: ${fmt(f.sent)}; contacts who opened, clicked or replied: ${fmt(f.engaged)}`,
  );
  await ctx.providers.email.send({
    to: user.email,
    subject: `Your week on Pitchwise: ${fmt(sentTotal)} message${sentTotal === 1 ? "" : "s"} sent`,
    text:
      `Hi ${user.name},\n\nHere is your week, ${day(weekStart)} to ${day(new Date(weekEnding.getTime() - 1))}:\n\n` +
      `${blocks.join("\n\n")}\n\nYour dashboard: ${app}/dashboard\n\n` +
      `You get this email because Weekly Reports is on in Settings > Preferences: ${app}/settings?tab=preferences\n`,
    tag: "weekly-report",
    metadata: { kind: "weekly-report" },
  });
  return figures;
}
