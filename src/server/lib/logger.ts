import pino, { type Logger } from "pino";
import type { Env } from "../../env";

/** Options for Fastify's pino logger: pretty in development, JSON elsewhere, silent when asked. */
export function loggerOptions(env: Pick<Env, "LOG_LEVEL" | "NODE_ENV">) {
  const pretty = env.NODE_ENV === "development" && process.stdout.isTTY;
  return {
    level: env.LOG_LEVEL,
    redact: [
      "req.headers.cookie",
      "req.headers.authorization",
      "*.password",
      "*.currentPassword",
      "*.newPassword",
    ],
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
