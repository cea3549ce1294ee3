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

/** True for the sign-in, sign-up and password-reset endpoints (REST and tRPC). */
export function isAccountEndpoint(url: string): boolean {
  const path = url.split("?")[0];
  if (ACCOUNT_PATHS.has(path)) return true;
  if (!path.startsWith("/trpc/")) return false;
  return path
    .slice("/trpc/".length)
    .split(",")
    .some((p) => ACCOUNT_PROCEDURES.has(decodeURIComponent(p)));
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
    if (!isAccountEndpoint(req.url)) return;
    const origin = req.headers.origin;
    const referer = typeof req.headers.referer === "string" ? req.headers.referer : undefined;
    if (req.headers["sec-fetch-site"] === "cross-site") refuse();
    if (origin !== undefined) {
      if (!sameSite(hostOf(origin), req)) refuse();
    } else if (referer !== undefined && !sameSite(hostOf(referer), req)) refuse();
  });
});
