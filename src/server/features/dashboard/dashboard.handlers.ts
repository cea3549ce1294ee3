import { type AnyJobDefinition, defineHandler } from "../../jobs/define";
import { uuidFromKey } from "../../lib/ids";
import { listWeeklyReportUserIds } from "../user/user.service";
import { weeklyReportJob, weeklyReportsJob } from "./dashboard.jobs";
import { sendWeeklyReport } from "./dashboard.service";

/** Mondays: one weekly-report job per user who asked for it (one per user and day: job id). */
const weeklyReportsHandler = defineHandler(weeklyReportsJob, {
  handler: async (_data, deps) => {
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const weekEnding = new Date(`${day}T00:00:00.000Z`).toISOString();
    const ids = await listWeeklyReportUserIds(deps);
    await deps.jobs.sendMany(
      weeklyReportJob,
      ids.map((userId) => ({
        data: { userId, weekEnding },
        options: { id: uuidFromKey(`weekly-report:${userId}:${day}`) },
      })),
    );
  },
});

/** One user's weekly report email (dashboard.service sendWeeklyReport). */
const weeklyReportHandler = defineHandler(weeklyReportJob, {
  handler: async ({ userId, weekEnding }, deps) => {
    await sendWeeklyReport(deps, userId, new Date(weekEnding));
  },
});

/** The dashboard feature's job handlers (worker registry). */
export const dashboardHandlers: AnyJobDefinition[] = [weeklyReportsHandler, weeklyReportHandler];
