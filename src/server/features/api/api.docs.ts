import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { openApiDocument } from "./api.openapi";
import { apiV1 } from "./api.v1";

const require = createRequire(import.meta.url);
/** swagger-ui-dist from npm: served from our own origin, so the docs work offline. */
const SWAGGER_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pitchwise API reference</title>
<link rel="stylesheet" href="/docs/api/assets/swagger-ui.css">
<style>body{margin:0}.topbar{display:none}</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/api/assets/swagger-ui-bundle.js"></script>
<script src="/docs/api/init.js"></script>
</body>
</html>`;

/** Try-it console: "Authorize" takes the user's API key (kept in this browser only). */
const INIT = `window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  requestInterceptor: function (req) { req.credentials = "omit"; return req; }
});`;

/**
 * The public API v1 under /api/v1 (apiV1) plus its OpenAPI document at GET /api/v1/openapi.json
 * (no key needed) and the docs page at /docs/api (Swagger UI from the swagger-ui-dist package).
 */
export async function apiPublicRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  await app.register(
    async (v1) => {
      await apiV1(v1, { ctx });
      v1.get("/openapi.json", { config: { public: true } }, async () => openApiDocument(ctx.env.APP_URL));
    },
    { prefix: "/api/v1" },
  );
  app.get("/docs/api", async (_req, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
  app.get("/docs/api/init.js", async (_req, reply) =>
    reply.type("application/javascript; charset=utf-8").header("cache-control", "no-cache").send(INIT),
  );
  app.get("/docs/api/assets/:file", async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const type = ASSETS[file];
    if (!type) return reply.status(404).send({ success: false, error: "Not found" });
    return reply
      .type(type)
      .header("cache-control", "public, max-age=86400")
      .send(fs.createReadStream(path.join(SWAGGER_DIR, file)));
  });
}
