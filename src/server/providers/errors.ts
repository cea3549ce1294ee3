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
