import { z } from "zod";
import { isoUserDateTime } from "../../lib/dates";
import { queryInt } from "../../lib/validate";

/** Scopes an API key may carry (issue 15). */
export const API_SCOPES = [
  "contacts:read",
  "contacts:write",
  "campaigns:read",
  "campaigns:write",
  "media:read",
  "leads:read",
  "webhooks:write",
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/**
 * The latest expiry an API key may be given: 10 years ahead (3,653 days, leap days included). A key
 * meant to outlive that is a key that never expires (`expires_at` left out or null).
 */
export const API_KEY_MAX_EXPIRY_DAYS = 3653;

/** POST /api/api-keys {name, scopes, expires_at?}. */
export const createApiKeySchema = z.strictObject({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(100, "Name must be at most 100 characters"),
  scopes: z
    .array(z.enum(API_SCOPES, { error: `each scope must be one of ${API_SCOPES.join(", ")}` }), {
      error: "scopes must be a list",
    })
    .min(1, "Choose at least one scope")
    .max(API_SCOPES.length, `scopes can list at most the ${API_SCOPES.length} scopes, each once`)
    .transform((s) => [...new Set(s)]),
  expires_at: isoUserDateTime({
    invalid: "expires_at must be an ISO 8601 date-time",
    notFuture: "expires_at must be in the future",
    maxAheadDays: API_KEY_MAX_EXPIRY_DAYS,
    tooLate: "expires_at must be at most 10 years from now (leave it out for a key that never expires)",
  }).nullish(),
});
export type CreateApiKeyInput = z.input<typeof createApiKeySchema>;

export const apiKeyIdSchema = z.uuid({ error: "API key not found" });

/**
 * Cursor pagination of every /api/v1 list: `limit` 1..100 (default 50) in decimal digits (queryInt:
 * `1e2`, `0x10`, `+5` are refused, not read as numbers) and an opaque `cursor`.
 */
export const v1PageSchema = z.object({
  limit: queryInt(
    z
      .number({ error: "limit must be a whole number from 1 to 100, written in digits (such as 50)" })
      .int("limit must be a whole number")
      .min(1, "limit must be at least 1")
      .max(100, "limit must be at most 100")
      .default(50),
  ),
  cursor: z.string().max(1000, "cursor is not valid").optional(),
});
