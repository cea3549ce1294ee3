import { createHash, randomBytes } from "node:crypto";
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";

/** A URL-safe random token with `bytes` bytes of entropy (default 20 = 160 bits), base32 lower case. */
export function randomToken(bytes = 20): string {
  return encodeBase32LowerCaseNoPadding(randomBytes(bytes));
}

/**
 * A deterministic UUID (v4 layout) from a string key: the pg-boss job id of an idempotent enqueue
 * (a second send of the same key is ignored while the first job is kept).
 */
export function uuidFromKey(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * True when `id` is a UUID in its canonical text form: 32 hex digits in groups 8-4-4-4-12 separated by
 * dashes, any case, any version. Every such string is a valid Postgres `uuid` input, so an id that
 * passes never makes a query fail with "invalid input syntax for type uuid" (a 500); callers answer
 * 404 for an id that fails, as for any unknown id. (A loose /^[0-9a-f-]{36}$/ let 36 dashes through.)
 */
export function isUuid(id: string): boolean {
  return UUID_RE.test(id);
}
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
