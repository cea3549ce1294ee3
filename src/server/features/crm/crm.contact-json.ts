import type { Contact, NewContact } from "../../db/schema";
import { normalisePhone } from "../../lib/phone";
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

const str = JSON.stringify;

/** The Contact properties `toContactJson` reads, in the order `contactJsonWriter` reads them. */
export const CONTACT_JSON_SOURCES = [
  "id",
  "firstName",
  "lastName",
  "email",
  "phone",
  "phoneRaw",
  "mobile",
  "mobileRaw",
  "company",
  "jobTitle",
  "website",
  "streetAddress",
  "city",
  "state",
  "postalCode",
  "country",
  "lifecycleStage",
  "leadStatus",
  "leadSource",
  "leadScore",
  "engagementScore",
  "emailOptIn",
  "smsOptIn",
  "callOptIn",
  "preferredLanguage",
  "timezone",
  "linkedinUrl",
  "twitterHandle",
  "facebookUrl",
  "instagramHandle",
  "latitude",
  "longitude",
  "customFields",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof Contact)[];

/**
 * A timestamptz as Postgres sends it in text ("2026-11-24 03:52:22.123456+00") to the JSON of
 * `Date.prototype.toISOString` ("2026-11-24T03:52:22.123Z", milliseconds truncated as a JS Date
 * truncates them); sessions in UTC take a string-only path, any other offset goes through Date.
 */
function isoFromPg(ts: string): string {
  const n = ts.length;
  if (n >= 22 && ts.charCodeAt(10) === 32 && ts.endsWith("+00")) {
    const frac = n > 22 ? `${ts.slice(20, n - 3)}000`.slice(0, 3) : "000";
    return `"${ts.slice(0, 10)}T${ts.slice(11, 19)}.${frac}Z"`;
  }
  return str(new Date(ts).toISOString());
}

/**
 * A writer of `toContactJson`'s JSON text (same keys, order and values) straight from a row of the
 * driver's values (postgres.js through drizzle: bigint id as digits, int4/float8/bool parsed,
 * timestamptz as Postgres text, jsonb parsed), for list pages that go straight into a response:
 * it skips the Contact object, its Dates and the second walk of JSON.stringify (bench:api profile:
 * ~0.2 -> ~0.08 ms of server CPU per 50-row page). `indexOf(prop)` gives the column index of each
 * Contact property in the row. crm-page-rows.int.test.ts holds its output equal to
 * `JSON.stringify(toContactJson(contact))` for the same rows. @throws Error when a column is missing.
 */
export function contactJsonWriter(indexOf: (prop: keyof Contact) => number): (row: unknown[]) => string {
  const at = (prop: keyof Contact) => {
    const i = indexOf(prop);
    if (i < 0) throw new Error(`contactJsonWriter: no column for ${prop}`);
    return i;
  };
  const [id, fn, ln, em, ph, phr, mo, mor, co, jt, ws, sa, ci, st, pc, cn, ls, lst, lsrc, lsc, esc] =
    CONTACT_JSON_SOURCES.slice(0, 21).map(at);
  const [eo, so, cl, pl, tz, li, tw, fb, ig, lat, lng, cf, ca, ua] = CONTACT_JSON_SOURCES.slice(21).map(at);
  const num = (v: unknown) => (v === null || v === undefined ? "null" : str(Number(v)));
  return (v) =>
    `{"id":${num(v[id!])},"first_name":${str(v[fn!])},"last_name":${str(v[ln!])},"email":${str(v[em!])}` +
    `,"phone":${str(v[phr!] ?? v[ph!])},"phone_e164":${str(v[ph!])},"mobile":${str(v[mor!] ?? v[mo!])}` +
    `,"mobile_e164":${str(v[mo!])},"company":${str(v[co!])},"job_title":${str(v[jt!])},"website":${str(v[ws!])}` +
    `,"street_address":${str(v[sa!])},"city":${str(v[ci!])},"state":${str(v[st!])},"postal_code":${str(v[pc!])}` +
    `,"country":${str(v[cn!])},"lifecycle_stage":${str(v[ls!])},"lead_status":${str(v[lst!])}` +
    `,"lead_source":${str(v[lsrc!])},"lead_score":${num(v[lsc!])},"engagement_score":${num(v[esc!])}` +
    `,"email_opt_in":${str(v[eo!])},"sms_opt_in":${str(v[so!])},"call_opt_in":${str(v[cl!])}` +
    `,"preferred_language":${str(v[pl!])},"timezone":${str(v[tz!])},"linkedin_url":${str(v[li!])}` +
    `,"twitter_handle":${str(v[tw!])},"facebook_url":${str(v[fb!])},"instagram_handle":${str(v[ig!])}` +
    `,"latitude":${num(v[lat!])},"longitude":${num(v[lng!])},"custom_fields":${str(v[cf!] ?? {})}` +
    `,"created_at":${isoFromPg(String(v[ca!]))},"updated_at":${isoFromPg(String(v[ua!]))}}`;
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
