/**
 * The SQLSTATE of a Postgres error as postgres.js throws it (`code`) or as drizzle and our own
 * wrappers pass it on (`cause`, followed up to 4 levels), e.g. "23505" unique violation, "23503"
 * foreign key violation, "40P01" deadlock; undefined for any other error.
 * Codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
export function pgErrorCode(e: unknown): string | undefined {
  let err = e as { code?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; err && typeof err === "object" && depth < 5; depth++) {
    if (typeof err.code === "string" && /^[0-9A-Z]{5}$/.test(err.code)) return err.code;
    err = err.cause as typeof err;
  }
  return undefined;
}

/**
 * True when `e` is Postgres error `code` (SQLSTATE, e.g. "23503" foreign key violation, "23505" unique
 * violation) raised by the constraint named `constraint`, on the error or its `cause` chain (up to 5
 * levels, as pgErrorCode): a race the caller knows how to answer, told apart from any other
 * violation of the same kind.
 */
export function isConstraintViolation(e: unknown, code: string, constraint: string): boolean {
  let err = e as { code?: unknown; constraint_name?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; err && typeof err === "object" && depth < 5; depth++) {
    if (err.code === code && err.constraint_name === constraint) return true;
    err = err.cause as typeof err;
  }
  return false;
}

/** True when `e` is Postgres' unique violation (23505): a taken email, name or key. */
export function isUniqueViolation(e: unknown): boolean {
  return pgErrorCode(e) === "23505";
}
