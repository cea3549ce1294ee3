import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import { getDashboardStats } from "./dashboard.service";

/**
 * GET /api/dashboard/stats[?tz=Area/City] -> {success, stats} (the spec's dashboard cards; path is
 * ours). `tz` (IANA) makes "this month" the viewer's calendar month; UTC without it; 400 if unknown.
 */
export async function dashboardRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get("/api/dashboard/stats", async (req) => {
    const tenant = requireTenant(req);
    const tz = (req.query as { tz?: unknown } | undefined)?.tz;
    return {
      success: true,
      stats: await getDashboardStats(
        ctx,
        tenant.workspaceId,
        new Date(),
        typeof tz === "string" ? tz : undefined,
      ),
    };
  });
}
