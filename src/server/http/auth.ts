import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { AppContext } from "../context";
import type { Session, User } from "../db/schema";
import { API_KEY_PREFIX } from "../features/api/api.service";
import { SESSION_COOKIE, SESSION_TTL_MS, validateSessionToken } from "../features/auth/auth.service";
import {
  assertShownWorkspace,
  isMemberOfShownWorkspace,
  resolveTenant,
  type Tenant,
} from "../features/workspaces/workspaces.service";
import { AppError } from "../lib/errors";
import { SHOWN_WORKSPACE_HEADER, SHOWN_WORKSPACE_PARAM } from "../lib/shown-workspace";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * the signed-in user, their session and the active workspace (the tenant); `memberOfShown`:
     * whether the user is still a member of the workspace the calling tab shows when that is not the
     * active one (workspaces isMemberOfShownWorkspace), else undefined
     */
    auth: { session: Session; user: User; tenant: Tenant; memberOfShown?: boolean } | null;
  }
}

/**
 * Shared by tRPC and REST: resolves the session cookie on every request into `req.auth`, and
 * refreshes the cookie when the session slid forward.
 */
export const authPlugin = fp(async (app: FastifyInstance, opts: { ctx: AppContext }) => {
  app.decorateRequest("auth", null);
  app.addHook("onRequest", async (req, reply) => {
    // the public API authenticates with API keys only (issue 15): session cookies are not read there
    if (req.url === "/api/v1" || req.url.startsWith("/api/v1/") || req.url.startsWith("/api/v1?")) return;
    const token = req.cookies[SESSION_COOKIE];
    if (!token) return;
    const result = await validateSessionToken(opts.ctx, token);
    if (!result) {
      clearSessionCookie(reply, opts.ctx);
      return;
    }
    // membership is checked on every request (read with the session, one query): a removed
    // member loses the workspace at once
    const { membership, ...auth } = result;
    const tenant = await resolveTenant(opts.ctx, result.session, result.user, membership);
    // a tab showing another workspace is refused (requireTenant, protectedProcedure); the refusal says
    // whether the person still belongs to the one it shows (one query, only for such a tab)
    const memberOfShown = await isMemberOfShownWorkspace(opts.ctx, tenant, shownWorkspaceOf(req));
    req.auth = { ...auth, tenant, ...(memberOfShown === undefined ? {} : { memberOfShown }) };
    // re-send the cookie when the expiry moved (sliding window)
    if (result.session.expiresAt.getTime() - Date.now() > SESSION_TTL_MS - 60_000)
      setSessionCookie(reply, opts.ctx, token, result.session.expiresAt);
  });
});

/** HttpOnly, SameSite=Lax, Secure in production (or COOKIE_SECURE=true). */
export function setSessionCookie(
  reply: FastifyReply,
  ctx: Pick<AppContext, "env">,
  token: string,
  expiresAt: Date,
) {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    secure: ctx.env.isProduction || ctx.env.COOKIE_SECURE,
    path: "/",
    expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, ctx: Pick<AppContext, "env">) {
  reply.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: "lax",
    secure: ctx.env.isProduction || ctx.env.COOKIE_SECURE,
    path: "/",
  });
}

/**
 * The refusal of a signed-out request to a route that takes a session. One that sends an API key
 * (`Authorization: Bearer pw_live_...`, an outside developer at the app's `/api/contacts` rather than
 * `/api/v1/contacts`) is told where keys work instead of being asked to sign in.
 */
function signedOut(req: FastifyRequest): AppError {
  const authorization = req.headers.authorization;
  if (typeof authorization === "string" && /^Bearer\s+/i.test(authorization))
    if (authorization.replace(/^Bearer\s+/i, "").startsWith(API_KEY_PREFIX))
      return new AppError(
        "UNAUTHORIZED",
        "API keys work only on the public API under /api/v1 (e.g. GET /api/v1/contacts; reference at /docs/api). This route is the app's own and takes a signed-in session.",
      );
  return new AppError("UNAUTHORIZED", "Please sign in to continue");
}

/**
 * The signed-in user's id (the tenant). @throws AppError UNAUTHORIZED when signed out (an API key
 * sent here is told to use /api/v1).
 */
export function requireUser(req: FastifyRequest): User {
  if (!req.auth) throw signedOut(req);
  return req.auth.user;
}

/**
 * The signed-in user's active workspace: `{userId, workspaceId, role, plan, workspace}`. Every
 * tenant-scoped REST adapter passes `workspaceId` to its service. A request from an app tab that
 * names the workspace it shows (shownWorkspaceOf) must name this one.
 * @throws AppError UNAUTHORIZED when signed out; CONFLICT when the tab shows another workspace
 *   (workspaces.service assertShownWorkspace).
 */
export function requireTenant(req: FastifyRequest): Tenant {
  if (!req.auth) throw signedOut(req);
  assertShownWorkspace(req.auth.tenant, shownWorkspaceOf(req), req.auth.memberOfShown);
  return req.auth.tenant;
}

/**
 * The workspace the calling browser tab shows: the SHOWN_WORKSPACE_HEADER header, else (downloads
 * opened as links) the SHOWN_WORKSPACE_PARAM query parameter; undefined when neither is a single
 * non-empty string (outside clients send neither).
 */
export function shownWorkspaceOf(req: FastifyRequest): string | undefined {
  const header = req.headers[SHOWN_WORKSPACE_HEADER];
  if (typeof header === "string" && header) return header;
  const param = (req.query as Record<string, unknown> | undefined)?.[SHOWN_WORKSPACE_PARAM];
  return typeof param === "string" && param ? param : undefined;
}
