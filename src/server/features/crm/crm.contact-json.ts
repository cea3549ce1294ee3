import type { Contact, NewContact } from "../../db/schema";
import { normalisePhone } from "../../lib/phone";
import { displayNameOf } from "./contact-name";
import type { ContactFields } from "./crm.schemas";

// JSON shapes of a contact (spec section 3: Contact; section 7) and their mapping to columns.

/** A contact as the REST API returns it (snake_case, spec section 3). */
export function toContactJson(c: Contact) {
  return {
    id: c.id,
    first_name: c.firstName,
    last_name: c.lastName,
    email: c.email,
    phone: c.phoneRaw ?? c.phone,
    phone_e164: c.phone,
    mobile: c.mobileRaw ?? c.mobile,
    mobile_e164: c.mobile,
    company: c.company,
    job_title: c.jobTitle,
    website: c.website,
    street_address: c.streetAddress,
    city: c.city,
    state: c.state,
    postal_code: c.postalCode,
    country: c.country,
    lifecycle_stage: c.lifecycleStage,
    lead_status: c.leadStatus,
    lead_source: c.leadSource,
    lead_score: c.leadScore,
    engagement_score: c.engagementScore,
    email_opt_in: c.emailOptIn,
    sms_opt_in: c.smsOptIn,
    call_opt_in: c.callOptIn,
    preferred_language: c.preferredLanguage,
    timezone: c.timezone,
    linkedin_url: c.linkedinUrl,
    twitter_handle: c.twitterHandle,
    facebook_url: c.facebookUrl,
    instagram_handle: c.instagramHandle,
    latitude: c.latitude,
    longitude: c.longitude,
    custom_fields: c.customFields,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
export type ContactJson = ReturnType<typeof toContactJson>;

/**
 * The name a contact (a row) is shown under outside its own page: contact-name displayNameOf, the one
 * rule the client's contactName uses too (first and last name, else its company, else its email; null
 * when it has none of them).
 */
export function contactDisplayName(
  c: Pick<Contact, "firstName" | "lastName" | "company" | "email">,
): string | null {
  return displayNameOf({
    first_name: c.firstName,
    last_name: c.lastName,
    company: c.company,
    email: c.email,
  });
}

const str = JSON.stringify;

// How contactJsonWriter writes a field's value from its column's text; small integers, since its
// tables are typed arrays.
const INT = 0;
const TEXT = 1;
const BOOL = 2;
const FLOAT = 3;
const JSONB = 4;
const TIME = 5;
type ValueKind = typeof INT | typeof TEXT | typeof BOOL | typeof FLOAT | typeof JSONB | typeof TIME;

/**
 * The fields of `toContactJson` in its key order: the JSON key, how its value is written and the
 * Contact properties it comes from (two: the first that is not null).
 */
const CONTACT_JSON_FIELDS: readonly [string, ValueKind, ...(keyof Contact)[]][] = [
  ["id", INT, "id"],
  ["first_name", TEXT, "firstName"],
  ["last_name", TEXT, "lastName"],
  ["email", TEXT, "email"],
  ["phone", TEXT, "phoneRaw", "phone"],
  ["phone_e164", TEXT, "phone"],
  ["mobile", TEXT, "mobileRaw", "mobile"],
  ["mobile_e164", TEXT, "mobile"],
  ["company", TEXT, "company"],
  ["job_title", TEXT, "jobTitle"],
  ["website", TEXT, "website"],
  ["street_address", TEXT, "streetAddress"],
  ["city", TEXT, "city"],
  ["state", TEXT, "state"],
  ["postal_code", TEXT, "postalCode"],
  ["country", TEXT, "country"],
  ["lifecycle_stage", TEXT, "lifecycleStage"],
  ["lead_status", TEXT, "leadStatus"],
  ["lead_source", TEXT, "leadSource"],
  ["lead_score", INT, "leadScore"],
  ["engagement_score", INT, "engagementScore"],
  ["email_opt_in", BOOL, "emailOptIn"],
  ["sms_opt_in", BOOL, "smsOptIn"],
  ["call_opt_in", BOOL, "callOptIn"],
  ["preferred_language", TEXT, "preferredLanguage"],
  ["timezone", TEXT, "timezone"],
  ["linkedin_url", TEXT, "linkedinUrl"],
  ["twitter_handle", TEXT, "twitterHandle"],
  ["facebook_url", TEXT, "facebookUrl"],
  ["instagram_handle", TEXT, "instagramHandle"],
  ["latitude", FLOAT, "latitude"],
  ["longitude", FLOAT, "longitude"],
  ["custom_fields", JSONB, "customFields"],
  ["created_at", TIME, "createdAt"],
  ["updated_at", TIME, "updatedAt"],
];

/** The Contact properties `toContactJson` reads (the columns contactJsonWriter needs). */
export const CONTACT_JSON_SOURCES = [...new Set(CONTACT_JSON_FIELDS.flatMap(([, , ...props]) => props))];

/**
 * The columns of one DataRow message (Postgres protocol: 'D', int32 length, int16 column count,
 * then each column as int32 length, -1 for null, and its bytes): fills `at[2i]` with column i's
 * start offset in `msg` and `at[2i + 1]` with its length (-1: null). @returns the column count.
 * @throws Error when `at` is too short or the message is not a DataRow.
 */
export function dataRowColumns(msg: Buffer, at: Int32Array): number {
  if (msg[0] !== 0x44) throw new Error("dataRowColumns: not a DataRow message");
  const n = msg.readInt16BE(5);
  if (at.length < 2 * n) throw new Error("dataRowColumns: more columns than expected");
  if (msg.length < 7 + 4 * n) throw new Error("dataRowColumns: truncated DataRow message");
  let index = 7;
  for (let i = 0; i < n; i++) {
    // int32, big-endian (readInt32BE, inlined: this runs for every column of every row)
    const len = (msg[index]! << 24) | (msg[index + 1]! << 16) | (msg[index + 2]! << 8) | msg[index + 3]!;
    index += 4;
    at[2 * i] = index;
    at[2 * i + 1] = len;
    if (len > 0) index += len;
  }
  return n;
}

/**
 * A growable byte buffer that JSON is written into (contactJsonWriter). `bytes()` is the written
 * part, a view of the buffer (valid until the next write).
 */
export class JsonBytes {
  buf: Buffer;
  p = 0;
  constructor(capacity = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }
  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.p + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.p + n));
    this.buf.copy(next, 0, 0, this.p);
    this.buf = next;
  }
  /** Appends `s` as UTF-8. */
  string(s: string): void {
    this.ensure(Buffer.byteLength(s));
    this.p += this.buf.write(s, this.p);
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.p);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A writer of `toContactJson`'s JSON (same keys, order and values as
 * `JSON.stringify(toContactJson(contact))`) straight from the bytes of the contact's DataRow message
 * as Postgres sent it in text, for list pages that go straight into a response: it skips decoding
 * 35 columns into JS strings, the Contact object, its Dates and the second walk of JSON.stringify.
 * Strings without a quote, backslash or control character are copied as their UTF-8 bytes (what
 * JSON.stringify would write); the rest, and any number, jsonb or time outside the common forms,
 * go through JSON.stringify of the decoded value. `indexOf(prop)` gives each Contact property's
 * column index in the row; the writer returns `(msg, at, out)` which writes one contact into `out`,
 * with `at` filled by `dataRowColumns(msg, at)`. crm-page-rows.int.test.ts holds its output equal to
 * JSON.stringify(toContactJson(contact)) for the same rows. @throws Error when a column is missing.
 */
