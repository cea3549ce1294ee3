import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant, requireUser } from "../../http/auth";
import { parseInput } from "../../lib/validate";
import { changePasswordAndRetireLinks, toPublicUser, updateProfileAndFollow } from "../auth/auth.service";
import { passwordInput, profileInput, settingsInput } from "./user.schemas";
import * as svc from "./user.service";

/** PUT /api/user/profile|password|settings (spec section 7). */
export async function userRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.put("/api/user/profile", async (req) => {
    const user = requireUser(req);
    const updated = await updateProfileAndFollow(ctx, user, parseInput(profileInput, req.body), {
      ip: req.clientIp,
      sessionId: req.auth!.session.id,
    });
    return { success: true, user: toPublicUser(updated, requireTenant(req).workspace) };
  });
  app.put("/api/user/password", async (req) => {
    const user = requireUser(req);
    await changePasswordAndRetireLinks(ctx, user, req.auth!.session.id, parseInput(passwordInput, req.body), {
      ip: req.clientIp,
    });
    return { success: true };
  });
  app.put("/api/user/settings", async (req) => {
    const user = requireUser(req);
    const updated = await svc.updateSettings(ctx, user, parseInput(settingsInput, req.body));
    return { success: true, user: toPublicUser(updated, requireTenant(req).workspace) };
  });
}
