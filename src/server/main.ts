import fs from "node:fs";
import path from "node:path";
import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import fastifyStatic from "@fastify/static";
import { fastifyTRPCPlugin } from "@trpc/server/adapters/fastify";
import Fastify, { type FastifyInstance, LogController, type RouteOptions } from "fastify";
import helmet from "helmet";
import type { Logger } from "pino";
import type { Env } from "../env";
import type { AppContext } from "./context";
import type { Db, Sql } from "./db/client";
import { apiPublicRest } from "./features/api/api.docs";
import { apiKeysRest } from "./features/api/api.rest";
import { authRest } from "./features/auth/auth.rest";
import { avatarRest } from "./features/avatar/avatar.rest";
import { billingRest } from "./features/billing/billing.rest";
import { campaignsRest } from "./features/campaigns/campaigns.rest";
import { videoCampaignsRest } from "./features/campaigns/campaigns.video-rest";
import { crmRest } from "./features/crm/crm.rest";
import { dashboardRest } from "./features/dashboard/dashboard.rest";
import { demoRest } from "./features/demo/demo.rest";
import { devRest } from "./features/dev/dev.rest";
import { leadsRest } from "./features/leads/leads.rest";
import { studioRest } from "./features/studio/studio.rest";
import { userRest } from "./features/user/user.rest";
import { webhooksRest } from "./features/webhooks/webhooks.rest";
import { workspacesRest } from "./features/workspaces/workspaces.rest";
import { authPlugin } from "./http/auth";
import { clientIpPlugin, trustProxyOption } from "./http/client-ip";
import { cspDirectives, readClientIndex } from "./http/csp";
import { frameworkErrors, registerErrorHandler } from "./http/error-handler";
import { addJsonBodyParser } from "./http/json-body";
import { originCheckPlugin } from "./http/origin";
import type { JobClient } from "./jobs/client";
import { AppError } from "./lib/errors";
import { loggerOptions, registerRequestLog } from "./lib/logger";
import { assertStorableText } from "./lib/nul";
import { APP_ROOT } from "./lib/paths";
import { createRateLimiters } from "./lib/rate-limit";
import type { Providers } from "./providers";
import { createTrpcContextFactory } from "./trpc/context";
import { type AppRouter, appRouter } from "./trpc/router";

/** Built client; CLIENT_DIST_DIR overrides (parallel builds in development). */
export const CLIENT_DIST = path.resolve(process.env.CLIENT_DIST_DIR ?? path.join(APP_ROOT, "dist/client"));

/**
 * Cache-Control of Vite's content-hashed files (`/assets/name-<hash>.js`): they never change. Every
 * other file of the client (index.html, whose script tags name the current hashes) gets `no-cache`.
 */
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

export interface ServerDeps {
  db: Db;
  sql: Sql;
  env: Env;
  providers: Providers;
  jobs: JobClient;
  /** defaults to a pino logger from env */
  logger?: Logger;
  /** serve the built client from dist/client (default: when it exists) */
  serveClient?: boolean;
  /**
   * Called for every route as it is added (Fastify's onRoute hook, registered before any route), so a
   * caller can enumerate the route table: the fuzz test walks every REST route this way.
   */
  onRoute?: (route: RouteOptions) => void;
  /** folder of the built client (default CLIENT_DIST) */
  clientDir?: string;
}

/**
 * Builds the Fastify app: security headers, cookies, session auth, Origin check, tRPC at /trpc,
 * REST adapters under /api, /healthz, the dev outbox (not in production), and the built SPA with
 * history fallback. Used by `npm start` and by integration tests (`app.inject`).
 */