export function contactJsonWriter(
  indexOf: (prop: keyof Contact) => number,
): (msg: Buffer, at: Int32Array, out: JsonBytes) => void {
  const nf = CONTACT_JSON_FIELDS.length;
  // flat tables, so the hot loop reads typed arrays only: each field's key bytes (`{"id":`,
  // `,"first_name":`...), kind and column(s)
  const prefixes = CONTACT_JSON_FIELDS.map(([key], i) => Buffer.from(`${i === 0 ? "{" : ","}${str(key)}:`));
  const keys = new Uint8Array(Buffer.concat(prefixes));
  // the keys as big-endian words from each key's start (the last word of a key may run into the next
  // key's bytes: only whole words inside the key are read from it)
  const keyView = new DataView(keys.buffer, keys.byteOffset, keys.length);
  const keyWords = new Uint32Array(keys.length);
  for (let k = 0; k + 4 <= keys.length; k++) keyWords[k] = keyView.getUint32(k);
  const keyAt = new Int32Array(nf + 1);
  for (let f = 0; f < nf; f++) keyAt[f + 1] = keyAt[f]! + prefixes[f]!.length;
  const kinds = new Uint8Array(nf);
  const colA = new Int32Array(nf);
  const colB = new Int32Array(nf).fill(-1);
  CONTACT_JSON_FIELDS.forEach(([, kind, ...props], f) => {
    kinds[f] = kind;
    props.forEach((prop, j) => {
      const c = indexOf(prop);
      if (c < 0) throw new Error(`contactJsonWriter: no column for ${prop}`);
      (j === 0 ? colA : colB)[f] = c;
    });
  });
  // a value's JSON is at most its text + 6 bytes (quotes, "false", "null", a time's T and Z), and a
  // column is read at most twice (phone, mobile)
  const room = (msg: Buffer) => keys.length + 1 + 2 * msg.length + 6 * nf;

  return function writeContact(msg: Buffer, at: Int32Array, out: JsonBytes): void {
    out.ensure(room(msg));
    let buf = out.buf;
    let dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
    let p = out.p;
    for (let f = 0; f < nf; f++) {
      {
        // the key, four bytes at a time
        let k = keyAt[f]!;
        const e = keyAt[f + 1]!;
        for (; k + 4 <= e; k += 4) {
          dv.setUint32(p, keyWords[k]!);
          p += 4;
        }
        for (; k < e; k++) buf[p++] = keys[k]!;
      }
      const kind = kinds[f]!;
      let col = colA[f]!;
      let len = at[2 * col + 1]!;
      if (len < 0 && colB[f]! >= 0) {
        col = colB[f]!;
        len = at[2 * col + 1]!;
      }
      if (len < 0) {
        if (kind === JSONB) {
          buf[p++] = 0x7b; // {}
          buf[p++] = 0x7d;
        } else {
          dv.setUint32(p, NULL_WORD);
          p += 4;
        }
        continue;
      }
      const start = at[2 * col]!;
      const end = start + len;
      if (kind === TEXT) {
        const from = p;
        buf[p++] = QUOTE;
        let i = start;
        for (; i < end; i++) {
          const c = msg[i]!;
          if (c < 0x20 || c === QUOTE || c === BACKSLASH) break;
          buf[p++] = c;
        }
        if (i === end) {
          buf[p++] = QUOTE;
          continue;
        }
        p = from; // it needs escapes: the fallback
      } else if (kind === INT) {
        for (let i = start; i < end; i++) buf[p++] = msg[i]!;
        continue;
      } else if (kind === BOOL) {
        if (msg[start] === 0x74) {
          dv.setUint32(p, TRUE_WORD);
          p += 4;
        } else {
          dv.setUint32(p, FALS_WORD);
          buf[p + 4] = 0x65; // e
          p += 5;
        }
        continue;
      } else if (kind === TIME) {
        // "YYYY-MM-DD HH:MM:SS[.ffffff]+00" -> "YYYY-MM-DDTHH:MM:SS.fffZ" (milliseconds truncated)
        if (
          len >= 22 &&
          msg[start + 10] === 0x20 &&
          msg[end - 3] === 0x2b &&
          msg[end - 2] === 0x30 &&
          msg[end - 1] === 0x30 &&
          (len === 22 || msg[start + 19] === 0x2e)
        ) {
          buf[p++] = QUOTE;
          for (let i = start; i < start + 10; i++) buf[p++] = msg[i]!;
          buf[p++] = 0x54; // T
          for (let i = start + 11; i < start + 19; i++) buf[p++] = msg[i]!;
          buf[p++] = 0x2e; // .
          for (let i = start + 20; i < start + 23; i++) buf[p++] = len > 22 && i < end - 3 ? msg[i]! : 0x30;
          buf[p++] = 0x5a; // Z
          buf[p++] = QUOTE;
          continue;
        }
      } else if (kind === FLOAT) {
        if (plainDecimal(msg, start, end)) {
          for (let i = start; i < end; i++) buf[p++] = msg[i]!;
          continue;
        }
      } else if (len === 2 && msg[start] === 0x7b && msg[start + 1] === 0x7d) {
        buf[p++] = 0x7b; // jsonb {}
        buf[p++] = 0x7d;
        continue;
      }
      out.p = p;
      writeDecoded(msg.toString("utf8", start, end), kind, out);
      // the fallback may have grown the buffer: room for the rest of the row again
      out.ensure(room(msg));
      buf = out.buf;
      dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
      p = out.p;
    }
    buf[p++] = 0x7d; // }
    out.p = p;
  };
}

