import type { FastifyInstance } from "fastify";
import pino, { type DestinationStream, type Logger } from "pino";
import type { Env } from "../../env";

const REDACTED = "[redacted]";
/** properties of database errors that carry row values (drizzle `params`, postgres.js `parameters`/`args`, Postgres `detail`) */
const VALUE_KEYS = ["params", "parameters", "args", "detail"] as const;

/** Every error in `err`'s cause chain (at most 10 deep). */
function causeChain(err: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let e: unknown = err;
  while (e && typeof e === "object" && out.length < 10 && !out.includes(e as Record<string, unknown>)) {
    out.push(e as Record<string, unknown>);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/**
 * pino's error serializer without the values of failed queries (issue 11: failed-query logs held
 * password hashes and personal data). Drizzle's `DrizzleQueryError` repeats its parameters in its
 * message ("Failed query: ...\nparams: a,b"), so the `params: ...` text is replaced in the message and
 * stack by a count; `params`/`parameters`/`args` and Postgres' `detail` ("Key (email)=(...) already
 * exists") are replaced by "[redacted]" on the error and its causes. The SQL text (placeholders
 * only), the Postgres code, constraint, table and column names stay, so the log still says what failed.
 */
export function redactErrorSerializer(err: unknown): unknown {
  const chain = causeChain(err);
  const texts: string[] = [];
  for (const e of chain) {
    const params = e.params ?? e.parameters;
    if (Array.isArray(params)) texts.push(`params: ${params.join(",")}`, `params: ${String(params)}`);
  }
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (!out || typeof out !== "object") return out;
  const scrub = (s: unknown) => {
    if (typeof s !== "string") return s;
    let r = s;
    for (const t of texts) if (t.length > "params: ".length) r = r.split(t).join(`params: ${REDACTED}`);
    return r;
  };
  const clean = (o: Record<string, unknown>, depth: number) => {
    for (const k of VALUE_KEYS) if (o[k] !== undefined) o[k] = REDACTED;
    for (const k of ["message", "stack"]) if (k in o) o[k] = scrub(o[k]);
    if (depth < 5)
      for (const v of Object.values(o))
        if (v && typeof v === "object" && !Array.isArray(v)) clean(v as Record<string, unknown>, depth + 1);
  };
  clean(out, 0);
  return out;
}

/** Fields of the one line logged per request (the pretty printer folds them into the message). */
const REQUEST_LINE_FIELDS = ["reqId", "method", "url", "status", "ms"];

/**
 * Options for pino (Fastify's logger and the standalone one): human-readable through the pino-pretty
 * transport in development only (one line per entry, request fields folded into the message), one
 * JSON object per line everywhere else (production, test), nothing at `silent`.
 */
export function loggerOptions(env: Pick<Env, "LOG_LEVEL" | "NODE_ENV">) {
  const pretty = env.NODE_ENV === "development";
  return {
    level: env.LOG_LEVEL,
    redact: {
      paths: [
        "req.headers.cookie",
        "req.headers.authorization",
        "*.password",
        "*.currentPassword",
        "*.newPassword",
        "*.passwordHash",
        "*.password_hash",
        "*.token",
      ],
      censor: REDACTED,
    },
    serializers: { err: redactErrorSerializer, error: redactErrorSerializer },
    ...(pretty
      ? {
          transport: {
            target: "pino-pretty",
            options: {
              translateTime: "HH:MM:ss",
              ignore: ["pid", "hostname", ...REQUEST_LINE_FIELDS].join(","),
              singleLine: true,
            },
          },
        }
      : {}),
  };
}

/**
 * A standalone pino logger (the server entry, worker, scripts). `destination` overrides stdout
 * (tests capture the lines); it is ignored in development, where the pretty transport writes.
 */
export function createLogger(
  env: Pick<Env, "LOG_LEVEL" | "NODE_ENV">,
  destination?: DestinationStream,
): Logger {
  const options = loggerOptions(env);
  return destination && !("transport" in options) ? pino(options, destination) : pino(options);
}

/**
 * Paths whose segments after the prefix are secrets: links that act for whoever holds them. The
 * invitation (`/api/invites/{token}`, `.../accept`, the page `/invite/{token}`), the unsubscribe page
 * (`/u/{token}`), a video landing page and its media and events (`/v/{token}`, `/v/t/{public id}`
 * thumbnails), signed voicemail audio (`/va/{campaignId}[/{recipientId}]/{signature}.mp3`), click
 * tracking (`/c/{token}/{i}/{signature}`), TwiML documents (`/api/webhooks/voice/twiml/{id}`,
 * providers/voice TWIML_DOCUMENT_PATH), a voicemail drop's status callback
 * (`/api/webhooks/dropcowboy/rvm/{token}`, campaigns.voicemail VOICEMAIL_STATUS_PATH) and local
 * checkout sessions (`/local-checkout/{id}`). Email
 * verification, password reset and recovery links carry their token in the query string, which is
 * never logged.
 */
const SECRET_PATH_PREFIXES = [
  "/api/invites/",
  "/invite/",
  "/u/",
  "/v/",
  "/va/",
  "/c/",
  "/api/webhooks/voice/twiml/",
  "/api/webhooks/dropcowboy/rvm/",
  "/local-checkout/",
];
/** Under a secret prefix, segments that are route words or ids, not secrets (kept in the log). */
const PUBLIC_SEGMENT = /^(?:accept|video|poster|events|t|\d{1,15})$/;
/** Static files under a secret prefix, logged as they are. */
const PUBLIC_PREFIXES = ["/v/assets/"];

/**
 * `path` (no query string) as the request log writes it: under a SECRET_PATH_PREFIXES prefix, each
 * later segment becomes "[redacted]" unless it is a route word or a number (PUBLIC_SEGMENT), e.g.
 * `/api/invites/abc/accept` -> `/api/invites/[redacted]/accept`, `/c/tok/2/sig` ->
 * `/c/[redacted]/2/[redacted]`. The prefix is matched case-insensitively on the path with its
 * percent-escapes decoded (decodeURI, which keeps `%2F`: the segments stay the same), as the router
 * matches it; a request that matched no route is redacted the same way.
 */
export function redactLoggedPath(path: string): string {
  let plain = path;
  try {
    plain = decodeURI(path);
  } catch {
    // not decodable: matched as written
  }
  const lower = plain.toLowerCase();
  if (PUBLIC_PREFIXES.some((p) => lower.startsWith(p))) return path;
  const prefix = SECRET_PATH_PREFIXES.find((p) => lower.startsWith(p));
  if (!prefix) return path;
  const kept = prefix.split("/").length - 1;
  const raw = path.split("/");
  const decoded = plain.split("/");
  if (raw.length !== decoded.length) return `${prefix}${REDACTED}`;
  return raw
    .map((seg, i) => (i < kept || seg === "" || PUBLIC_SEGMENT.test(decoded[i]!) ? seg : REDACTED))
    .join("/");
}

/**
 * One log line per request instead of Fastify's two ("incoming request" + "request completed"): at
 * response time, `{reqId, method, url, status, ms}` with the message "GET /api/contacts 200 3.1 ms".
 * `url` is the path without its query string (queries can carry tokens and search terms), with the
 * secrets some paths carry (invitation, unsubscribe, video, voicemail, click links) replaced by
 * "[redacted]" (redactLoggedPath).
 * Register on an app created with `disableRequestLogging: true`.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook("onResponse", async (req, reply) => {
    const url = redactLoggedPath(req.url.split("?")[0]!);
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const status = reply.statusCode;
    const line = { method: req.method, url, status, ms };
    const msg = `${req.method} ${url} ${status} ${ms} ms`;
    if (status >= 500) req.log.error(line, msg);
    else req.log.info(line, msg);
  });
}
export type { Logger };
