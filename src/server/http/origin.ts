import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { SESSION_COOKIE } from "../features/auth/auth.service";
import { AppError } from "../lib/errors";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** REST paths that sign a person in or change their password: checked whether or not a cookie is sent. */
const ACCOUNT_PATHS = new Set([
  "/api/auth/login",
  "/api/auth/register",
  "/api/auth/forgot-password",
  "/api/auth/reset-password",
  "/api/auth/verify-email",
  "/api/auth/recover-email",
]);
/** tRPC procedures with the same role (a batch is checked when any of its procedures is one). */
const ACCOUNT_PROCEDURES = new Set([
  "auth.login",
  "auth.register",
  "auth.forgotPassword",
  "auth.resetPassword",
  "auth.verifyEmail",
  "auth.recoverEmail",
]);

/** The route the tRPC adapter registers (fastifyTRPCPlugin, prefix /trpc): `${prefix}/:path`. */
const TRPC_ROUTE = "/trpc/:path";

/**
 * True for the sign-in, sign-up and password-reset endpoints (REST and tRPC), read from the route
 * Fastify matched, as the handler that runs will see it: `route` is the matched route's declared path
 * (`req.routeOptions.url`, undefined when none matched: a 404 runs nothing) and `params` its
 * parameters as the router decoded them. A REST path is compared as declared, so a percent-encoded
 * spelling (`/api/auth/%6Cogin`) is the route it reaches. A tRPC path is read as tRPC reads it: the
 * adapter hands tRPC the `:path` parameter, which tRPC decodes (decodeURIComponent) and only then
 * splits on "," into the batch's procedures (@trpc/server resolveResponse), so
 * `auth.login%2Cauth.login` is two auth.login calls (splitting first and decoding each piece saw
 * one unknown procedure there). A path tRPC cannot decode (it answers 400, running nothing) counts
 * as an account endpoint: checking it costs nothing.
 */
export function isAccountEndpoint(route: string | undefined, params: unknown): boolean {
  if (!route) return false;
  if (ACCOUNT_PATHS.has(route)) return true;
  if (route !== TRPC_ROUTE) return false;
  const path = (params as { path?: unknown } | undefined)?.path;
  if (typeof path !== "string") return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return true;
  }
  return decoded.split(",").some((p) => ACCOUNT_PROCEDURES.has(p));
}

function hostOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value).host || null;
  } catch {
    return null;
  }
}

/**
 * CSRF defence from the Lucia recipe: a state-changing request that carries the session cookie must
 * come with an `Origin` whose host equals the request's Host (or APP_URL's host). Requests without
 * the cookie (webhooks, public forms) are not affected, except the account endpoints
 * (`isAccountEndpoint`: login, register, password reset, email verification), where a cross-site
 * form would sign the visitor into an account of the attacker's choosing (login CSRF, issue 11):
 * there a browser request is refused when its `Origin` (or, without one, its `Referer`) names
 * another site, is `null`, or `Sec-Fetch-Site` says `cross-site`. A request with none of these
 * headers is not from a browser form (every current browser sends `Origin` on a POST) and passes.
 */
export const originCheckPlugin = fp(async (app: FastifyInstance, opts: { appUrl: string }) => {
  const appHost = new URL(opts.appUrl).host;
  const sameSite = (host: string | null, req: FastifyRequest) =>
    !!host && (host === req.headers.host || host === appHost);
  app.addHook("onRequest", async (req) => {
    if (SAFE.has(req.method)) return;
    const refuse = () => {
      throw new AppError(
        "FORBIDDEN",
        "Cross-site request refused: the Origin header does not match this site",
      );
    };
    if (req.cookies[SESSION_COOKIE]) {
      if (!sameSite(hostOf(req.headers.origin), req)) refuse();
      return;
    }
    if (!isAccountEndpoint(req.routeOptions.url, req.params)) return;
    const origin = req.headers.origin;
    const referer = typeof req.headers.referer === "string" ? req.headers.referer : undefined;
    if (req.headers["sec-fetch-site"] === "cross-site") refuse();
    if (origin !== undefined) {
      if (!sameSite(hostOf(origin), req)) refuse();
    } else if (referer !== undefined && !sameSite(hostOf(referer), req)) refuse();
  });
});