// "null", "true" and "fals" as big-endian words (DataView.setUint32's default order)
const NULL_WORD = 0x6e756c6c;
const TRUE_WORD = 0x74727565;
const FALS_WORD = 0x66616c73;

/**
 * contactJsonWriter's slow path: the value decoded, then written as JSON.stringify writes it (a
 * timestamptz in any offset but UTC through Date, as toContactJson's `toISOString`).
 */
function writeDecoded(text: string, kind: number, out: JsonBytes): void {
  if (kind === FLOAT) out.string(str(Number(text)));
  else if (kind === JSONB) out.string(str(JSON.parse(text)));
  else if (kind === TIME) out.string(str(new Date(text).toISOString()));
  else out.string(str(text));
}

/**
 * Whether the float8 text in msg[start, end) is written the same by JSON.stringify(Number(text)):
 * an optional minus, digits, optionally a point and digits, at most 15 significant digits (a
 * double keeps any 15, so its shortest form is this text), no trailing zero after the point, not -0.
 */
function plainDecimal(msg: Buffer, start: number, end: number): boolean {
  let i = start;
  if (msg[i] === 0x2d) i++;
  let digits = 0;
  let leading = true;
  let point = -1;
  for (; i < end; i++) {
    const c = msg[i]!;
    if (c === 0x2e) {
      if (point >= 0 || i === start || msg[i - 1] === 0x2d) return false;
      point = i;
      continue;
    }
    if (c < 0x30 || c > 0x39) return false;
    if (c !== 0x30) leading = false;
    if (!leading) digits++;
  }
  if (digits > 15 || point === end - 1) return false;
  if (point >= 0 && msg[end - 1] === 0x30) return false;
  // -0 (and -0.0...) is written 0 by JSON.stringify
  if (msg[start] === 0x2d && digits === 0) return false;
  return true;
}

