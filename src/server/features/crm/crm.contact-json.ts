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
