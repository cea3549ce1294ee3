import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/init";
import { getDashboardStats } from "./dashboard.service";

export const dashboardRouter = router({
  /** The four stat cards; `timeZone` (IANA) is the viewer's, so "this month" is their calendar month. */
  stats: protectedProcedure
    .input(z.object({ timeZone: z.string().max(64).optional() }).optional())
    .query(({ ctx, input }) => getDashboardStats(ctx, ctx.workspaceId, new Date(), input?.timeZone)),
});
