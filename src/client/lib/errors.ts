import { TRPCClientError } from "@trpc/client";

/** Shown when the server could not be reached (no HTTP answer). */
export const NETWORK_ERROR_MESSAGE = "Network error. Please try again.";

/**
 * The HTTP status of a failed call: a tRPC error's `data.httpStatus`, or the `status` of an error that
 * carries one (the REST wrapper's ApiError, 0 for a network failure); undefined when unknown.
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof TRPCClientError)
    return (error.data as { httpStatus?: number } | undefined)?.httpStatus ?? 0;
  const status = error instanceof Error ? (error as Error & { status?: unknown }).status : undefined;
  return typeof status === "number" ? status : undefined;
}

/**
 * The text to show for a caught tRPC error: the server's message when it answered (its sentences are
 * written for people; unknown errors arrive as 'Something went wrong on our side'), the network
 * sentence when it did not; anything else gives `fallback`.
 */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof TRPCClientError)
    return httpStatusOf(error) ? error.message || fallback : NETWORK_ERROR_MESSAGE;
  return fallback;
}

/** True when the server refused a tRPC call (4xx/5xx) rather than the network failing. */
export function isServerRefusal(error: unknown): boolean {
  return error instanceof TRPCClientError && Boolean(httpStatusOf(error));
}
