import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { isContactEmail, normaliseContactEmail } from "../../lib/email";
import { normalisePhone, toE164 } from "../../lib/phone";
import { contactsLimitOf } from "../billing/billing.service";
import { optOutsOf } from "../compliance/compliance.service";
import {
  mergeWebhookEmits,
  NO_WEBHOOK_EMIT,
  queueWebhookDeliveries,
  subscribedWebhookTypes,
  type WebhookEmit,
} from "../webhooks/webhooks.service";
import { phoneCountryOf } from "../workspaces/workspaces.service";
import { type ContactEventCtx, emitContactEvents } from "./crm.contact-events";
import { assertContactsFitInLock, withinContactLimit } from "./crm.contacts";
import {
  type BusinessMatchRow,
  fillContactFromBusiness,
  selectBusinessMatchCandidates,
} from "./crm.leads.queries";
import { insertContactsReturningIds } from "./crm.queries";
import { isWebAddress } from "./crm.schemas";
import { ensureTagWithinLimit } from "./crm.tags";
import { tagContactsByTagName } from "./crm.tags.queries";

// Businesses from the lead search (issue 13) -> contacts: matching and adding.

/** A business found by the lead search, as the leads feature hands it to the CRM. */
export interface BusinessContactInput {
  placeId: string;
  name: string;
  phone?: string | null;
  website?: string | null;
  email?: string | null;
  streetAddress?: string | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  leadScore?: number | null;
  facebookUrl?: string | null;
  instagramHandle?: string | null;
  linkedinUrl?: string | null;
}

/** "https://www.Acme.com/x" -> "acme.com" (null when not a URL). */
export function websiteDomain(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(/^[a-z]+:\/\//i.test(url) ? url : `https://${url}`);
    return u.hostname.toLowerCase().replace(/^www\./, "") || null;
  } catch {
    return null;
  }
}

/**
 * A name or street address compared by its letters and digits: "Patel Plumbing & Co." ->
 * "patelplumbingco", "12 Main St." -> "12mainst" (null when nothing is left).
 */
const compactKey = (text: string | null | undefined) =>
  text
    ?.trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "") || null;

/**
 * False when `a` and `b` are visibly two businesses: both named and the names differ, or both with
 * a street address and the addresses differ (a chain's branches, two shops of one building, a
 * plumber and the answering service whose number they share); true otherwise. Two businesses sharing
 * a phone number or a website are the same contact only when this holds (a QA pass: 24 of 244 lead
 * search results, each sharing a phone or website with another, were never created).
 */
function maybeSameBusiness(
  a: { name: string | null | undefined; street: string | null | undefined },
  b: { name: string | null | undefined; street: string | null | undefined },
): boolean {
  const [na, nb] = [compactKey(a.name), compactKey(b.name)];
  if (na && nb && na !== nb) return false;
  const [sa, sb] = [compactKey(a.street), compactKey(b.street)];
  return !(sa && sb && sa !== sb);
}

const nameAddressKey = (name: string | null | undefined, street: string | null | undefined) =>
  name && street
    ? `${name.trim().toLowerCase()}|${street
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9]/g, "")}`
    : null;

/**
 * Contacts of the workspace matching businesses, keyed by the business's placeId. A business matches a
 * contact (in this order) by the place id it was created from (`custom_fields.place_id`), its email
 * (case-insensitive, in Unicode NFC: lib/email normaliseContactEmail), its E.164 phone, its website
 * domain, then name (the contact's company) + street address; by phone or website only a contact
 * that may be the same business (maybeSameBusiness: not another company name, not another street
 * address). Phones without `+country` are read in
 * `opts.phoneCountry` (ISO 3166-1 alpha-2), by default the workspace's phone country (issue 14).
 */
export async function matchBusinessContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  businesses: Pick<
    BusinessContactInput,
    "placeId" | "name" | "phone" | "website" | "email" | "streetAddress"
  >[],
  opts: { phoneCountry?: string } = {},
): Promise<Map<string, number>> {
  if (!businesses.length) return new Map();
  const country = opts.phoneCountry ?? (await phoneCountryOf(ctx, workspaceId));
  return matchIn(ctx.db, workspaceId, businesses, country);
}

/**
 * matchBusinessContacts over `db` (a transaction too), phones read in `country`. With `lock` (in a
 * transaction), the matched contacts (every candidate read) are locked FOR KEY SHARE until it ends,
 * so none of them can be deleted before its commit.
 */
