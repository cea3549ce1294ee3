import { parsePhoneNumberFromString } from "libphonenumber-js/min";

/**
 * Normalises a phone number to E.164 (libphonenumber-js, default country US). Extensions such as
 * `x718` are dropped from the E.164 form (they are kept in the raw value). Returns null when the
 * input is empty or not a possible number.
 */
export function toE164(raw: string | null | undefined, defaultCountry: "US" = "US"): string | null {
  if (!raw) return null;
  const trimmed = String(raw).trim();
  if (trimmed.length < 3 || trimmed.length > 40) return null;
  // fast path: already E.164
  if (/^\+[1-9]\d{7,14}$/.test(trimmed)) {
    const p = parsePhoneNumberFromString(trimmed);
    return p?.isPossible() ? p.number : null;
  }
  const p = parsePhoneNumberFromString(trimmed, defaultCountry);
  if (!p?.isPossible()) return null;
  return p.number;
}

/** Phone as stored: `{ e164, raw }` where raw is the trimmed input (for display), both null when blank. */
export function normalisePhone(raw: string | null | undefined): { e164: string | null; raw: string | null } {
  const trimmed = raw == null ? "" : String(raw).trim();
  if (!trimmed) return { e164: null, raw: null };
  return { e164: toE164(trimmed), raw: trimmed.slice(0, 64) };
}
