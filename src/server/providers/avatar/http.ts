import { ProviderError } from "../errors";

/** What a vendor client hands `requestJson`: how to read that vendor's error bodies. */
export interface VendorHttpOptions {
  vendor: string;
  /** per request, milliseconds */
  timeoutMs: number;
  /** turns a non-2xx JSON (or text) body into a readable reason and an optional vendor code */
  describeError: (status: number, body: unknown) => { message: string; code?: string | number };
  fetchImpl?: typeof fetch;
}

/**
 * One JSON request to a vendor API over fetch.
 * @returns the parsed JSON body of a 2xx response
 * @throws ProviderError: transient for network errors, timeouts, 408, 429 and 5xx; permanent otherwise,
 *   with `httpStatus`, `vendorCode` and a message that names the vendor and its reason.
 */
export async function requestJson(
  opts: VendorHttpOptions,
  url: string,
  init: { method: "GET" | "POST"; headers: Record<string, string>; body?: unknown },
): Promise<unknown> {
  const doFetch = opts.fetchImpl ?? fetch;
  let res: Response;
  try {
    res = await doFetch(url, {
      method: init.method,
      headers: {
        accept: "application/json",
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        ...init.headers,
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    throw new ProviderError(
      timedOut
        ? `${opts.vendor} did not answer within ${Math.round(opts.timeoutMs / 1000)} s`
        : `Could not reach ${opts.vendor}: ${(error as Error).message}`,
      { transient: true },
    );
  }
  const text = await res.text();
  let body: unknown = text;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (res.ok) {
    if (typeof body !== "object" || body === null)
      throw new ProviderError(`${opts.vendor} answered with a body that is not JSON`, {
        transient: true,
        httpStatus: res.status,
      });
    return body;
  }
  const { message, code } = opts.describeError(res.status, body);
  const transient = res.status === 408 || res.status === 429 || res.status >= 500;
  throw new ProviderError(`${opts.vendor}: ${message}`, {
    transient,
    httpStatus: res.status,
    vendorCode: code,
  });
}

/** Reads a string field of an unknown JSON object. */
export function str(obj: unknown, key: string): string | undefined {
  if (typeof obj !== "object" || obj === null) return undefined;
  const v = (obj as Record<string, unknown>)[key];
  return typeof v === "string" ? v : undefined;
}

/** Reads a nested object field of an unknown JSON object. */
export function obj(o: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof o !== "object" || o === null) return undefined;
  const v = (o as Record<string, unknown>)[key];
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
}

/** Reads a number field of an unknown JSON object. */
export function num(o: unknown, key: string): number | undefined {
  if (typeof o !== "object" || o === null) return undefined;
  const v = (o as Record<string, unknown>)[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Generic reasons per HTTP status, used when a vendor's body says nothing readable. */
export function statusReason(status: number): string {
  if (status === 401 || status === 403) return "the API key was rejected (check the key in the environment)";
  if (status === 402) return "the account has no credits left";
  if (status === 404) return "not found";
  if (status === 429) return "rate limit reached, try again shortly";
  if (status >= 500) return `the service failed (HTTP ${status})`;
  return `request refused (HTTP ${status})`;
}
