import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { SESSION_COOKIE } from "../features/auth/auth.service";
import { AppError } from "../lib/errors";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence from the Lucia recipe: a state-changing request that carries the session cookie must
 * come with an `Origin` whose host equals the request's Host (or APP_URL's host). Requests without
 * the cookie (webhooks, public forms) are not affected.
 */
export const originCheckPlugin = fp(async (app: FastifyInstance, opts: { appUrl: string }) => {
  const appHost = new URL(opts.appUrl).host;
  app.addHook("onRequest", async (req) => {
    if (SAFE.has(req.method)) return;
    if (!req.cookies[SESSION_COOKIE]) return;
    const origin = req.headers.origin;
    let host: string | null = null;
    try {
      host = origin ? new URL(origin).host : null;
    } catch {
      host = null;
    }
    if (!host || (host !== req.headers.host && host !== appHost))
      throw new AppError(
        "FORBIDDEN",
        "Cross-site request refused: the Origin header does not match this site",
      );
  });
});
