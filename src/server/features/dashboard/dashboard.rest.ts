import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireUser } from "../../http/auth";
import { getDashboardStats } from "./dashboard.service";

/** GET /api/dashboard/stats -> {success, stats} (the spec's dashboard cards; path is ours). */
export async function dashboardRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get("/api/dashboard/stats", async (req) => {
    const user = requireUser(req);
    return { success: true, stats: await getDashboardStats(ctx, user.id) };
  });
}
