/**
 * A vendor call that failed. `transient` errors (HTTP 429, 5xx, network) are retried with backoff by
 * the caller; permanent ones are recorded with the vendor's reason.
 */
export class ProviderError extends Error {
  readonly transient: boolean;
  readonly vendorCode?: string | number;
  readonly httpStatus?: number;
  constructor(
    message: string,
    opts: { transient: boolean; vendorCode?: string | number; httpStatus?: number },
  ) {
    super(message);
    this.name = "ProviderError";
    this.transient = opts.transient;
    this.vendorCode = opts.vendorCode;
    this.httpStatus = opts.httpStatus;
  }
}

/** Classifies an HTTP status per common vendor practice: 408, 429 and 5xx are worth retrying. */
export function isTransientStatus(status: number | undefined): boolean {
  if (status === undefined) return true;
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Whether a failed send may still have been taken by the vendor: an error without an HTTP answer (a
 * timeout, a dropped connection, any non-ProviderError), a 408 or a 5xx may come after the vendor
 * accepted the message; an HTTP 429 or another 4xx is the vendor's refusal before taking it.
 * Beside isTransientStatus (worth retrying): a 429 is transient but not ambiguous.
 */
export function mayHaveBeenTaken(e: unknown): boolean {
  if (!(e instanceof ProviderError) || e.httpStatus === undefined) return true;
  return e.httpStatus === 408 || e.httpStatus >= 500;
}