async function matchIn(
  db: DbOrTx,
  workspaceId: string,
  businesses: Pick<
    BusinessContactInput,
    "placeId" | "name" | "phone" | "website" | "email" | "streetAddress"
  >[],
  country: string,
  opts: { lock?: boolean } = {},
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!businesses.length) return out;
  const placeIds = businesses.map((b) => b.placeId);
  const phones = businesses.map((b) => toE164(b.phone, country)).filter((p): p is string => !!p);
  const emails = businesses
    .map((b) => b.email && normaliseContactEmail(b.email))
    .filter((e): e is string => !!e);
  const domains = businesses.map((b) => websiteDomain(b.website)).filter((d): d is string => !!d);
  const rows = await selectBusinessMatchCandidates(
    db,
    workspaceId,
    {
      placeIds,
      emails,
      phones,
      domains,
      names: businesses.map((b) => b.name.trim().toLowerCase()),
    },
    opts,
  );
  const byPlace = new Map<string, number>();
  const byEmail = new Map<string, number>();
  // phone and website: every contact holding it, oldest first (the first that may be the business wins)
  const byPhone = new Map<string, BusinessMatchRow[]>();
  const byDomain = new Map<string, BusinessMatchRow[]>();
  const byNameAddr = new Map<string, number>();
  const add = (m: Map<string, BusinessMatchRow[]>, key: string, r: BusinessMatchRow) =>
    m.set(key, [...(m.get(key) ?? []), r]);
  for (const r of rows) {
    const id = Number(r.id);
    if (r.place_id && !byPlace.has(r.place_id)) byPlace.set(r.place_id, id);
    if (r.email && !byEmail.has(r.email)) byEmail.set(r.email, id);
    if (r.phone) add(byPhone, r.phone, r);
    const d = websiteDomain(r.website);
    if (d) add(byDomain, d, r);
    const k = nameAddressKey(r.company, r.street_address);
    if (k && !byNameAddr.has(k)) byNameAddr.set(k, id);
  }
  for (const b of businesses) {
    const e164 = toE164(b.phone, country);
    const d = websiteDomain(b.website);
    const k = nameAddressKey(b.name, b.streetAddress);
    const same = (found: BusinessMatchRow[] | undefined) => {
      const r = found?.find((c) =>
        maybeSameBusiness(
          { name: c.company, street: c.street_address },
          { name: b.name, street: b.streetAddress },
        ),
      );
      return r ? Number(r.id) : undefined;
    };
    const id =
      byPlace.get(b.placeId) ??
      (b.email ? byEmail.get(normaliseContactEmail(b.email)) : undefined) ??
      (e164 ? same(byPhone.get(e164)) : undefined) ??
      (d ? same(byDomain.get(d)) : undefined) ??
      (k ? byNameAddr.get(k) : undefined);
    if (id !== undefined) out.set(b.placeId, id);
  }
  return out;
}

/**
 * The columns a business search result gives a contact, whether it creates one or fills an existing
 * one's empty fields: phone in E.164 (read in `phoneCountry` without `+country`) with its raw form,
 * website, street address, city, state, postal code and coordinates (null where the result has none).
 */
function businessPlaceColumns(b: BusinessContactInput, phoneCountry: string) {
  const p = normalisePhone(b.phone, phoneCountry);
  return {
    phone: p.e164,
    phoneRaw: p.raw,
    website: b.website ?? null,
    streetAddress: b.streetAddress ?? null,
    city: b.city ?? null,
    state: b.state ?? null,
    postalCode: b.postalCode ?? null,
    latitude: b.latitude ?? null,
    longitude: b.longitude ?? null,
  };
}

/**
 * A business with the values a contact may not hold left out, by the rules of the CSV and JSON
 * imports (crm.import CLEARED_FIELDS, validateImportRow): a website, Facebook or LinkedIn URL that is
 * not a web address (crm.schemas isWebAddress: `javascript:`, `data:` ...) and an email the imports
 * refuse (lib/email isContactEmail); the email kept lower-cased and in NFC (normaliseContactEmail), as imports
 * keep it. The lead search's data comes from providers anyone may edit (OpenStreetMap).
 */
function withContactSafeValues(b: BusinessContactInput): BusinessContactInput {
  const web = (v: string | null | undefined) => (v?.trim() && isWebAddress(v.trim()) ? v.trim() : null);
  const email = b.email && normaliseContactEmail(b.email);
  return {
    ...b,
    website: web(b.website),
    facebookUrl: web(b.facebookUrl),
    linkedinUrl: web(b.linkedinUrl),
    email: email && isContactEmail(email) ? email : null,
  };
}

/** A business addBusinessContacts did not add or fill, and why ("same phone as Patel Plumber"). */
export interface SkippedBusiness {
  placeId: string;
  name: string;
  reason: string;
}

/** What addBusinessContacts did: counts, contact ids, the place ids now in contacts, the skipped ones. */
export interface AddedBusinesses {
  created: number;
  updated: number;
  /** skippedBusinesses.length */
  skipped: number;
  contactIds: number[];
  /** place ids of the businesses that became or matched a contact */
  inContacts: string[];
  skippedBusinesses: SkippedBusiness[];
}