export async function createServer(deps: ServerDeps): Promise<{ app: FastifyInstance; ctx: AppContext }> {
  const { env } = deps;
  const app = Fastify({
    logger: deps.logger ? undefined : loggerOptions(env),
    loggerInstance: deps.logger,
    trustProxy: trustProxyOption(env),
    bodyLimit: 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    // the router's own errors (a broken %-escape, an over-long path parameter) in our error shapes
    frameworkErrors,
    // one line per request from registerRequestLog instead of Fastify's two
    logController: new LogController({ disableRequestLogging: true }),
  } as Parameters<typeof Fastify>[0]) as unknown as FastifyInstance;
  const ctx: AppContext = {
    db: deps.db,
    sql: deps.sql,
    env,
    providers: deps.providers,
    jobs: deps.jobs,
    log: app.log as unknown as Logger,
    limiters: createRateLimiters(env, deps.db),
  };

  if (deps.onRoute) {
    const onRoute = deps.onRoute;
    app.addHook("onRoute", (route) => onRoute(route as RouteOptions));
  }
  registerErrorHandler(app);
  registerRequestLog(app);
  // an empty body sent as application/json is no body, not invalid JSON (http/json-body)
  app.removeContentTypeParser("application/json");
  addJsonBodyParser(app);
  await app.register(clientIpPlugin, { env });
  // every route: a NUL character or a lone surrogate cannot be stored in Postgres text/jsonb;
  // refuse it up front with a 400 (tRPC inputs: trpc/init.ts; multipart fields: the upload routes)
  app.addHook("preHandler", async (req) => {
    assertStorableText(req.params);
    assertStorableText(req.query);
    assertStorableText(req.body);
  });
  const clientDir = path.resolve(deps.clientDir ?? CLIENT_DIST);
  const serveClient = deps.serveClient ?? fs.existsSync(path.join(clientDir, "index.html"));
  const directives = cspDirectives(env, serveClient ? readClientIndex(clientDir) : null);
  // the security headers, built once: @fastify/helmet built its helmet middleware again for every
  // request (its CSP directives parsed anew: ~2% of a request's server CPU in the bench:api profile)
  const securityHeaders = helmet({
    // issue 11: the app, Plyr, maplibre, wavesurfer, /docs/api and the local checkout work under it (http/csp.ts)
    contentSecurityPolicy: {
      useDefaults: false,
      directives: Object.fromEntries(Object.entries(directives).filter(([, v]) => v !== null)) as Record<
        string,
        string[]
      >,
    },
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: "same-site" },
  });
  app.addHook("onRequest", (req, reply, done) =>
    securityHeaders(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)),
  );
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 256 * 1024 });
  await app.register(multipart, { limits: { fileSize: 100 * 1024 * 1024, files: 1, fields: 20 } });
  await app.register(authPlugin, { ctx });
  await app.register(originCheckPlugin, { appUrl: env.APP_URL });

  app.get("/healthz", async (_req, reply) => {
    try {
      await deps.sql`select 1`;
      return { ok: true };
    } catch {
      return reply.status(503).send({ ok: false, error: "database unreachable" });
    }
  });

  // tRPC answers GET (queries) and POST (mutations) with JSON; anything else is refused here with a
  // 405/415 sentence (the adapter itself threw a 500 for TRACE, which undici's Request refuses, and
  // for a multipart body, which @fastify/multipart had already claimed)
  app.addHook("onRequest", async (req, reply) => {
    if (req.url !== "/trpc" && !req.url.startsWith("/trpc/") && !req.url.startsWith("/trpc?")) return;
    if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "POST") {
      reply.header("allow", "GET, POST");
      throw new AppError(
        "METHOD_NOT_ALLOWED",
        `${req.method} is not supported here: call tRPC queries with GET and mutations with POST.`,
      );
    }
    const type = req.headers["content-type"];
    if (req.method === "POST" && type && !/^application\/json\s*(;|$)/i.test(type))
      throw new AppError(
        "UNSUPPORTED_MEDIA_TYPE",
        `tRPC takes a JSON body: send Content-Type: application/json (got '${type.split(";")[0]?.slice(0, 60)}').`,
      );
  });
  await app.register(fastifyTRPCPlugin, {
    prefix: "/trpc",
    trpcOptions: {
      router: appRouter,
      createContext: createTrpcContextFactory(ctx),
      onError({ error, path }: { error: Error & { code?: string }; path?: string }) {
        if (error.code === "INTERNAL_SERVER_ERROR") app.log.error({ err: error, path }, "tRPC error");
      },
    } as { router: AppRouter },
  });

  for (const plugin of [
    authRest,
    userRest,
    workspacesRest,
    demoRest,
    dashboardRest,
    crmRest,
    leadsRest,
    campaignsRest,
    videoCampaignsRest,
    studioRest,
    avatarRest,
    billingRest,
    apiKeysRest,
    webhooksRest,
    apiPublicRest,
  ]) {
    await app.register(plugin, { ctx });
  }
  if (!env.isProduction) await app.register(devRest, { ctx });

  if (serveClient) {
    // `vite build` writes name.br and name.gz beside every text file (vite.config.ts): sent as-is to a
    // browser that accepts them, with `Vary: Accept-Encoding`
    await app.register(fastifyStatic, {
      root: clientDir,
      wildcard: false,
      index: false,
      preCompressed: true,
      cacheControl: false,
      setHeaders(reply, filePath) {
        const rel = path.relative(clientDir, filePath).split(path.sep);
        reply.header("cache-control", rel[0] === "assets" ? IMMUTABLE_CACHE : "no-cache");
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split("?")[0];
    const isApi = url.startsWith("/api/") || url.startsWith("/trpc/") || url === "/healthz";
    if (serveClient && (req.method === "GET" || req.method === "HEAD") && !isApi && !path.extname(url)) {
      return reply.type("text/html").sendFile("index.html");
    }
    return reply.status(404).send({ success: false, error: `Not found: ${req.method} ${url}` });
  });

  return { app, ctx };
}
