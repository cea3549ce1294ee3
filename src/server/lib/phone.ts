import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
} from "libphonenumber-js/min";

/**
 * The one phone rule (issue 14 section 4): a number is usable when libphonenumber-js finds it *valid*
 * (right length and an assigned range for its country, so `(188)169-1674` or `+1 555 123 4567` are not),
 * read with the workspace's default country for numbers typed without a `+country` prefix. Contacts
 * (REST, tRPC, v1, CSV and JSON imports), profile, demo and campaign sends all go through here, and
 * every refusal uses {@link INVALID_PHONE_MESSAGE}.
 */

/** The default country for numbers without a `+` prefix when a workspace has not chosen one. */
export const DEFAULT_PHONE_COUNTRY: CountryCode = "US";

/** The sentence shown when a typed number is refused. */
export const INVALID_PHONE_MESSAGE =
  "Please enter a valid phone number, with the country code if it is not in your workspace's country (e.g. +1 415 555 0132)";

/**
 * The refusal for a typed number of a named field, in the same style as {@link INVALID_PHONE_MESSAGE}:
 * e.g. "'555-1234' is not a valid phone number. Please include the area code, and +country for
 * numbers abroad (e.g. +1 415 555 0132)". `field` is "phone" or "mobile"; the value is cut to 40 characters.
 */
export function invalidPhoneMessage(field: "phone" | "mobile", value: string): string {
  return `${invalidPhoneSentence(field, value)}. Please include the area code, and +country for numbers abroad (e.g. +1 415 555 0132)`;
}

/**
 * The first sentence of invalidPhoneMessage, without its advice: "'229.077.5154' is not a valid phone
 * number" (the value trimmed, at most 40 characters), as an import's report line starts.
 */
export function invalidPhoneSentence(field: "phone" | "mobile", value: string): string {
  const what = field === "mobile" ? "mobile number" : "phone number";
  return `'${String(value).trim().slice(0, 40)}' is not a valid ${what}`;
}

/**
 * The E.164 shape a stored number has (`+`, a country code not starting with 0, 7 to 15 digits in
 * all: ITU-T E.164), as toE164 writes it, as a regular expression's source that means the same in
 * JavaScript and in Postgres (`~`, ARE: ASCII digit classes, no flags): isE164 tests a value with it,
 * and the contacts' SQL (crm.queries reachableWhere) tests the stored phone and mobile with it.
 */
export const E164_PATTERN = "^\\+[1-9][0-9]{6,14}$";
const E164 = new RegExp(E164_PATTERN);

/**
 * True when `value` has the E.164 shape a stored number has ({@link E164_PATTERN}), as toE164 writes
 * it; says nothing about the number being valid.
 */
export function isE164(value: string | null | undefined): value is string {
  return !!value && E164.test(value);
}

/** True when `code` is an ISO 3166-1 alpha-2 country libphonenumber-js has numbering rules for. */
export function isPhoneCountry(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

/** A country a workspace may choose for national numbers: ISO code and international calling code. */
export interface PhoneCountryOption {
  /** ISO 3166-1 alpha-2, e.g. "GB" */
  code: CountryCode;
  /** the international calling code without "+", e.g. "44" */
  callingCode: string;
}

/**
 * Every country libphonenumber-js has numbering rules for (about 245), with its calling code, sorted
 * by ISO code: the choices of Settings > Workspace > Phone country (country names are the client's,
 * from Intl.DisplayNames in the reader's language).
 */
export function phoneCountryOptions(): PhoneCountryOption[] {
  return getCountries()
    .map((code) => ({ code, callingCode: getCountryCallingCode(code) as string }))
    .sort((a, b) => a.code.localeCompare(b.code));
}

/**
 * A typed phone number in E.164 (`+14155550132`), or null when it is blank, longer than 40
 * characters or not a valid number. Extensions (`x718`, `ext. 2`) are dropped from the E.164 form.
 * @param country the default country (ISO 3166-1 alpha-2) for numbers without a `+` prefix
 */
export function toE164(
  raw: string | null | undefined,
  country: string = DEFAULT_PHONE_COUNTRY,
): string | null {
  if (raw == null) return null;
  const trimmed = String(raw).trim();
  if (trimmed.length < 3 || trimmed.length > 40) return null;
  const p = parsePhoneNumberFromString(trimmed, isPhoneCountry(country) ? country : DEFAULT_PHONE_COUNTRY);
  return p?.isValid() ? p.number : null;
}

/**
 * Phone as stored on a contact: `{ e164, raw }`, raw being the trimmed input (kept for display and
 * search, at most 64 characters) and e164 null when the number is not valid (the contact is then
 * unreachable by SMS and calls). Both null when blank.
 */
export function normalisePhone(
  raw: string | null | undefined,
  country: string = DEFAULT_PHONE_COUNTRY,
): { e164: string | null; raw: string | null } {
  const trimmed = raw == null ? "" : String(raw).trim();
  if (!trimmed) return { e164: null, raw: null };
  return { e164: toE164(trimmed, country), raw: trimmed.slice(0, 64) };
}
