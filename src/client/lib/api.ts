import {
  NETWORK_ERROR_MESSAGE,
  errorMessage as trpcErrorMessage,
  isServerRefusal as trpcIsServerRefusal,
} from "./errors";

/**
 * Tiny typed fetch wrapper for the REST adapters (`/api/...`, spec section 7).
 *
 * Every call sends the session cookie (`credentials: "include"`) and JSON, and resolves with the parsed
 * JSON body. A non-2xx response, or a body with `success: false`, throws an `ApiError` whose message is
 * the server's `error` text, else `options.fallbackError` (e.g. 'Login failed'), else a generic text.
 * A network failure throws `ApiError(NETWORK_ERROR_MESSAGE, 0)`.
 *
 * @example
 *   const { user } = await api.post<{ user: User }>("/api/auth/login", { email, password }, { fallbackError: "Login failed" });
 */

export { NETWORK_ERROR_MESSAGE };

/** An API failure: `status` is the HTTP status (0 for a network failure); `data` is the parsed body, if any. */
export class ApiError extends Error {
  readonly status: number;
  readonly data: unknown;

  constructor(message: string, status: number, data?: unknown) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.data = data;
  }

  get isNetworkError(): boolean {
    return this.status === 0;
  }

  get isUnauthorized(): boolean {
    return this.status === 401;
  }
}

export interface ApiOptions {
  /** Message used when the server gives no `error` text. */
  fallbackError?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

function serverError(data: unknown): string | undefined {
  if (data && typeof data === "object") {
    const err = (data as { error?: unknown; message?: unknown }).error;
    if (typeof err === "string" && err.trim()) return err;
    if (err && typeof err === "object" && typeof (err as { message?: unknown }).message === "string") {
      return (err as { message: string }).message;
    }
  }
  return undefined;
}

async function request<T>(
  method: Method,
  path: string,
  body?: unknown,
  options: ApiOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) {
    payload = body; // the browser sets the multipart boundary
  } else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }

  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: payload,
      credentials: "include",
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(NETWORK_ERROR_MESSAGE, 0);
  }

  const text = await response.text().catch(() => "");
  let data: unknown;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined; // e.g. an HTML error page from a proxy
    }
  }

  const failed = !response.ok || (data as { success?: unknown } | undefined)?.success === false;
  if (failed) {
    const message =
      serverError(data) ?? options.fallbackError ?? `Request failed (${response.status || "unknown status"})`;
    throw new ApiError(message, response.status, data);
  }
  return (data ?? {}) as T;
}

export const api = {
  get: <T>(path: string, options?: ApiOptions) => request<T>("GET", path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: ApiOptions) => request<T>("POST", path, body, options),
  put: <T>(path: string, body?: unknown, options?: ApiOptions) => request<T>("PUT", path, body, options),
  patch: <T>(path: string, body?: unknown, options?: ApiOptions) => request<T>("PATCH", path, body, options),
  del: <T>(path: string, options?: ApiOptions) => request<T>("DELETE", path, undefined, options),
};

/** The text to show for a caught error: an ApiError's message, else as `errorMessage` of ./errors (tRPC). */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.message;
  return trpcErrorMessage(error, fallback);
}

/** True when the server refused the request (4xx/5xx) rather than the network failing. */
export function isServerRefusal(error: unknown): boolean {
  if (error instanceof ApiError) return !error.isNetworkError;
  return trpcIsServerRefusal(error);
}
