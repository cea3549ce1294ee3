import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { A11Y_SCRIPT, DOCS_CSS, THEME_SCRIPT } from "./api.docs.theme";
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
<link rel="stylesheet" href="/docs/api/docs.css">
<script src="/docs/api/theme.js"></script>
</head>
<body>
<main id="swagger-ui" aria-label="Pitchwise API reference"></main>
<script src="/docs/api/assets/swagger-ui-bundle.js"></script>
<script src="/docs/api/init.js"></script>
<script src="/docs/api/a11y.js"></script>
</body>
</html>`;

/**
 * Try-it console: "Authorize" takes the user's API key (kept in this browser only). Deep links
 * (#/Tag/operationId) still open an operation, but the path is drawn as plain text: Swagger UI's
 * DeepLink anchor sits inside the operation's expand button, a link inside a button (axe
 * nested-interactive).
 */
const INIT = `window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  plugins: [function () {
    return {
      wrapComponents: {
        DeepLink: function (_Original, system) {
          return function (props) { return system.React.createElement("span", null, props.text); };
        }
      }
    };
  }],
  requestInterceptor: function (req) { req.credentials = "omit"; return req; }
});`;

const SCRIPTS: Record<string, string> = { "init.js": INIT, "theme.js": THEME_SCRIPT, "a11y.js": A11Y_SCRIPT };

/**
 * The public API v1 under /api/v1 (apiV1) plus its OpenAPI document at GET /api/v1/openapi.json
 * (no key needed) and the docs page at /docs/api (Swagger UI from the swagger-ui-dist package, with
 * api.docs.theme.ts's colours, light/dark theme and accessible names; all served from this origin).
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
  for (const [file, body] of Object.entries(SCRIPTS))
    app.get(`/docs/api/${file}`, async (_req, reply) =>
      reply.type("application/javascript; charset=utf-8").header("cache-control", "no-cache").send(body),
    );
  app.get("/docs/api/docs.css", async (_req, reply) =>
    reply.type("text/css; charset=utf-8").header("cache-control", "no-cache").send(DOCS_CSS),
  );
  app.get("/docs/api/assets/:file", async (req, reply) => {
    const file = (req.params as { file: string }).file;
    // own keys only: "constructor" or "__proto__" are on every object (they were a 500: no such file)
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) return reply.status(404).send({ success: false, error: "Not found" });
    return reply
      .type(type)
      .header("cache-control", "public, max-age=86400")
      .send(fs.createReadStream(path.join(SWAGGER_DIR, file)));
  });
}
