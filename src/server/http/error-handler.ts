import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ZodError } from "zod";
import { planRefusalFor } from "../features/billing/billing.service";
import { AppError } from "../lib/errors";
import { describeZodError } from "../lib/validate";

/**
 * One error handler for every REST route: AppError -> its status with `{success:false, error}`, plus
 * `plan_refusal` for a plan refusal (a 402 of billing.plans, or the 409 of a plan change refused for its
 * seats: billing.service PlanRefusalDetail, with
 * `actor_can_pay` for the signed-in member); Fastify's own client errors (bad JSON, body too large,
 * wrong content type) -> 4xx with a clear message; anything else -> 500 with the request id and no
 * internal text.
 */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    if (err instanceof AppError) {
      // `details.expose`: extra fields a service chose to show (e.g. a refused launch's `skipped`)
      const expose = (err.details as { expose?: Record<string, unknown> } | undefined)?.expose;
      const refusal = planRefusalFor(err, req.auth?.tenant.role);
      return reply
        .status(err.status)
        .send({ ...expose, ...(refusal && { plan_refusal: refusal }), success: false, error: err.message });
    }
    if (err instanceof ZodError) {
      return reply.status(400).send({ success: false, error: describeZodError(err) });
    }
    const fe = err as FastifyError;
    const code = fe.code ?? "";
    if (code === "FST_ERR_CTP_BODY_TOO_LARGE" || fe.statusCode === 413)
      return reply.status(413).send({ success: false, error: "Request body is too large" });
    if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || fe.statusCode === 415)
      return reply.status(415).send({ success: false, error: "Unsupported content type" });
    if (
      code === "FST_ERR_CTP_INVALID_JSON_BODY" ||
      code === "FST_ERR_CTP_EMPTY_JSON_BODY" ||
      err instanceof SyntaxError
    )
      return reply.status(400).send({ success: false, error: "The request body is not valid JSON" });
    // busboy (under @fastify/multipart) throws plain Errors for a body that is not multipart
    // ("Multipart: Boundary not found", "Unexpected end of form", "Malformed part header")
    if (
      !fe.statusCode &&
      req.isMultipart?.() &&
      /^(Multipart: |Unexpected end of|Malformed part header|Part terminated early)/.test(err.message)
    )
      return reply.status(400).send({
        success: false,
        error: `The upload is not valid multipart/form-data (${err.message}). Send the file as multipart/form-data with a boundary.`,
      });
    if (fe.statusCode === 429)
      return reply.status(429).send({ success: false, error: "Too many requests. Please slow down." });
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)
      return reply.status(fe.statusCode).send({ success: false, error: fe.message });
    req.log.error({ err }, "unhandled error");
    return reply
      .status(500)
      .send({ success: false, error: `Something went wrong on our side. Reference: ${req.id}` });
  });
}

/**
 * Fastify's `frameworkErrors` option: the errors its router raises before any route or hook runs,
 * which otherwise answer Fastify's own `{error, code, message, statusCode}` body with no request id.
 * - FST_ERR_BAD_URL (a path with a broken percent escape, `/api/v1/contacts/%E0%A4%A`): 400.
 * - FST_ERR_MAX_PARAM_LENGTH (a path parameter over 100 characters, longer than any id): 414.
 * - anything else (FST_ERR_ASYNC_CONSTRAINT): 500.
 * On `/api/v1` the body is the public API's error shape `{error: {type, message}}` with its
 * `Request-Id` header (api.v1 apiV1, README "Public API v1"); elsewhere the REST adapters'
 * `{success: false, error}`.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const [status, message] =
    err.code === "FST_ERR_BAD_URL"
      ? [400, "The URL is not valid: its path holds a broken percent-encoded character."]
      : err.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? [414, "The URL is not valid: a path segment is longer than any id (at most 100 characters)."]
        : [500, `Something went wrong on our side. Reference: ${req.id}`];
  if (status >= 500) req.log.error({ err }, "framework error");
  if (/^\/api\/v1(\/|\?|$)/.test(req.raw.url ?? "")) {
    const type = status >= 500 ? "api_error" : "invalid_request_error";
    return reply.status(status).header("Request-Id", req.id).send({ error: { type, message } });
  }
  return reply.status(status).send({ success: false, error: message });
}