/** The skip reason of a business that matched a contact with nothing missing to fill. */
export const ALREADY_IN_CONTACTS = "already in contacts, nothing new to add";

/**
 * Adds businesses from the lead search to the workspace's contacts (issue 13): each is matched first
 * (see matchBusinessContacts; duplicates within the call collapse too). Matched contacts get their
 * empty phone, website, address and coordinates filled ("updated"; "skipped" when nothing was
 * missing); the rest are created with company = the business name, lead_source 'business_search',
 * lifecycle stage lead and custom_fields.place_id. The creations count against the plan's contact
 * limit, checked before anything is written, under the workspace's contact-creation lock held to the
 * commit (withinContactLimit: concurrent creators cannot pass it together). With `tagName`, the
 * created and matched contacts get that tag (created when missing, within crm.tags MAX_TAGS: a new
 * tag past it is a 409 CONFLICT and nothing is written). Phones are stored in E.164, read
 * in the workspace's phone country when they have no `+country` (issue 14). In the same transaction
 * (the webhooks outbox), stores `contact.created` per created contact and `contact.updated` per
 * filled one (toContactJson) when an endpoint of the workspace listens (asked once, before it); their
 * delivery jobs are queued after the commit. A website, Facebook or LinkedIn URL that is not a web
 * address and an invalid email are left out (withContactSafeValues), the business still added.
 * `contactIds` (the matched then the created contacts) are all contacts of the workspace when the
 * add commits: the contacts matched under the lock stay locked against deletion until then.
 * Within the call, a business with the place id or email of an earlier one is skipped, and one with
 * its phone number or website only when it may be the same business (maybeSameBusiness: two
 * businesses with different names or street addresses are both created). `skippedBusinesses` says
 * why each skipped one was ("same phone as Patel Plumber", ALREADY_IN_CONTACTS); `inContacts` lists
 * the place ids that became or matched a contact (a skipped duplicate too: the contact of the same
 * place, email or business), as matchBusinessContacts finds them later.
 */
