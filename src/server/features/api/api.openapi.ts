import { z } from "zod";
import { WEBHOOK_EVENT_EXAMPLES } from "../webhooks/webhooks.examples";
import { API_SCOPES } from "./api.schemas";
import { V1_ROUTES } from "./api.v1";
import { errorObject, WEBHOOK_EVENT_DATA } from "./api.v1.schemas";

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

const ERROR_RESPONSES: Record<string, string> = {
  "400": "Invalid request (the message names the field; `param` holds it)",
  "401":
    "Missing, unknown, revoked or expired API key, or a key whose creator is no longer an owner or admin of the workspace",
  "402":
    "The workspace's plan does not include API access, or the request would pass one of its plan's limits (contacts, messages or video messages a month, lead searches a month; the message says which, and the plan to upgrade to)",
  "403":
    "The key lacks the route's scope (the message names it), or a send (a campaign launch) before the key's creator verified their email address",
  "404": "Not found (also another workspace's id)",
  "409": "Conflict, or an Idempotency-Key reused with a different request",
  "413": "The request body is larger than the route accepts",
  "415": "The request body is not JSON",
  "422":
    "Valid, but cannot be carried out (e.g. a campaign whose audience reaches nobody, an unknown location)",
  "429": "Rate limit exceeded; see Retry-After and RateLimit-* headers",
  "500": "Something went wrong on our side; the message holds the request id",
};

/**
 * The response headers of /api/v1, declared on each response: `Request-Id` on every response; the
 * IETF RateLimit-* fields (draft-ietf-httpapi-ratelimit-headers, per key and minute) on every
 * response once the key is known (a 401 or 402 has no key to count against; a 500 may come before);
 * `Retry-After` with a 429; `Idempotent-Replayed` (optional) on a POST replayed from its
 * Idempotency-Key.
 */
const HEADERS: Record<string, JsonSchema> = {
  "Request-Id": {
    description: "This request's id (quote it when asking for help; a 500's message holds it too)",
    schema: { type: "string" },
  },
  "RateLimit-Limit": {
    description: "Requests this API key may make per minute",
    schema: { type: "integer", minimum: 1 },
  },
  "RateLimit-Remaining": {
    description: "Requests left in the current minute",
    schema: { type: "integer", minimum: 0 },
  },
  "RateLimit-Reset": {
    description: "Seconds until the current window resets",
    schema: { type: "integer", minimum: 1 },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying",
    schema: { type: "integer", minimum: 1 },
  },
  "Idempotent-Replayed": {
    description:
      "`true` when this is the stored response of an earlier request with the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
  },
};
const RATE_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

/** The headers of one response (`status` of an operation with `method`), with `required` where always sent. */
function responseHeaders(method: string, status: string): Record<string, unknown> {
  const required = ["Request-Id"];
  if (status !== "401" && status !== "402" && status !== "500") required.push(...RATE_HEADERS);
  if (status === "429") required.push("Retry-After");
  const optional =
    method === "POST" && /^[24]/.test(status) && status !== "429" ? ["Idempotent-Replayed"] : [];
  return Object.fromEntries([
    ...required.map((n) => [n, { ...HEADERS[n], required: true }]),
    ...optional.map((n) => [n, HEADERS[n]]),
  ]);
}

/** The mark a test event (Settings > Webhooks "Test", POST /webhook_endpoints/{id}/test) adds to its example `data`. */
const testMark = z
  .literal(true)
  .optional()
  .describe(
    "present on a test event only: its data is this type's example (webhooks.examples), not a real change",
  );

/**
 * The document's `webhooks` (OpenAPI 3.1): one entry per outbound event type, the POST Pitchwise
 * sends to a subscribed endpoint: the Standard Webhooks headers and the body `{type, timestamp,
 * data}` with that type's data (api.v1.schemas WEBHOOK_EVENT_DATA; a test event's adds `test: true`
 * to the type's example, webhooks.examples, which is also the operation's example).
 */
function webhookOperations(): Record<string, unknown> {
  const header = (name: string, description: string) => ({
    name,
    in: "header",
    required: true,
    description,
    schema: { type: "string" },
  });
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENT_DATA).map(([type, data]) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace(".", "_")}`,
          summary: `${type} event`,
          description:
            "POSTed as JSON to each enabled endpoint subscribed to this event type. Verify the signature with a Standard Webhooks library (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` npm package) over the raw body.",
          tags: ["Webhooks"],
          parameters: [
            header(
              "webhook-id",
              "The event id (msg_...): the same on every retry and resend; use it to drop duplicates",
            ),
            header("webhook-timestamp", "Seconds since the Unix epoch when this attempt was signed"),
            header(
              "webhook-signature",
              "v1,<base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the endpoint's secret after `whsec_` (the bytes, not the secret's text; Standard Webhooks)>; after the secret was rolled (rotate_secret), until the replaced secret expires, a second space-separated signature with that one (`v1,<new> v1,<old>`): accept the delivery when any signature verifies",
            ),
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: toSchema(
                  z.object({
                    type: z.literal(type),
                    timestamp: z.iso.datetime({ offset: true }).describe("when the event happened"),
                    data: data.extend({ test: testMark }),
                  }),
                  "output",
                ),
                example: {
                  type,
                  timestamp: "2026-01-15T14:30:00.000Z",
                  data: WEBHOOK_EVENT_EXAMPLES[type as keyof typeof WEBHOOK_EVENT_EXAMPLES],
                },
              },
            },
          },
          responses: {
            "2XX": {
              description:
                "Delivered. Answer within 10 seconds (the default time limit); the body is ignored.",
            },
            default: {
              description:
                "Any other answer, or none within 10 seconds, is retried with exponential backoff from 40 seconds (12 attempts over 23 to 35 hours; a 429 or 503 with Retry-After is not retried before that time). An endpoint failing for 5 days is disabled and the workspace owner emailed.",
            },
          },
        },
      },
    ]),
  );
}

