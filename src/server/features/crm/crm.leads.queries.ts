import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";

// SQL of matching and filling contacts from lead search businesses (issue 13). Rules: crm.leads.ts.

/** A contact that may match a business, with the keys it is matched on. */
export type BusinessMatchRow = {
  id: number;
  place_id: string | null;
  email: string | null;
  phone: string | null;
  website: string | null;
  company: string | null;
  street_address: string | null;
};

/**
 * Contacts of `workspaceId` that share a key with the given businesses: `custom_fields.place_id`,
 * lower(email), E.164 phone, website domain (scheme, www. and path stripped) or lower(company) with a
 * street address; oldest first. Email and name keys are passed lower-cased. With `lock` (in a
 * transaction), the rows are locked FOR KEY SHARE as they are read, until it ends: a contact deleted
 * by a committed request before that is left out, and a delete after it waits for the commit.
 */
export async function selectBusinessMatchCandidates(
  db: DbOrTx,
  workspaceId: string,
  keys: { placeIds: string[]; emails: string[]; phones: string[]; domains: string[]; names: string[] },
  opts: { lock?: boolean } = {},
): Promise<BusinessMatchRow[]> {
  const rows = await db.execute<BusinessMatchRow>(sql`
    select id, custom_fields->>'place_id' as place_id, lower(email) as email, phone, website, company, street_address
    from contacts
    where workspace_id = ${workspaceId} and (
      custom_fields->>'place_id' = any(array(select jsonb_array_elements_text(${JSON.stringify(keys.placeIds)}::jsonb)))
      or lower(email) = any(array(select jsonb_array_elements_text(${JSON.stringify(keys.emails)}::jsonb)))
      or phone = any(array(select jsonb_array_elements_text(${JSON.stringify(keys.phones)}::jsonb)))
      or (website is not null and lower(regexp_replace(regexp_replace(website, '^[a-zA-Z]+://', ''), '^www\\.|[/:?#].*$', '', 'g')) = any(array(select jsonb_array_elements_text(${JSON.stringify(keys.domains)}::jsonb))))
      or (company is not null and street_address is not null and lower(company) = any(array(select jsonb_array_elements_text(${JSON.stringify(keys.names)}::jsonb))))
    )
    order by id${opts.lock ? sql` for key share` : sql``}`);
  return [...rows];
}

/**
 * Fills a contact's empty phone, website, address and coordinates from a business and records its
 * place id (`custom_fields.place_id`) when missing. Returns false when nothing was missing (no write).
 */
export async function fillContactFromBusiness(
  db: DbOrTx,
  workspaceId: string,
  id: number,
  b: {
    phone: string | null;
    phoneRaw: string | null;
    website: string | null;
    streetAddress: string | null;
    city: string | null;
    state: string | null;
    postalCode: string | null;
    latitude: number | null;
    longitude: number | null;
    placeId: string;
  },
): Promise<boolean> {
  const r = await db.execute<{ id: number }>(sql`
    update contacts set
      phone = coalesce(phone, ${b.phone}), phone_raw = coalesce(phone_raw, ${b.phoneRaw}),
      website = coalesce(website, ${b.website}),
      street_address = coalesce(street_address, ${b.streetAddress}),
      city = coalesce(city, ${b.city}), state = coalesce(state, ${b.state}),
      postal_code = coalesce(postal_code, ${b.postalCode}),
      latitude = coalesce(latitude, ${b.latitude}), longitude = coalesce(longitude, ${b.longitude}),
      custom_fields = custom_fields || jsonb_build_object('place_id', coalesce(custom_fields->>'place_id', ${b.placeId}::text)),
      updated_at = now()
    where workspace_id = ${workspaceId} and id = ${id} and (
      (phone is null and ${b.phone}::text is not null) or (website is null and ${b.website}::text is not null)
      or (street_address is null and ${b.streetAddress}::text is not null)
      or (latitude is null and ${b.latitude}::float8 is not null)
      or custom_fields->>'place_id' is null)
    returning id`);
  return r.length > 0;
}
