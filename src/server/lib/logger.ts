import pino, { type Logger } from "pino";
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

/** Options for Fastify's pino logger: pretty in development, JSON elsewhere, silent when asked. */
export function loggerOptions(env: Pick<Env, "LOG_LEVEL" | "NODE_ENV">) {
  const pretty = env.NODE_ENV === "development" && process.stdout.isTTY;
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
            options: { translateTime: "HH:MM:ss", ignore: "pid,hostname" },
          },
        }
      : {}),
  };
}

/** A standalone pino logger (worker, scripts). */
export function createLogger(env: Pick<Env, "LOG_LEVEL" | "NODE_ENV">): Logger {
  return pino(loggerOptions(env));
}
export type { Logger };
