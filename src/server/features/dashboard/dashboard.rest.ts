import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import { getDashboardStats } from "./dashboard.service";

/** GET /api/dashboard/stats -> {success, stats} (the spec's dashboard cards; path is ours). */
export async function dashboardRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get("/api/dashboard/stats", async (req) => {
    const tenant = requireTenant(req);
    return { success: true, stats: await getDashboardStats(ctx, tenant.workspaceId) };
  });
}
