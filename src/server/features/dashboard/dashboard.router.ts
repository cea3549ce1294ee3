import { protectedProcedure, router } from "../../trpc/init";
import { getDashboardStats } from "./dashboard.service";

export const dashboardRouter = router({
  stats: protectedProcedure.query(({ ctx }) => getDashboardStats(ctx, ctx.workspaceId)),
});
