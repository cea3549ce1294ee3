import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";

/**
 * The one error table: each AppError code maps to an HTTP status (REST adapters) and a tRPC code.
 * Source: ARCHITECTURE.md "One error type".
 */
export const ERROR_TABLE = {
  BAD_REQUEST: { status: 400, trpc: "BAD_REQUEST" },
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED" },
  CONFLICT: { status: 409, trpc: "CONFLICT" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  UNPROCESSABLE: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  TOO_MANY_REQUESTS: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  PAYMENT_REQUIRED: { status: 402, trpc: "FORBIDDEN" },
  BAD_GATEWAY: { status: 502, trpc: "INTERNAL_SERVER_ERROR" },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

export type AppErrorCode = keyof typeof ERROR_TABLE;

/** A business error whose message is safe to show to the user as is. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly details?: unknown;
  constructor(code: AppErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

export const notFound = (what = "Not found") => new AppError("NOT_FOUND", what);
export const badRequest = (message: string, details?: unknown) =>
  new AppError("BAD_REQUEST", message, details);

/** Errors raised after their request had already committed changes (markRaisedAfterChanges). */
const raisedAfterChangesSet = new WeakSet<object>();

/**
 * Marks `err` (returned as is, for `throw markRaisedAfterChanges(e)`) as raised after the request
 * it ends had already committed changes that its failure does not undo, e.g. the contacts a
 * campaign launch creates from inline recipients before its plan check or audience check refuses
 * it. The public API's Idempotency-Key handling stores such a 4xx answer instead of releasing the
 * key (api.service finishIdempotent): its work began, so a retry with the key must not run it again
 * (Stripe: results are saved once the endpoint began executing). The error itself is unchanged (its
 * status, message and details); a value that is not an object cannot be marked and is returned as is.
 */
export function markRaisedAfterChanges<E>(err: E): E {
  if (typeof err === "object" && err !== null) raisedAfterChangesSet.add(err);
  return err;
}

/** True for an error marked by markRaisedAfterChanges. */
export function raisedAfterChanges(err: unknown): boolean {
  return typeof err === "object" && err !== null && raisedAfterChangesSet.has(err);
}
