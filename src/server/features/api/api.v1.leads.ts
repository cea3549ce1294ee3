import { z } from "zod";
import { AppError } from "../../lib/errors";
import { FILTERS, filterSetSchema } from "../leads/leads.filters";
import type { BusinessJson, PurgedResult, SearchJson } from "../leads/leads.service";

/**
 * The public API's lead searches in snake_case (issue 15: "snake_case fields as in the spec's
 * entities"). The leads feature speaks camelCase in its filter set (`minRating`, `includeZipCodes`,
 * spec section 3 "Filter set") and in three result fields (`leadScore`, `leadTier`, `scoreReasons`);
 * this module is the one place that maps between the two, at the API boundary:
 *
 * - filter names: `FILTER_NAMES` (v1 name -> leads key), each leads key in snake_case
 *   (`minRating` -> `min_rating`, `includeZipCodes` -> `include_zip_codes`), with a few spelled as
 *   words (`hasLinkedIn` -> `has_linkedin`, `hasYouTube` -> `has_youtube`, `open24Hours` ->
 *   `open_24_hours`, `minBBBRating` -> `min_bbb_rating`); used by the request's `filters`, the
 *   search's `enrichment.deferred_filters` and the 422 naming filters a provider cannot answer;
 * - results: `toLeadResultJson`, every field of the leads feature's BusinessJson in snake_case.
 */

/** Leads filter keys whose snake_case is written as words rather than split at each capital. */
const SPELLED: Record<string, string> = {
  hasLinkedIn: "has_linkedin",
  hasYouTube: "has_youtube",
  open24Hours: "open_24_hours",
  minBBBRating: "min_bbb_rating",
};

/** A leads filter key in snake_case: `includeZipCodes` -> `include_zip_codes`. */
function snakeOf(key: string): string {
  return SPELLED[key] ?? key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** v1 filter name -> the leads feature's filter key, for every filter of the Filter set. */
export const FILTER_NAMES: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>();
  for (const d of FILTERS) {
    const name = snakeOf(d.key);
    // two keys on one name would make a filter unreachable: fail at startup, not in a request
    if (m.has(name)) throw new Error(`v1 filter name ${name} stands for ${m.get(name)} and ${d.key}`);
    m.set(name, d.key);
  }
  return m;
})();
const V1_NAME_OF: ReadonlyMap<string, string> = new Map([...FILTER_NAMES].map(([v1, key]) => [key, v1]));

/** The v1 name of a leads filter key (the key itself if it is not one: never expected). */
export const v1FilterName = (key: string) => V1_NAME_OF.get(key) ?? key;

/**
 * POST /lead_searches `filters`: the leads feature's Filter set with its names in snake_case. Each
 * filter has the leads feature's own schema (bounds, lists, tri-states; unknown names refused by name);
 * the set's cross-field rules (a min above its max, open and closed now) come from filterSetSchema,
 * their issues named by the v1 names. Outputs the leads feature's camelCase filter set.
 */
export const leadFiltersBody = z
  .strictObject(
    Object.fromEntries(FILTERS.map((d) => [snakeOf(d.key), d.schema.describe(d.label)])) as Record<
      string,
      z.ZodType
    >,
  )
  .superRefine((v, ctx) => {
    const r = filterSetSchema.safeParse(toLeadFilters(v));
    if (r.success) return;
    for (const issue of r.error.issues)
      ctx.addIssue({
        code: "custom",
        message: issue.message,
        path: issue.path.map((p) => (typeof p === "string" ? v1FilterName(p) : p)),
      });
  })
  .transform(toLeadFilters);

/** v1 filters (snake_case, already checked) as the leads feature's filter set. */
function toLeadFilters(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(v)) out[FILTER_NAMES.get(name) ?? name] = value;
  return out;
}

/**
 * A leads search as v1 returns it: the leads feature's SearchJson (snake_case already) with the
 * deferred filters under their v1 names.
 */
export function toLeadSearchJson(s: SearchJson) {
  return {
    ...s,
    enrichment: { ...s.enrichment, deferred_filters: s.enrichment.deferred_filters.map(v1FilterName) },
  };
}

/**
 * Runs `fn` (the leads service's search), naming filters by their v1 names in its refusals: the 422
 * of filters the provider cannot answer (leads `{filters: [{key, reason}]}` details) gets the v1
 * names in its sentence and the first one as `param` (`filters.min_rating`).
 */
export async function withV1FilterNames<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const refused = e instanceof AppError && (e.details as { filters?: unknown } | undefined)?.filters;
    if (!(e instanceof AppError) || !Array.isArray(refused)) throw e;
    const keys = refused.map((r: { key?: unknown }) => String(r.key ?? ""));
    let message = e.message;
    for (const key of keys) message = message.replaceAll(`${key} (`, `${v1FilterName(key)} (`);
    throw new AppError(e.code, message, {
      param: keys[0] ? `filters.${v1FilterName(keys[0])}` : "filters",
      filters: refused.map((r: { key?: unknown; reason?: unknown }) => ({
        key: v1FilterName(String(r.key ?? "")),
        reason: r.reason,
      })),
    });
  }
}

/** One stored result in v1's snake_case; fields older results lack come back as null. */
export function toLeadResultJson(b: BusinessJson | PurgedResult) {
  if ("purged" in b && b.purged === true) return { place_id: b.place_id, purged: true as const };
  const r = b as BusinessJson;
  return {
    place_id: r.place_id,
    name: r.name,
    address: r.address ?? null,
    city: r.city ?? null,
    state: r.state ?? null,
    postal_code: r.postal_code ?? null,
    lat: r.lat,
    lng: r.lng,
    rating: r.rating ?? null,
    review_count: r.review_count ?? null,
    price_level: r.price_level ?? null,
    phone: r.phone ?? null,
    phone_e164: r.phone_e164 ?? null,
    website: r.website ?? null,
    email: r.email ?? null,
    socials: r.socials ?? {},
    types: r.types ?? [],
    business_status: r.business_status ?? null,
    distance: r.distance,
    opening_hours: {
      open_now: r.opening_hours?.open_now ?? null,
      text: r.opening_hours?.text ?? null,
    },
    lead_score: r.leadScore,
    lead_tier: r.leadTier,
    score_reasons: r.scoreReasons ?? [],
    competitors: r.competitors ?? 0,
    in_contacts: r.in_contacts ?? false,
    is_new: r.is_new ?? false,
    has_contact_form: r.has_contact_form ?? null,
    demo: r.demo === true,
    attribution: r.attribution ?? null,
    enrichment: r.enrichment
      ? {
          status: r.enrichment.status,
          ...(r.enrichment.reason !== undefined ? { reason: r.enrichment.reason } : {}),
          pages: r.enrichment.pages,
          emails_found: r.enrichment.emails_found,
        }
      : null,
  };
}