let cached: JsonSchema | null = null;

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the routes' own zod schemas (zod 4
 * `z.toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1 uses). Every entry of V1_ROUTES is in it.
 */
export function openApiDocument(serverUrl: string): JsonSchema {
  if (!cached) cached = build();
  return { ...cached, servers: [{ url: `${serverUrl.replace(/\/$/, "")}/api/v1` }] };
}

function build(): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of V1_ROUTES) {
    const parameters: unknown[] = [];
    for (const m of r.path.matchAll(/\{(\w+)\}/g))
      parameters.push({ name: m[1], in: "path", required: true, schema: { type: "string" } });
    if (r.query) {
      const qs = toSchema(r.query, "input") as {
        properties?: Record<string, JsonSchema>;
        required?: string[];
      };
      for (const [name, schema] of Object.entries(qs.properties ?? {}))
        parameters.push({
          name,
          in: "query",
          required: qs.required?.includes(name) ?? false,
          schema,
          ...(typeof schema.description === "string" ? { description: schema.description } : {}),
        });
    }
    if (r.method === "POST")
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "A unique key (e.g. a UUID) that makes a retry safe. When the request's work ran, its answer is kept for 24 hours: " +
          "a repeat with the same body (the same JSON: its fields may come in any order, a list's items may not) gets that answer again (with `Idempotent-Replayed: true`) without running the request, " +
          "and a different body gets 409. A repeat while the first request still runs gets 409 too. A refusal that changed " +
          "nothing (invalid input, a missing scope, an unknown id, a conflict, a plan limit: a 4xx) and a 5xx are not kept: " +
          "retry with the same key, with the body corrected if need be, and get the real answer. A refusal that comes after " +
          "the request changed data is kept like a success (a campaign whose inline contacts were created before it was refused).",
        schema: { type: "string", maxLength: 255 },
      });
    const ok = String(r.status ?? 200);
    // a download: the file's bytes in its own type, whole or (Range) in part
    const file = { "*/*": { schema: { type: "string", format: "binary", description: r.binary } } };
    const responses: Record<string, unknown> = r.binary
      ? {
          "200": {
            description: `The file (${r.binary})`,
            headers: responseHeaders(r.method, "200"),
            content: file,
          },
          "206": {
            description: "The part of the file the Range header asked for (see Content-Range)",
            headers: responseHeaders(r.method, "206"),
            content: file,
          },
        }
      : {
          [ok]: {
            description: "Success",
            headers: responseHeaders(r.method, ok),
            content: { "application/json": { schema: toSchema(r.response, "output") } },
          },
        };
    const errors = r.binary
      ? {
          ...ERROR_RESPONSES,
          "416": "The Range header asks for bytes past the end of the file (`param`: Range)",
        }
      : ERROR_RESPONSES;
    for (const [code, description] of Object.entries(errors))
      responses[code] = {
        description,
        headers: responseHeaders(r.method, code),
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      description: `Scope: \`${r.scope}\`${r.description ? `. ${r.description}` : ""}`,
      tags: [r.tag],
      security: [{ bearerAuth: [r.scope] }],
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? {
            requestBody: {
              required: !r.bodyOptional,
              content: { "application/json": { schema: toSchema(r.body, "input") } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Pitchwise API",
      version: "1.0.0",
      description:
        "The Pitchwise public REST API. Authenticate with `Authorization: Bearer pw_live_...` (Settings > API keys; Business plan and up). " +
        "Fields are snake_case, times ISO 8601, lists use keyset cursor pagination (`limit`, `cursor`, `next_cursor`; the next page may use another `limit`), errors are `{error: {type, message, param?}}`, " +
        "query strings and request bodies are closed (an unknown query parameter or field is a 400 naming it in `param`), " +
        "every response carries `Request-Id`, and POSTs accept an `Idempotency-Key`. Rate limit per key: see the RateLimit-* headers. " +
        "Outbound webhooks are signed per the Standard Webhooks specification (webhook-id, webhook-timestamp, webhook-signature); each event type's body is described under Webhooks.",
    },
    tags: ["Contacts", "Notes", "Tags", "Segments", "Campaigns", "Media", "Lead searches", "Webhooks"].map(
      (name) => ({
        name,
      }),
    ),
    paths,
    webhooks: webhookOperations(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: `API key (pw_live_...). Scopes: ${API_SCOPES.join(", ")}`,
        },
      },
      schemas: { Error: toSchema(errorObject, "output") },
    },
  };
}
