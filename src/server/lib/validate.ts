import { z } from "zod";
import { AppError } from "./errors";

/** Words of a field key written differently in a sentence (acronyms, abbreviations). */
const WORDS: Record<string, string> = {
  id: "ID",
  ids: "IDs",
  url: "URL",
  urls: "URLs",
  api: "API",
  sms: "SMS",
  csv: "CSV",
  zip: "ZIP",
  dnc: "DNC",
  html: "HTML",
  ip: "IP",
  ai: "AI",
  utm: "UTM",
  e164: "E.164",
  min: "minimum",
  max: "maximum",
};

/** The field a path names: its last key that is not a list index (`contacts.3.email` -> `email`). */
function fieldKey(path: readonly PropertyKey[]): string | null {
  for (let i = path.length - 1; i >= 0; i--) {
    const seg = path[i];
    if (typeof seg === "string" && seg && !/^\d+$/.test(seg)) return seg;
  }
  return null;
}

/**
 * A field key as people read it: `phone_country` -> "Phone country", `radiusMiles` -> "Radius miles",
 * `logo_url` -> "Logo URL", `minRating` -> "Minimum rating". Null for a blank key.
 */
export function humanFieldLabel(key: string): string | null {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((w) => WORDS[w.toLowerCase()] ?? w.toLowerCase());
  if (!words.length) return null;
  const first = words[0]!;
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(" ");
}

