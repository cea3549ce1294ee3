import type { FastifyInstance } from "fastify";

/**
 * Registers the `application/json` body parser on `app` (the app's root, and /api/v1's own plugin
 * after it removed every parser): an empty or whitespace-only body is no body (`undefined`), not
 * invalid JSON, since many clients (axios defaults, fetch wrappers, Postman) send that Content-Type
 * on every request, a body-less DELETE or POST included; a route that needs a body refuses it as
 * missing (lib/validate parseInput: "The request body is missing: send a JSON object"). Any other body
 * goes to Fastify's own JSON parser with its prototype-poisoning rules (`__proto__` and
 * `constructor.prototype` keys are errors). The caller removes an `application/json` parser already
 * registered in `app`'s scope first.
 */
export function addJsonBodyParser(app: FastifyInstance): void {
  const defaultJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    if (typeof body === "string" && body.trim() === "") return done(null, undefined);
    return defaultJson(req, body as string, done);
  });
}
