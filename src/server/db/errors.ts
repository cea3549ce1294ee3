/**
 * The SQLSTATE of a Postgres error as postgres.js throws it (`code`) or drizzle wraps it (`cause.code`),
 * e.g. "23505" unique violation, "23503" foreign key violation, "40P01" deadlock; undefined for any
 * other error. Codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
export function pgErrorCode(e: unknown): string | undefined {
  const err = e as { code?: unknown; cause?: { code?: unknown } } | null | undefined;
  const code = typeof err?.code === "string" ? err.code : err?.cause?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
