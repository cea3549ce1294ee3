import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { clearSessionCookie, requireTenant, requireUser, setSessionCookie } from "../../http/auth";
import { parseInput } from "../../lib/validate";
import { loginInput, registerInput } from "./auth.schemas";
import * as auth from "./auth.service";

/** REST adapters for spec section 7: /api/auth/register, login, me, logout. */
export async function authRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/auth/register", async (req, reply) => {
    const r = await auth.signUp(ctx, parseInput(registerInput, req.body), { ip: req.clientIp });
    setSessionCookie(reply, ctx, r.token, r.expiresAt);
    return { success: true, user: auth.toPublicUser(r.user, r.workspace) };
  });

  app.post("/api/auth/login", async (req, reply) => {
    const r = await auth.signIn(ctx, parseInput(loginInput, req.body), { ip: req.clientIp });
    setSessionCookie(reply, ctx, r.token, r.expiresAt);
    return { success: true, user: auth.toPublicUser(r.user, r.workspace) };
  });

  /** The spec's `{user}` plus the active workspace and every workspace of the user (issue 10). */
  app.get("/api/auth/me", async (req) => auth.describeSession(ctx, requireUser(req), requireTenant(req)));

  app.post("/api/auth/logout", async (req, reply) => {
    if (req.auth) await auth.invalidateSession(ctx, req.auth.session.id);
    clearSessionCookie(reply, ctx);
    return { success: true };
  });
}
