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