/** Maps validated snake_case fields to column values (phones normalised to E.164, raw kept). */
export function fieldsToColumns(f: Partial<ContactFields>, phoneCountry?: string): Partial<NewContact> {
  const out: Partial<NewContact> = {};
  const set = <K extends keyof NewContact>(k: K, v: NewContact[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  const blank = (v: string | null | undefined) => (v === undefined ? undefined : v ? v : null);
  set("firstName", blank(f.first_name));
  set("lastName", blank(f.last_name));
  set("email", blank(f.email));
  if (f.phone !== undefined) {
    const p = normalisePhone(f.phone, phoneCountry);
    out.phone = p.e164;
    out.phoneRaw = p.raw;
  }
  if (f.mobile !== undefined) {
    const p = normalisePhone(f.mobile, phoneCountry);
    out.mobile = p.e164;
    out.mobileRaw = p.raw;
  }
  set("company", blank(f.company));
  set("jobTitle", blank(f.job_title));
  set("website", blank(f.website));
  set("streetAddress", blank(f.street_address));
  set("city", blank(f.city));
  set("state", blank(f.state));
  set("postalCode", blank(f.postal_code));
  set("country", blank(f.country));
  set("lifecycleStage", f.lifecycle_stage);
  set("leadStatus", f.lead_status);
  set("leadSource", blank(f.lead_source));
  set("leadScore", f.lead_score);
  set("engagementScore", f.engagement_score);
  set("emailOptIn", f.email_opt_in);
  set("smsOptIn", f.sms_opt_in);
  set("callOptIn", f.call_opt_in);
  set("preferredLanguage", blank(f.preferred_language));
  set("timezone", blank(f.timezone));
  set("linkedinUrl", blank(f.linkedin_url));
  set("twitterHandle", blank(f.twitter_handle));
  set("facebookUrl", blank(f.facebook_url));
  set("instagramHandle", blank(f.instagram_handle));
  return out;
}
