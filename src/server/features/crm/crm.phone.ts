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
  const nanp = fastNanp(trimmed);
  if (nanp !== undefined) return nanp;
  // fast path: already E.164
  if (/^\+[1-9]\d{7,14}$/.test(trimmed)) {
    const p = parsePhoneNumberFromString(trimmed);
    return p?.isPossible() ? p.number : null;
  }
  const p = parsePhoneNumberFromString(trimmed, defaultCountry);
  if (!p?.isPossible()) return null;
  return p.number;
}

const NANP_SHAPE = /^\+?[\d\s().-]+?(?:\s*(?:x|ext\.?|extension|#)\s*\d{1,7})?$/i;
const EXTENSION = /\s*(?:x|ext\.?|extension|#)\s*\d{1,7}$/i;

/**
 * Fast path for the common North American shapes ("(989) 555-0142", "989.555.0142x12",
 * "+1-989-555-0142", "19895550142", "001-989-555-0142"): the same result as libphonenumber-js's
 * possible-number parse with default country US (which checks the length only: any 10 national
 * digits after an optional country/trunk code 1; the extension dropped; "001" plus 10 digits is
 * too long to be possible), several times faster, which matters for imports of 100,000+ rows.
 * tests/unit/crm-phone.test.ts holds it to libphonenumber-js's answers over random numbers of every
 * shape. Returns undefined when the shape is not one of these (the caller asks libphonenumber-js).
 */
function fastNanp(s: string): string | null | undefined {
  if (!NANP_SHAPE.test(s)) return undefined;
  const main = s.replace(EXTENSION, "");
  const plus = main.startsWith("+");
  const digits = main.replace(/\D/g, "");
  // "011" is the US international call prefix: libphonenumber-js reads what follows as a number abroad
  if (!plus && digits.length === 10 && !digits.startsWith("011")) return `+1${digits}`;
  if (digits.length === 11 && digits[0] === "1" && (plus || (digits[1] !== "0" && digits[1] !== "1")))
    return `+${digits}`;
  if (!plus && digits.length === 13 && digits.startsWith("001")) return null;
  return undefined;
}

/** Phone as stored: `{ e164, raw }` where raw is the trimmed input (for display), both null when blank. */
export function normalisePhone(raw: string | null | undefined): { e164: string | null; raw: string | null } {
  const trimmed = raw == null ? "" : String(raw).trim();
  if (!trimmed) return { e164: null, raw: null };
  return { e164: toE164(trimmed), raw: trimmed.slice(0, 64) };
}
