import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { clearSessionCookie, requireUser, setSessionCookie } from "../../http/auth";
import { parseInput } from "../../lib/validate";
import { loginInput, registerInput } from "./auth.schemas";
import * as auth from "./auth.service";

/** REST adapters for spec section 7: /api/auth/register, login, me, logout. */
export async function authRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/auth/register", async (req, reply) => {
    const input = parseInput(registerInput, req.body);
    const user = await auth.register(ctx, input, { ip: req.ip });
    const s = await auth.createSession(ctx, user.id);
    setSessionCookie(reply, ctx, s.token, s.expiresAt);
    return { success: true, user: auth.toPublicUser(user) };
  });

  app.post("/api/auth/login", async (req, reply) => {
    const input = parseInput(loginInput, req.body);
    const user = await auth.login(ctx, input, { ip: req.ip });
    const s = await auth.createSession(ctx, user.id);
    setSessionCookie(reply, ctx, s.token, s.expiresAt);
    return { success: true, user: auth.toPublicUser(user) };
  });

  app.get("/api/auth/me", async (req) => ({ user: auth.toPublicUser(requireUser(req)) }));

  app.post("/api/auth/logout", async (req, reply) => {
    if (req.auth) await auth.invalidateSession(ctx, req.auth.session.id);
    clearSessionCookie(reply, ctx);
    return { success: true };
  });
}