/** zod's own English message for an issue (what it says when a schema gives no message). */
function isZodDefault(issue: z.core.$ZodIssue): boolean {
  // invalid_type's default names the received type, which depends on the input zod may have dropped
  if (issue.code === "invalid_type") return issue.message.startsWith("Invalid input: expected ");
  if (issue.message === "Invalid input") return true;
  try {
    const localeError = z.config().localeError;
    const fallback = localeError?.(issue as unknown as Parameters<typeof localeError>[0]);
    return issue.message === (typeof fallback === "string" ? fallback : fallback?.message);
  } catch {
    return false; // an issue shape zod's locale cannot word: keep the schema's message
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  date: "a date",
  record: "an object",
};

const FORMAT_WORDS: Record<string, string> = {
  email: "a valid email address",
  url: "a valid http(s) URL",
  uuid: "a valid ID",
  guid: "a valid ID",
  datetime: "a date and time such as 2026-01-31T09:00:00Z",
  date: "a date such as 2026-01-31",
  time: "a time such as 09:00",
  e164: "a phone number in international format (e.g. +14155550132)",
};

const plural = (n: number | bigint, one: string) => `${n} ${one}${Number(n) === 1 ? "" : "s"}`;

function sizeUnit(origin: string, n: number | bigint): string {
  if (origin === "string") return plural(n, "character");
  if (origin === "array" || origin === "set") return plural(n, "item");
  if (origin === "file") return plural(n, "byte");
  return String(n);
}

/** A sentence for an issue zod described in its own words, naming the field by `label`. */
function defaultSentence(issue: z.core.$ZodIssue, label: string | null): string {
  const field = label ?? "The request";
  switch (issue.code) {
    case "invalid_type": {
      // no body at all (none sent, or an empty one): the whole request's object is missing
      if (!label && issue.expected === "object" && /received undefined$/.test(issue.message))
        return "The request body is missing: send a JSON object";
      if (/received undefined$/.test(issue.message)) return `${field} is required`;
      if (!label && issue.expected === "object") return "The request body must be a JSON object";
      return `${field} must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    }
    case "too_small": {
      const n = issue.minimum;
      if (issue.origin === "string" && Number(n) <= 1) return `${field} is required`;
      if ((issue.origin === "array" || issue.origin === "set") && Number(n) <= 1)
        return `${field} must not be empty`;
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return issue.inclusive ? `${field} must be at least ${n}` : `${field} must be more than ${n}`;
      return `${field} must be at least ${sizeUnit(issue.origin, n)}`;
    }
    case "too_big": {
      const n = issue.maximum;
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return issue.inclusive ? `${field} must be at most ${n}` : `${field} must be less than ${n}`;
      return `${field} must be at most ${sizeUnit(issue.origin, n)}`;
    }
    case "invalid_format":
      return FORMAT_WORDS[issue.format]
        ? `${field} must be ${FORMAT_WORDS[issue.format]}`
        : `${field} is not in the expected format`;
    case "invalid_value": {
      const values = issue.values.map((v) => String(v));
      if (values.length === 1) return `${field} must be ${values[0]}`;
      if (values.length <= 12) return `${field} must be one of: ${values.join(", ")}`;
      return `${field} is not one of the allowed values`;
    }
    case "not_multiple_of":
      return `${field} must be a multiple of ${issue.divisor}`;
    case "unrecognized_keys": {
      // named by their full path (`content.foo`, `contacts.3.nmae`), so a nested one can be found;
      // an empty name (`{"": 1}`, a query string's `?=x`) shows as ""
      const prefix = issue.path.map(String).join(".");
      const keys = issue.keys.slice(0, 10).map((k) => (prefix ? `${prefix}.${k || '""'}` : k || '""'));
      return `${issue.keys.length === 1 ? "This field is" : "These fields are"} not accepted here: ${keys.join(", ")}`;
    }
    default:
      return `${field} is not valid`;
  }
}

/**
 * The schema's own message of a union's branch, when a branch gave one (`z.literal("") | z.url({error})`),
 * or of a record's key (`z.record(z.string().regex(re, msg), ...)`) or a map/set element.
 */
function unionMessage(issue: z.core.$ZodIssue): z.core.$ZodIssue | null {
  if (issue.code === "invalid_key" || issue.code === "invalid_element") {
    for (const inner of issue.issues) if (!isZodDefault(inner)) return inner;
    return null;
  }
  if (issue.code !== "invalid_union") return null;
  for (const branch of issue.errors) for (const inner of branch) if (!isZodDefault(inner)) return inner;
  return null;
}

/** Whether two labels are the same words (case, spaces and punctuation aside: "Has linked in" = "Has linkedin"). */
function sameWords(a: string | null, b: string): boolean {
  const norm = (x: string) => x.toLowerCase().replace(/[^a-z0-9]/g, "");
  return a !== null && norm(a) === norm(b);
}

/**
 * One issue as a plain sentence: the schema's own message when it has one (a raw key it starts with,
 * like "radius_miles must be ...", read as "Radius miles must be ..."; a fragment such as "must be a
 * whole number" gets the field's label in front), else a sentence naming the field by its label
 * ("First name is required", "Radius miles must be at most 500").
 */
function describeIssue(issue: z.core.$ZodIssue): string {
  const key = fieldKey(issue.path);
  const label = key ? humanFieldLabel(key) : null;
  const chosen = unionMessage(issue) ?? issue;
  if (isZodDefault(chosen)) return defaultSentence(chosen, label);
  const message = chosen.message.trim();
  if (key && label && message.startsWith(`${key} `)) return `${label}${message.slice(key.length)}`;
  // the same field under another spelling (the API's `search_radius` for a rule worded on the
  // service's `searchRadius`): the same words once read as a label
  const first = /^[A-Za-z][A-Za-z0-9_]*(?= )/.exec(message)?.[0];
  if (label && first && sameWords(humanFieldLabel(first), label))
    return `${label}${message.slice(first.length)}`;
  if (label && /^(must|should|is|are|has|have|cannot|can't|may|needs?)\b/.test(message))
    return `${label} ${message}`;
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/**
 * Turns a zod error into one sentence a person understands, never prefixed with a field key:
 * "Please enter a valid email address", "Phone country must be a two-letter country code such as US
 * or GB", "First name is required". Several problems are joined with "; " (at most 5, repeats dropped).
 */
export function describeZodError(error: z.ZodError): string {
  const sentences = [...new Set(error.issues.map(describeIssue))];
  return sentences.slice(0, 5).join("; ");
}

/**
 * The dotted path of the field an issue is about, for APIs that name it (`param`): the issue's path,
 * plus the first unknown key of an `unrecognized_keys` issue (whose path is the object holding it).
 * Undefined for an issue about the whole input.
 */
export function issueParam(issue: z.core.$ZodIssue | undefined): string | undefined {
  if (!issue) return undefined;
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
  return path.map(String).filter(Boolean).join(".") || undefined;
}

/**
 * Parses untrusted input with a zod schema.
 * @throws AppError BAD_REQUEST with a readable message when the input does not match.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  // reportInput: zod 4 leaves the offending value out of issues unless asked
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) {
    // `param`: the first offending field, for APIs that name it (issue 15: {error: {param}})
    const param = issueParam(result.error.issues[0]);
    throw new AppError("BAD_REQUEST", describeZodError(result.error), param ? { param } : undefined);
  }
  return result.data;
}

/** Text a query string may give for a whole number: ASCII decimal digits only (at most 16). */
const QUERY_DIGITS = /^[0-9]{1,16}$/;

/**
 * A whole number read from a query string: text must be plain decimal digits ("50", "007"); a
 * number given as a number (a typed caller such as tRPC) goes to `schema` as it is. Anything else
 * (`1e2`, `0x10`, `+5`, `-1`, ` 5`, `5.0`, an empty value, a repeated parameter) reaches `schema`
 * unconverted and is refused with `schema`'s own type error, where `Number()` (`z.coerce`) read
 * `1e2` as 100 and `0x10` as 16. `schema` is a `z.number()` schema (not `z.coerce`) with the bounds and messages (its
 * `.default()` and `.optional()` inside, so the generated JSON Schema keeps them: an integer with
 * its minimum, maximum and default).
 */
export function queryInt<T extends z.ZodType>(schema: T) {
  // typed callers see the schema's own input (a number) or text
  return z.preprocess<unknown, T, z.input<T> | string>(
    (v) => (typeof v === "string" && QUERY_DIGITS.test(v) ? Number(v) : v),
    schema,
  );
}

/**
 * The id a request gives for a record that cannot exist (see recordId): no row has it (every table's
 * id is an identity counting from 1), so a lookup by it finds nothing.
 */
export const NO_RECORD_ID = -1;

/** Decimal digits of any length (a path segment; its value is checked against the id range after). */
const ID_DIGITS = /^[0-9]+$/;
const MAX_ID = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_ID_DIGITS = String(Number.MAX_SAFE_INTEGER).length;

/**
 * A record's id as a request names it (a REST path's `:id`, a tRPC input's `id`, a body's `mediaId`):
 * a JSON number, a superjson bigint or, as text, decimal digits ("12", "007"). Records' ids are
 * identities from 1 read as JS numbers, so an id is a whole number from 1 to Number.MAX_SAFE_INTEGER.
 *
 * A whole number that cannot be an id (0, negative, past Number.MAX_SAFE_INTEGER such as
 * 9007199254740993, 17+ digits, past the bigint range) names a record that does not exist, the rule of
 * /api/v1 (api.v1 `intId`) and of /api/contacts/:id (crm.rest `idParam`), which answer "Contact not
 * found" for 99999999999999999999: it reads as NO_RECORD_ID, so the route or procedure answers exactly
 * what it answers an unknown id (404 "Campaign not found", tRPC NOT_FOUND), never a 400, and never
 * reaches Postgres as an out-of-range bigint (a 500).
 * Anything that is no whole number (text such as `0x10`, `1e1`, `+5`, `5.0`; 1.5; true; missing) is a
 * 400 whose sentence starts with `label` ("Media id must be a number", "Media id must be a whole
 * number"): an id in a body or a tRPC input. A route's path segment is read by pathRecordId, which
 * answers any segment that names no record with the unknown id's 404.
 */
export function recordId(label: string) {
  return z.preprocess<unknown, z.ZodNumber, number | string | bigint>(
    (v) => {
      // digits past MAX_ID's 16 (leading zeros aside) are no id, decided without BigInt, whose
      // parse grows with the square of the length (a body's 1,000,000 digits: ~350 ms of CPU)
      const digits = typeof v === "string" && ID_DIGITS.test(v) ? v.replace(/^0+(?=.)/, "") : null;
      if (digits !== null && digits.length > MAX_ID_DIGITS) return NO_RECORD_ID;
      const whole = digits !== null ? BigInt(digits) : v;
      if (typeof whole === "bigint") return whole >= 1n && whole <= MAX_ID ? Number(whole) : NO_RECORD_ID;
      if (
        typeof whole === "number" &&
        Number.isInteger(whole) &&
        (whole < 1 || whole > Number.MAX_SAFE_INTEGER)
      )
        return NO_RECORD_ID;
      return whole;
    },
    z.number({ error: `${label} must be a number` }).int(`${label} must be a whole number`),
  );
}

/**
 * A route's `:id` path segment as a record id: decimal digits naming a record that could exist (1 to
 * Number.MAX_SAFE_INTEGER, leading zeros aside, as recordId reads them) give that number; any other
 * segment (letters, `0x10`, `1e1`, 0, 20 digits) names no record and is the unknown id's 404, "<what>
 * not found". A path is an address, not a form field: the app's REST routes answer a wrong one as
 * /api/v1 (api.v1 intId) does, where recordId's "must be a number" 400 stays for ids in bodies and
 * tRPC inputs. @throws AppError NOT_FOUND `${what} not found` (e.g. "Campaign not found").
 */
export function pathRecordId(raw: unknown, what: string): number {
  if (typeof raw === "string" && ID_DIGITS.test(raw)) {
    const digits = raw.replace(/^0+(?=.)/, "");
    // at most 16 digits: Number() is exact up to 2^53, and anything past MAX_SAFE_INTEGER is refused
    if (digits.length <= MAX_ID_DIGITS) {
      const n = Number(digits);
      if (n >= 1 && n <= Number.MAX_SAFE_INTEGER) return n;
    }
  }
  throw new AppError("NOT_FOUND", `${what} not found`);
}

/**
 * A list's `page` parameter (1-based, default 1, at most `max`): a JSON number or decimal digits
 * (queryInt), with sentences that say how to write it ("page must be a whole number written in
 * digits (such as 2)", "page must be at most 100,000").
 */
export function pageParam(max: number) {
  return queryInt(
    z
      .number({ error: "page must be a whole number written in digits (such as 2)" })
      .int("page must be a whole number")
      .min(1, "page must be 1 or more")
      .max(max, `page must be at most ${max.toLocaleString("en-US")}`)
      .default(1),
  );
}

/** A list's `limit` parameter: 1-200, default 50, a JSON number or decimal digits (queryInt). */
export function limitParam() {
  return queryInt(
    z
      .number({ error: "limit must be a whole number from 1 to 200, written in digits (such as 50)" })
      .int("limit must be a whole number")
      .min(1, "limit must be at least 1")
      .max(200, "limit must be at most 200")
      .default(50),
  );
}

/**
 * `schema` (a field rule of a form or CSV schema that also reads text: `z.coerce.number()`, a
 * boolean reading "yes") taking only the JSON type it documents, for JSON request bodies: a value of
 * another type (`"5"` for a number, `"yes"` or `1` for a boolean, `null`) is refused with a sentence
 * naming the type ("Lead score must be a number, not text (send 5, not "5")"), never converted.
 * Absent (undefined) stays absent; a value of the right type goes on to `schema`'s own rules (bounds,
 * whole numbers). The generated JSON Schema is `schema`'s.
 */
export function jsonTyped<T extends z.ZodType>(type: "number" | "boolean", schema: T) {
  return z.preprocess((v, ctx) => {
    if (v === undefined || typeof v === type) return v;
    const want = type === "number" ? "a number" : "true or false";
    const example = type === "number" ? '5, not "5"' : 'true, not "true"';
    ctx.issues.push({
      code: "custom",
      input: v,
      message: typeof v === "string" ? `must be ${want}, not text (send ${example})` : `must be ${want}`,
    });
    return z.NEVER;
  }, schema);
}