export async function addBusinessContacts(
  ctx: ContactEventCtx,
  workspaceId: string,
  given: BusinessContactInput[],
  opts: { tagName?: string } = {},
): Promise<AddedBusinesses> {
  const businesses = given.map(withContactSafeValues);
  const phoneCountry = await phoneCountryOf(ctx, workspaceId);
  /** Splits the businesses into creations and updates given the contacts they match. */
  // within the call: a business with the place id of an earlier one, or its email (one contact per
  // email), is skipped; with its phone or website only when it may be the same business
  // (maybeSameBusiness), else both are added
  const split = (matched: Map<string, number>) => {
    const taken = new Map<string, BusinessContactInput[]>();
    const create: BusinessContactInput[] = [];
    const update: { id: number; b: BusinessContactInput }[] = [];
    const dups: (SkippedBusiness & { inContacts: boolean })[] = [];
    for (const b of businesses) {
      const e164 = toE164(b.phone, phoneCountry);
      const domain = websiteDomain(b.website);
      const keys: [string | null, string, boolean][] = [
        [`p:${b.placeId}`, "same place as", false],
        [b.email ? `e:${b.email.toLowerCase()}` : null, "same email as", false],
        [e164 ? `t:${e164}` : null, "same phone as", true],
        [domain ? `d:${domain}` : null, "same website as", true],
      ];
      const same = (o: BusinessContactInput) =>
        o.placeId === b.placeId ||
        maybeSameBusiness(
          { name: o.name, street: o.streetAddress },
          { name: b.name, street: b.streetAddress },
        );
      let dup: (typeof dups)[number] | null = null;
      for (const [key, what, onlySame] of keys) {
        const other = key ? taken.get(key)?.find((o) => !onlySame || same(o)) : undefined;
        if (other) {
          // in contacts as the earlier one's contact: the same place or email, or maybe the same business
          dup = {
            placeId: b.placeId,
            name: b.name,
            reason: `${what} ${other.name}`,
            inContacts: !onlySame || same(other),
          };
          break;
        }
      }
      if (dup) {
        dups.push(dup);
        continue;
      }
      for (const [key] of keys) if (key) taken.set(key, [...(taken.get(key) ?? []), b]);
      const id = matched.get(b.placeId);
      if (id !== undefined) update.push({ id, b });
      else create.push(b);
    }
    return { create, update, dups };
  };
  // a first match outside the lock: how many contacts at most this call creates (the plan check)
  const estimate = split(await matchBusinessContacts(ctx, workspaceId, businesses, { phoneCountry }));
  let toCreate = estimate.create;
  let toUpdate = estimate.update;
  let ids: number[] = [];
  let filledIds: number[] = [];
  let createdIds: number[] = [];
  // who listens, asked before the transaction (one select of the workspace's endpoints)
  const listens =
    toCreate.length || toUpdate.length
      ? await subscribedWebhookTypes(ctx, workspaceId, ["contact.created", "contact.updated"])
      : new Set();
  let emitted: WebhookEmit = NO_WEBHOOK_EMIT;
  // an opted-out email (the suppression list) makes a contact with its email opt-in off, not the
  // default on (README "Opt-outs": only the person can opt back in)
  const withEmail = businesses.filter((b) => b.email);
  const optedOut = new Set<string>();
  if (withEmail.length)
    (
      await optOutsOf(
        ctx.db,
        workspaceId,
        withEmail.map((b) => ({ email: b.email })),
        ["email"],
      )
    ).forEach((o, i) => {
      if (o.email) optedOut.add(withEmail[i]!.placeId);
    });
  // the plan's contact limit, for creations the match under the lock finds beyond the first one's
  const limit = await contactsLimitOf(ctx, workspaceId);
  // one transaction (run again as a whole on a deadlock) under the workspace's contact-creation lock:
  // the businesses are matched again once the lock is held, so a concurrent add of the same results
  // (two "Add to contacts" at once) updates the contacts the first one created instead of creating
  // them twice (or failing on the email index)
  const result = await withinContactLimit(
    ctx,
    workspaceId,
    estimate.create.length,
    async (tx) => {
      // the matched contacts are locked (FOR KEY SHARE) until the commit: one deleted by another
      // request before this match is not matched (its business is created), one deleted after it
      // waits for the commit, so every id answered is a contact when the add commits (a skipped
      // contact, nothing to fill, was not locked before and could be answered though deleted)
      const now = split(await matchIn(tx, workspaceId, businesses, phoneCountry, { lock: true }));
      // the limit was checked for the first match's creations: a contact it matched may have been
      // deleted since (then it is created here), so more creations are checked again, under the lock
      if (now.create.length > estimate.create.length)
        await assertContactsFitInLock(tx, workspaceId, limit, now.create.length);
      toCreate = now.create;
      toUpdate = now.update;
      ids = [];
      filledIds = [];
      createdIds = [];
      const skippedBusinesses: SkippedBusiness[] = now.dups.map(({ inContacts: _, ...d }) => d);
      // a duplicate of a business added here is in contacts as that business's contact
      const inContacts = now.dups.filter((d) => d.inContacts).map((d) => d.placeId);
      let updated = 0;
      for (const { id, b } of toUpdate) {
        const filled = await fillContactFromBusiness(tx, workspaceId, id, {
          ...businessPlaceColumns(b, phoneCountry),
          placeId: b.placeId,
        });
        if (filled) {
          updated++;
          filledIds.push(id);
        } else skippedBusinesses.push({ placeId: b.placeId, name: b.name, reason: ALREADY_IN_CONTACTS });
        ids.push(id);
        inContacts.push(b.placeId);
      }
      inContacts.push(...toCreate.map((b) => b.placeId));
      if (toCreate.length) {
        const created = await insertContactsReturningIds(
          tx,
          toCreate.map((b) => {
            return {
              workspaceId,
              company: b.name,
              email: b.email?.toLowerCase() ?? null,
              ...(optedOut.has(b.placeId) ? { emailOptIn: false } : {}),
              ...businessPlaceColumns(b, phoneCountry),
              country: "US",
              geocodedAt: b.latitude != null ? new Date() : null,
              leadSource: "business_search",
              leadScore: Math.max(0, Math.min(100, Math.round(b.leadScore ?? 0))),
              facebookUrl: b.facebookUrl ?? null,
              instagramHandle: b.instagramHandle ?? null,
              linkedinUrl: b.linkedinUrl ?? null,
              customFields: { place_id: b.placeId },
            };
          }),
        );
        ids.push(...created);
        createdIds = created;
      }
      if (opts.tagName?.trim() && ids.length) {
        const name = opts.tagName.trim().slice(0, 50);
        await ensureTagWithinLimit(tx, workspaceId, name);
        await tagContactsByTagName(tx, workspaceId, name, ids);
      }
      // the contacts' events, in this transaction (after the tagging: the JSON carries the tag)
      const ectx = { db: tx, log: ctx.log };
      emitted = mergeWebhookEmits(
        listens.has("contact.created") && createdIds.length
          ? await emitContactEvents(ectx, workspaceId, "contact.created", createdIds)
          : null,
        listens.has("contact.updated") && filledIds.length
          ? await emitContactEvents(ectx, workspaceId, "contact.updated", filledIds)
          : null,
      );
      return {
        created: toCreate.length,
        updated,
        skipped: skippedBusinesses.length,
        contactIds: ids,
        inContacts,
        skippedBusinesses,
      };
    },
    { transaction: true, lock: true },
  );
  await queueWebhookDeliveries(ctx, emitted);
  return result;
}
