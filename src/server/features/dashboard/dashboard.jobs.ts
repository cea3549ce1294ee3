import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/** Job contracts of the dashboard feature (what callers enqueue); the work is in dashboard.handlers.ts. */

/**
 * Mondays at 08:00 UTC: queues one `dashboard.weekly-report` job per user who turned Weekly Reports
 * on (Settings > Preferences, spec: weeklyReports, default off). Each job's id derives from the user
 * and the day, so a repeated run of the same Monday queues nothing twice.
 */
export const weeklyReportsJob = defineJob({
  name: "dashboard.weekly-reports",
  schema: z.object({}),
  cron: "0 8 * * 1",
  options: { retryLimit: 1, retryDelay: 60, expireInSeconds: 600 },
});

/** Emails one user the past week of each of their workspaces (dashboard.service sendWeeklyReport). */
export const weeklyReportJob = defineJob({
  name: "dashboard.weekly-report",
  schema: z.object({
    userId: z.string().uuid(),
    /** the report's end, ISO 8601: the week is the 7 days before it */
    weekEnding: z.string().datetime(),
  }),
  options: { retryLimit: 3 },
});
