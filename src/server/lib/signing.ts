import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * HMAC-SHA256 of `parts` (joined by a newline after `purpose`, so one purpose's signature never
 * validates another's) under the server's APP_SECRET, base64url, cut to `length` characters
 * (default 22 = 132 bits). Used for links the server hands out and must recognise later
 * (click tracking: issue 11, "sign the target per message").
 */
export function sign(
  secret: string,
  purpose: string,
  parts: readonly (string | number)[],
  length = 22,
): string {
  return createHmac("sha256", secret)
    .update([purpose, ...parts.map(String)].join("\n"))
    .digest("base64url")
    .slice(0, length);
}

/** True when `signature` is `sign(secret, purpose, parts)` (constant-time comparison; false for any malformed input). */
export function verifySignature(
  secret: string,
  purpose: string,
  parts: readonly (string | number)[],
  signature: string | undefined | null,
  length = 22,
): boolean {
  if (typeof signature !== "string" || signature.length !== length) return false;
  const expected = Buffer.from(sign(secret, purpose, parts, length));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
