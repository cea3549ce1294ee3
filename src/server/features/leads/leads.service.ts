import type { AppContext } from "../../context";
import { isUniqueViolation } from "../../db/errors";
import { AppError } from "../../lib/errors";
import { parseAllowedHosts } from "../../lib/outbound";
import { toE164 } from "../../lib/phone";
import { parseInput } from "../../lib/validate";
import { ProviderError } from "../../providers/errors";
import type { Place, PlaceAttribute } from "../../providers/places";
import { releaseUsage, reserveUsage } from "../billing/billing.service";
import { addBusinessContacts, matchBusinessContacts } from "../crm/crm.service";
import { emitWebhookEvent, queueWebhookDeliveries } from "../webhooks/webhooks.service";
import { getWorkspace, phoneCountryOf } from "../workspaces/workspaces.service";
import { runGridSearch } from "./leads.engine";
import { type EnrichedSite, enrichWebsite } from "./leads.enrich";
import {
  activeFilters,
  DEFAULT_FILTERS,
  FILTER_BY_KEY,
  FILTER_CATEGORIES,
  FILTERS,
  type FilterValues,
  type LeadFacts,
  passes,
  reasonFor,
  unanswerable,
} from "./leads.filters";
import { distanceMi } from "./leads.geo";
import { enrichSearchJob, purgeGoogleContentJob } from "./leads.jobs";
import { resolveLocation } from "./leads.location";
import { PRESETS, presetsFor } from "./leads.presets";
import * as q from "./leads.queries";
import {
  addToContactsSchema,
  idSchema,
  type SearchInput,
  searchSchema,
  swapLocationSchema,
} from "./leads.schemas";
import { leadTier, scoreLead } from "./leads.score";

type Ctx = Pick<AppContext, "db" | "env" | "providers" | "log" | "jobs">;

/**
 * Attributes website enrichment supplies (public emails; social profiles and contact forms) when the
 * provider gives websites: with `enrich`, filters needing them are answerable and applied once the
 * enrichment job has visited the websites.
 */
export const ENRICHED_ATTRIBUTES: readonly PlaceAttribute[] = ["email", "webPresence"];
/** Websites one search's enrichment visits at most (cost and time bound). */
export const ENRICH_MAX_SITES = 500;
/** Sites visited in parallel by one enrichment job. */
const ENRICH_CONCURRENCY = 6;

/** The user and workspace a call acts for. */
export interface LeadsTenant {
  userId: string;
  workspaceId: string;
}

/**
 * The filter catalogue for the active provider: the 19 categories and every filter with its kind,
 * bounds, options, default and whether the provider can answer it (with the reason when not).
 */
export function filterCatalogue(ctx: Pick<AppContext, "providers">) {
  const p = ctx.providers.places;
  return {
    provider: { name: p.name, label: p.label, attribution: p.attribution },
    categories: FILTER_CATEGORIES.map((c) => ({ id: c.id, label: c.label })),
    defaults: DEFAULT_FILTERS,
    filters: FILTERS.map((f) => {
      const missing = f.attrs.filter((a) => !p.attributes.has(a));
      const enrichable =
        missing.length > 0 &&
        p.attributes.has("website") &&
        missing.every((a) => ENRICHED_ATTRIBUTES.includes(a));
      return {
        key: f.key,
        category: f.category,
        kind: f.kind,
        label: f.label,
        min: f.min,
        max: f.max,
        step: f.step,
        options: f.options ? [...f.options] : undefined,
        answerable: missing.length === 0,
        reason: missing.length ? reasonFor(missing, p.label) : null,
        /** answerable when the search asks for website enrichment */
        answerableWithEnrichment: enrichable,
      };
    }),
  };
}

/** GET /api/maps/presets: the industry presets, with only the filters the active provider answers. */
export function listPresets(ctx: Pick<AppContext, "providers">) {
  return presetsFor(ctx.providers.places.attributes).map((p) => ({
    id: p.id,
    name: p.name,
    businessType: p.businessType,
    filters: p.filters,
  }));
}

/** One business of a search response (spec section 3 "Business search result" plus what the card shows). */
export function toBusinessJson(p: Place, f: LeadFacts, reasons: string[], isNew: boolean) {
  return {
    place_id: p.placeId,
    name: p.name,
    address: p.address ?? null,
    city: p.city ?? null,
    state: p.state ?? null,
    postal_code: p.postalCode ?? null,
    lat: p.lat,
    lng: p.lng,
    rating: p.rating ?? null,
    review_count: p.reviewCount ?? null,
    price_level: p.priceLevel ?? null,
    phone: p.phone ?? null,
    /** the phone in E.164 (national numbers read in the workspace's phone country), null when not valid */
    phone_e164: f.phoneE164,
    website: p.website ?? null,
    email: p.email ?? null,
    socials: p.socials ? Object.fromEntries(Object.entries(p.socials).filter(([, v]) => !!v)) : {},
    types: p.types ?? [],
    business_status: p.businessStatus ?? null,
    distance: Math.round(f.distanceMi * 100) / 100,
    opening_hours: { open_now: p.hours?.openNow ?? null, text: p.hours?.text ?? null },
    leadScore: f.leadScore,
    leadTier: leadTier(f.leadScore),
    scoreReasons: reasons,
    competitors: f.competitors,
    in_contacts: f.inContacts,
    is_new: isNew,
    has_contact_form: p.hasContactForm ?? null,
    demo: p.demo === true,
    attribution: p.attribution ?? null,
    /** what website enrichment did for this result (null when not asked or not yet run) */
    enrichment: null as null | {
      status: EnrichedSite["status"] | "skipped";
      reason?: string;
      pages: number;
      emails_found: number;
    },
  };
}
export type BusinessJson = ReturnType<typeof toBusinessJson>;

/** Other places within 1 mile of each place, and whether it is the best rated among them. */
function competition(places: Place[]) {
  const cellOf = (lat: number, lng: number) => `${Math.floor(lat * 50)}:${Math.floor(lng * 40)}`;
  const grid = new Map<string, number[]>();
  places.forEach((p, i) => {
    const k = cellOf(p.lat, p.lng);
    grid.set(k, [...(grid.get(k) ?? []), i]);
  });
  return places.map((p) => {
    let n = 0;
    let top: boolean | null = typeof p.rating === "number" ? true : null;
    const a0 = Math.floor(p.lat * 50);
    const b0 = Math.floor(p.lng * 40);
    for (let a = a0 - 1; a <= a0 + 1; a++)
      for (let b = b0 - 1; b <= b0 + 1; b++)
        for (const j of grid.get(`${a}:${b}`) ?? []) {
          const o = places[j] as Place;
          if (o === p || distanceMi(p, o) > 1) continue;
          n++;
          if (top && typeof o.rating === "number" && o.rating > (p.rating as number)) top = false;
        }
    return { competitors: n, topRatedInArea: top };
  });
}

/**
 * Runs a business search (POST /api/maps/search, spec sections 2, 5, 7; issue 13). Validates the
 * input (400 with the spec's sentences), merges the preset's filters under the given ones, refuses
 * filters the active provider cannot answer (422 naming them), resolves the location (422 when
 * unknown), reserves one unit of the monthly search quota (402, billing; given back when the search does not
 * run), runs the grid search, scores,
 * filters and stores the results, and saves the search when asked (`saveSearch`, `searchName`).
 * A re-run of a saved search (`savedSearchId`) marks results its previous run did not find.
 * @throws AppError BAD_REQUEST, UNPROCESSABLE, PAYMENT_REQUIRED, CONFLICT (saved search name taken, or
 *   the client's `searchId` already used),
 *   NOT_FOUND (saved search), BAD_GATEWAY (the provider failed; its sentence is kept).
 * `opts.relocate` (swapLocation): the saved search `savedSearchId` moves to `location` when, and only
 * when, the search completes (in the results' transaction); its previous place ids are not compared
 * (another area: nothing is "new").
 */
export async function searchBusinesses(
  ctx: Ctx,
  t: LeadsTenant,
  input: SearchInput | unknown,
  opts: { relocate?: boolean } = {},
) {
  const s = parseInput(searchSchema, input);
  const preset = s.usePreset ? PRESETS.find((p) => p.id === s.usePreset) : undefined;
  if (s.usePreset && !preset) throw new AppError("BAD_REQUEST", `Unknown preset: ${s.usePreset}`);
  const presetFilters = preset
    ? (presetsFor(ctx.providers.places.attributes).find((p) => p.id === preset.id)?.filters ?? {})
    : {};
  const filters: FilterValues = { ...DEFAULT_FILTERS, ...presetFilters, ...stripUnset(s.filters) };
  const provider = ctx.providers.places;
  const enrich = s.enrich === true;
  // with enrichment, filters needing what it finds are answerable: applied after it ran (deferred)
  const supplied = new Set<string>(provider.attributes);
  if (enrich && provider.attributes.has("website")) for (const a of ENRICHED_ATTRIBUTES) supplied.add(a);
  const refused = unanswerable(filters, supplied, provider.label);
  if (refused.length)
    throw new AppError(
      "UNPROCESSABLE",
      `${refused.length === 1 ? "This filter" : "These filters"} cannot be answered with ${provider.label}: ${refused
        .map((r) => `${r.key} (${r.reason})`)
        .join("; ")}. Remove ${refused.length === 1 ? "it" : "them"} and search again.`,
      { filters: refused },
    );
  const saved = s.savedSearchId ? await q.findSaved(ctx.db, t.workspaceId, s.savedSearchId) : null;
  if (s.savedSearchId && !saved) throw new AppError("NOT_FOUND", "Saved search not found");
  if (s.saveSearch) {
    const existing = await q.listSaved(ctx.db, t.workspaceId);
    if (existing.some((x) => x.searchName.toLowerCase() === (s.searchName ?? "").toLowerCase()))
      throw new AppError("CONFLICT", `A saved search named "${s.searchName}" already exists`);
  }
  const where = resolveLocation(s.location);
  const workspace = await getWorkspace(ctx, t.workspaceId);
  // the monthly search quota (spec section 9): one unit of the leadSearches meter of the workspace's
  // billing period, reserved atomically (concurrent searches never pass the limit; 402 with the
  // plan's sentence) and given back when the search does not run (saved-search name taken, the
  // provider failed): a search the user got no results from costs nothing
  const reservation = await reserveUsage(ctx, workspace, "leadSearches", 1);

  let savedId = saved?.id ?? null;
  if (s.saveSearch) {
    try {
      const row = await q.insertSaved(ctx.db, {
        workspaceId: t.workspaceId,
        createdBy: t.userId,
        searchName: s.searchName as string,
        location: s.location,
        businessType: s.businessType,
        radius: s.radius,
        circleSize: s.searchRadius,
        filters: s.filters,
        preset: preset?.id ?? null,
      });
      savedId = row?.id ?? null;
    } catch (e) {
      await releaseUsage(ctx, reservation);
      if (isUniqueViolation(e))
        throw new AppError("CONFLICT", `A saved search named "${s.searchName}" already exists`);
      throw e;
    }
  }
  const search = await q
    .insertSearch(ctx.db, {
      ...(s.searchId ? { id: s.searchId } : {}),
      workspaceId: t.workspaceId,
      createdBy: t.userId,
      savedSearchId: savedId,
      location: where.label,
      businessType: s.businessType,
      radius: s.radius,
      circleSize: s.searchRadius,
      filters,
      preset: preset?.id ?? null,
      provider: provider.name,
      latitude: where.lat,
      longitude: where.lng,
      enrich,
      enrichStatus: enrich ? "queued" : "none",
    })
    .catch(async (e) => {
      await releaseUsage(ctx, reservation);
      // a saved search this call created goes too: the request failed as a whole
      if (s.saveSearch && savedId) await q.deleteSaved(ctx.db, t.workspaceId, savedId);
      // searchId is the client's pick (to follow progress): one already used is refused, not a 500
      if (s.searchId && isUniqueViolation(e))
        throw new AppError(
          "CONFLICT",
          "This searchId is already used by another search. Send a new UUID for each search.",
        );
      throw e;
    });
  if (!search) {
    await releaseUsage(ctx, reservation);
    throw new AppError("INTERNAL", "Search failed");
  }

  let lastWrite = 0;
  let grid: Awaited<ReturnType<typeof runGridSearch>>;
  try {
    grid = await runGridSearch({
      provider,
      centre: where,
      radiusMi: s.radius,
      circleMi: s.searchRadius,
      businessType: s.businessType,
      maxCalls: ctx.env.PLACES_MAX_CALLS_PER_SEARCH,
      onProgress: ({ done, total, apiCalls }) => {
        if (Date.now() - lastWrite < 250) return;
        lastWrite = Date.now();
        void q
          .updateSearch(ctx.db, t.workspaceId, search.id, {
            circlesDone: done,
            circlesTotal: total,
            apiCalls,
          })
          .catch(() => {});
      },
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    const message =
      e instanceof ProviderError ? e.message : `${provider.label} search failed: ${(e as Error).message}`;
    await q.updateSearch(ctx.db, t.workspaceId, search.id, {
      status: "failed",
      error: message,
      finishedAt: new Date(),
    });
    if (!(e instanceof ProviderError)) ctx.log.error({ err: e }, "lead search failed");
    throw new AppError("BAD_GATEWAY", message);
  }

  // which results are already contacts (the card's badge and the notContacted filter)
  const inCrm = await matchBusinessContacts(
    ctx,
    t.workspaceId,
    grid.places.map((p) => ({
      placeId: p.placeId,
      name: p.name,
      phone: p.phone,
      website: p.website,
      email: p.email,
      streetAddress: p.address?.split(",")[0],
    })),
    { phoneCountry: workspace.phoneCountry },
  );
  const comp = competition(grid.places);
  const typeWords = s.businessType
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 2)
    .map((w) => w.replace(/s$/, ""));
  const relocate = opts.relocate === true && !!saved;
  const previous = new Set(relocate ? [] : (saved?.lastPlaceIds ?? []));
  const allActive = activeFilters(filters);
  const deferred = allActive.filter((a) => a.def.attrs.some((x) => !provider.attributes.has(x)));
  const active = allActive.filter((a) => !deferred.includes(a));
  const rows: { placeId: string; data: BusinessJson; isNew: boolean; score: number; d: number }[] = [];
  grid.places.forEach((p, i) => {
    const { score, reasons } = scoreLead(p);
    const f: LeadFacts = {
      distanceMi: distanceMi(where, p),
      leadScore: score,
      tier: leadTier(score).tier,
      competitors: comp[i]?.competitors ?? 0,
      topRatedInArea: comp[i]?.topRatedInArea ?? null,
      inContacts: inCrm.has(p.placeId),
      // provider numbers are often national ("020 7946 0018"): read in the workspace's country
      phoneE164: toE164(p.phone, workspace.phoneCountry),
      matchesType: typeWords.some((w) => (p.types ?? []).some((ty) => ty.toLowerCase().includes(w))),
    };
    if (!passes(p, f, filters, active)) return;
    const isNew = !!saved && !relocate && saved.lastRunAt !== null && !previous.has(p.placeId);
    rows.push({
      placeId: p.placeId,
      data: toBusinessJson(p, f, reasons, isNew),
      isNew,
      score,
      d: f.distanceMi,
    });
  });
  rows.sort((a, b) => b.score - a.score || a.d - b.d);
  const finishedAt = new Date();
  // the results, the search's completion and (without enrichment to wait for) its
  // lead_search.completed event: one transaction (the webhooks outbox), the event queued after it
  const emitted = await ctx.db.transaction(async (tx) => {
    await q.insertResults(tx, search.id, rows);
    await q.updateSearch(tx, t.workspaceId, search.id, {
      status: "completed",
      circlesDone: grid.circles.length,
      circlesTotal: grid.circles.length + grid.skippedCircles,
      apiCalls: grid.apiCalls,
      totalResults: rows.length,
      capped: grid.capped,
      finishedAt,
      deferredFilters: deferred.map((d) => d.def.key),
    });
    if (savedId)
      await q.updateSaved(tx, t.workspaceId, savedId, {
        resultCount: rows.length,
        lastPlaceIds: rows.map((r) => r.placeId),
        lastRunAt: new Date(),
        ...(relocate ? { location: s.location } : {}),
      });
    const completedSearch = await q.findSearch(tx, t.workspaceId, search.id);
    return !enrich && completedSearch
      ? emitWebhookEvent(
          { db: tx, log: ctx.log },
          t.workspaceId,
          "lead_search.completed",
          toSearchJson(completedSearch),
        )
      : null;
  });
  await queueWebhookDeliveries(ctx, emitted);
  if (provider.name === "google")
    await ctx.jobs.send(
      purgeGoogleContentJob,
      { searchId: search.id },
      { startAfter: new Date(finishedAt.getTime() + ctx.env.GOOGLE_PLACES_RETENTION_DAYS * 86_400_000) },
    );
  if (enrich) await ctx.jobs.send(enrichSearchJob, { searchId: search.id, workspaceId: t.workspaceId });
  return {
    success: true as const,
    searchId: search.id,
    savedSearchId: savedId,
    businesses: rows.map((r) => r.data),
    location: where.label,
    coordinates: { lat: where.lat, lng: where.lng },
    radius: s.radius,
    searchRadius: s.searchRadius,
    totalCircles: grid.circles.length,
    apiCalls: grid.apiCalls,
    totalResults: rows.length,
    foundBeforeFilters: grid.places.length,
    preset: preset?.name ?? null,
    provider: { name: provider.name, label: provider.label, attribution: provider.attribution },
    capped: grid.capped,
    skippedCircles: grid.skippedCircles,
    maxCalls: ctx.env.PLACES_MAX_CALLS_PER_SEARCH,
    circles: grid.circles.map((c) => ({ lat: c.lat, lng: c.lng, radiusMi: c.radiusMi })),
    newResults: rows.filter((r) => r.isNew).length,
    enrichment: {
      status: enrich ? ("queued" as string) : "none",
      deferredFilters: deferred.map((d) => d.def.key),
    },
  };
}
export type SearchResponse = Awaited<ReturnType<typeof searchBusinesses>>;

/** Drops unset values (false booleans, empty lists, blank text, nulls) so they do not override a preset. */
function stripUnset(v: FilterValues): FilterValues {
  return Object.fromEntries(
    Object.entries(v).filter(([k, x]) => {
      const def = FILTER_BY_KEY.get(k);
      if (!def) return false;
      if (def.kind === "days") return x !== undefined && x !== null;
      return activeFilters({ [k]: x }).length > 0;
    }),
  );
}

/**
 * Progress of a search (circles answered of those known, calls) and of its website enrichment
 * (sites visited of those to visit), for the progress bars. An unknown id is "pending" (the client
 * picks the id before the search row exists).
 */
export async function searchProgress(ctx: Pick<AppContext, "db">, t: LeadsTenant, searchId: string) {
  const id = idSchema.safeParse(searchId);
  if (!id.success) throw new AppError("NOT_FOUND", "Search not found");
  const s = await q.findSearch(ctx.db, t.workspaceId, id.data);
  if (!s)
    return {
      status: "pending" as const,
      circlesDone: 0,
      circlesTotal: 0,
      apiCalls: 0,
      totalResults: 0,
      enrichment: { status: "none", done: 0, total: 0 },
    };
  return {
    status: s.status as "running" | "completed" | "failed",
    circlesDone: s.circlesDone,
    circlesTotal: s.circlesTotal,
    apiCalls: s.apiCalls,
    totalResults: s.totalResults,
    enrichment: { status: s.enrichStatus, done: s.enrichDone, total: s.enrichTotal },
  };
}

/**
 * A lead search as the public API and the `lead_search.completed` webhook show it (snake_case, ISO
 * 8601 times). `status` is the grid search's; `enrichment.status` the website enrichment's.
 */
export function toSearchJson(s: q.LeadSearchRow) {
  return {
    id: s.id,
    status: s.status as "running" | "completed" | "failed",
    location: s.location,
    business_type: s.businessType,
    radius: s.radius,
    search_radius: s.circleSize,
    preset: s.preset,
    provider: s.provider,
    saved_search_id: s.savedSearchId,
    total_circles: s.circlesTotal,
    api_calls: s.apiCalls,
    total_results: s.totalResults,
    capped: s.capped,
    error: s.error,
    enrichment: {
      status: s.enrichStatus as "none" | "queued" | "running" | "completed" | "failed",
      done: s.enrichDone,
      total: s.enrichTotal,
      deferred_filters: s.deferredFilters,
    },
    content_purged: isGoogleContentExpired(s, null),
    created_at: s.createdAt.toISOString(),
    completed_at: s.finishedAt?.toISOString() ?? null,
  };
}
export type SearchJson = ReturnType<typeof toSearchJson>;

/**
 * Whether a search's stored results may show only place ids: a Google search whose content was purged,
 * or finished more than `retentionDays` ago (on-read expiry, should the purge job be late). Source:
 * Google Maps Platform terms / Places API policies (place ids may be stored indefinitely; other Places
 * content only temporarily, at most 30 days). `retentionDays` null: the purge stamp alone.
 */
export function isGoogleContentExpired(
  s: Pick<q.LeadSearchRow, "provider" | "contentPurgedAt" | "finishedAt">,
  retentionDays: number | null,
  now = Date.now(),
): boolean {
  if (s.provider !== "google") return false;
  if (s.contentPurgedAt) return true;
  return (
    retentionDays !== null && !!s.finishedAt && s.finishedAt.getTime() < now - retentionDays * 86_400_000
  );
}

/** A result whose content is gone: the place id only. */
export interface PurgedResult {
  place_id: string;
  purged: true;
}

/** The search (public JSON) of the workspace. @throws NOT_FOUND 'Search not found' (also another workspace's). */
export async function getSearch(ctx: Pick<AppContext, "db">, t: LeadsTenant, searchId: string) {
  const id = idSchema.safeParse(searchId);
  const s = id.success ? await q.findSearch(ctx.db, t.workspaceId, id.data) : null;
  if (!s) throw new AppError("NOT_FOUND", "Search not found");
  return toSearchJson(s);
}

/**
 * One page of a search's stored results, in result order (`offset`, `limit` <= 5,000), or with
 * `afterPosition` (keyset) the results after that position; `lastPosition` is the page's last one
 * (null for an empty page), for the next keyset page. Google content past its retention comes back
 * as `{place_id, purged: true}` even before the purge job ran.
 * @throws NOT_FOUND 'Search not found'.
 */
export async function getSearchResults(
  ctx: Pick<AppContext, "db" | "env">,
  t: LeadsTenant,
  searchId: string,
  offset = 0,
  limit = 100,
  afterPosition?: number,
): Promise<{ results: (BusinessJson | PurgedResult)[]; hasMore: boolean; lastPosition: number | null }> {
  const id = idSchema.safeParse(searchId);
  const s = id.success ? await q.findSearch(ctx.db, t.workspaceId, id.data) : null;
  if (!s) throw new AppError("NOT_FOUND", "Search not found");
  const rows = await q.listResultsPage(ctx.db, s.id, offset, Math.min(5000, limit) + 1, afterPosition);
  const expired = isGoogleContentExpired(s, ctx.env.GOOGLE_PLACES_RETENTION_DAYS);
  const page = rows.slice(0, Math.min(5000, limit));
  return {
    results: page.map((r) =>
      expired || (r.data as { purged?: boolean }).purged
        ? { place_id: r.placeId, purged: true as const }
        : (r.data as unknown as BusinessJson),
    ),
    hasMore: rows.length > page.length,
    lastPosition: page.at(-1)?.position ?? null,
  };
}

/** Rebuilds the provider facts a stored result shows (for re-scoring and the deferred filters). */
function placeFromJson(b: BusinessJson): Place {
  return {
    placeId: b.place_id,
    name: b.name,
    lat: b.lat,
    lng: b.lng,
    address: b.address ?? undefined,
    city: b.city ?? undefined,
    state: b.state ?? undefined,
    postalCode: b.postal_code ?? undefined,
    types: b.types,
    rating: b.rating,
    reviewCount: b.review_count,
    priceLevel: b.price_level,
    phone: b.phone,
    website: b.website,
    email: b.email,
    socials: b.socials as Place["socials"],
    hasContactForm: b.has_contact_form ?? undefined,
    hours:
      b.opening_hours.open_now !== null || b.opening_hours.text
        ? { openNow: b.opening_hours.open_now, text: b.opening_hours.text ?? undefined }
        : undefined,
    businessStatus: (b.business_status ?? undefined) as Place["businessStatus"],
    demo: b.demo,
  };
}

/**
 * The enrichment job's work (leads.enrich-search): visits the websites of a search's results
 * (`enrichWebsite`, at most ENRICH_MAX_SITES, ENRICH_CONCURRENCY at a time; demo results are skipped:
 * their websites are invented), stores the emails, social profiles and contact form found, re-scores
 * the results, then applies the filters deferred until enrichment (results failing them are removed,
 * the counts and the saved search follow), and emits `lead_search.completed`. Progress is written as
 * it goes (enrichDone of enrichTotal). A search already completed is left alone (retries are safe).
 */
export async function enrichSearch(ctx: Ctx, searchId: string, workspaceId: string) {
  const s = await q.findSearch(ctx.db, workspaceId, searchId);
  if (!s?.enrich || s.enrichStatus === "completed") return;
  const rows = await q.listResults(ctx.db, s.id);
  const targets = rows.filter((r) => {
    const b = r.data as unknown as BusinessJson;
    return !b.demo && !!b.website && !(b as { purged?: boolean }).purged;
  });
  const visit = targets.slice(0, ENRICH_MAX_SITES);
  await q.updateSearch(ctx.db, workspaceId, s.id, {
    enrichStatus: "running",
    enrichDone: 0,
    enrichTotal: visit.length,
  });
  const allowed = parseAllowedHosts(ctx.env.OUTBOUND_ALLOWED_HOSTS);
  const byId = new Map<string, BusinessJson>();
  for (const r of rows) {
    const b = r.data as unknown as BusinessJson;
    if (!(b as { purged?: boolean }).purged) byId.set(r.placeId, b);
  }
  let done = 0;
  let next = 0;
  let lastWrite = 0;
  const worker = async () => {
    for (;;) {
      const r = visit[next++];
      if (!r) return;
      const b = byId.get(r.placeId) as BusinessJson;
      const site = await enrichWebsite(b.website as string, allowed);
      const socials = {
        ...(site.socials as Record<string, string>),
        ...(b.socials as Record<string, string>),
      };
      const p = placeFromJson({
        ...b,
        email: b.email ?? site.email,
        socials,
        has_contact_form: b.has_contact_form || site.hasContactForm,
      });
      const { score, reasons } = scoreLead(p);
      const updated: BusinessJson = {
        ...b,
        email: p.email ?? null,
        socials,
        has_contact_form: p.hasContactForm ?? null,
        leadScore: score,
        leadTier: leadTier(score),
        scoreReasons: reasons,
        enrichment: {
          status: site.status,
          ...(site.status === "ok"
            ? {}
            : {
                reason: site.skipped
                  .map((x) => `${x.url}: ${x.reason}`)
                  .join("; ")
                  .slice(0, 500),
              }),
          pages: site.pages.length,
          emails_found: site.emails.length,
        },
      };
      byId.set(r.placeId, updated);
      await q.updateResultData(ctx.db, s.id, r.placeId, updated as unknown as Record<string, unknown>);
      done++;
      if (Date.now() - lastWrite > 500 || done === visit.length) {
        lastWrite = Date.now();
        await q.updateSearch(ctx.db, workspaceId, s.id, { enrichDone: done });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ENRICH_CONCURRENCY, visit.length) }, worker));
  // results not visited say why
  for (const r of rows) {
    const b = byId.get(r.placeId);
    if (!b || b.enrichment) continue;
    const reason = b.demo
      ? "demo data: its website is invented"
      : !b.website
        ? "no website"
        : `over the limit of ${ENRICH_MAX_SITES} websites per search`;
    const updated = { ...b, enrichment: { status: "skipped" as const, reason, pages: 0, emails_found: 0 } };
    byId.set(r.placeId, updated);
    await q.updateResultData(ctx.db, s.id, r.placeId, updated as unknown as Record<string, unknown>);
  }
  // the filters that waited for enrichment
  const deferredKeys = new Set(s.deferredFilters);
  const deferred = activeFilters(s.filters as FilterValues).filter((a) => deferredKeys.has(a.def.key));
  const removed: string[] = [];
  const phoneCountry = deferred.length ? await phoneCountryOf(ctx, workspaceId) : undefined;
  if (deferred.length)
    for (const [placeId, b] of byId) {
      const f: LeadFacts = {
        distanceMi: b.distance,
        leadScore: b.leadScore,
        tier: b.leadTier.tier,
        competitors: b.competitors,
        topRatedInArea: null,
        inContacts: b.in_contacts,
        // results stored before phone_e164 existed: read the number now
        phoneE164: (b as Partial<BusinessJson>).phone_e164 ?? toE164(b.phone, phoneCountry),
        matchesType: true,
      };
      if (!passes(placeFromJson(b), f, s.filters as FilterValues, deferred)) removed.push(placeId);
    }
  const total = byId.size - removed.length;
  // the enrichment's completion and the search's lead_search.completed event: one transaction (the
  // webhooks outbox), the event queued after it
  const emitted = await ctx.db.transaction(async (tx) => {
    await q.deleteResults(tx, s.id, removed);
    await q.updateSearch(tx, workspaceId, s.id, {
      enrichStatus: "completed",
      enrichDone: visit.length,
      totalResults: total,
    });
    if (s.savedSearchId && removed.length) {
      const gone = new Set(removed);
      await q.updateSaved(tx, workspaceId, s.savedSearchId, {
        resultCount: total,
        lastPlaceIds: [...byId.keys()].filter((id) => !gone.has(id)),
      });
    }
    const final = await q.findSearch(tx, workspaceId, s.id);
    return final
      ? emitWebhookEvent({ db: tx, log: ctx.log }, workspaceId, "lead_search.completed", toSearchJson(final))
      : null;
  });
  await queueWebhookDeliveries(ctx, emitted);
}

/** Marks a search's enrichment failed (the job's last attempt failed). */
export async function failEnrichment(ctx: Pick<AppContext, "db">, searchId: string, workspaceId: string) {
  await q.updateSearch(ctx.db, workspaceId, searchId, { enrichStatus: "failed" });
}

/**
 * The purge job's work (leads.purge-google-content): keeps only place ids in the results of the given
 * Google search once GOOGLE_PLACES_RETENTION_DAYS have passed since it finished (too early: nothing
 * happens; the job is sent with that startAfter), and of up to 100 other expired Google searches (a
 * lost job). Returns the searches purged.
 */
export async function purgeExpiredGoogleContent(ctx: Pick<AppContext, "db" | "env">, searchId?: string) {
  const before = new Date(Date.now() - ctx.env.GOOGLE_PLACES_RETENTION_DAYS * 86_400_000);
  const due = await q.expiredGoogleSearches(ctx.db, before, 100);
  const ids = new Set(due.map((d) => d.id));
  if (searchId) {
    const s = await q.findSearchById(ctx.db, searchId);
    if (s && isGoogleContentExpired(s, ctx.env.GOOGLE_PLACES_RETENTION_DAYS) && !s.contentPurgedAt)
      ids.add(s.id);
  }
  for (const id of ids) await q.purgeSearchContent(ctx.db, id);
  return ids.size;
}

/** GET /api/maps/saved-searches: `{id, search_name, location, business_type, radius, filters, result_count}`. */
export async function listSavedSearches(ctx: Pick<AppContext, "db">, t: LeadsTenant) {
  const rows = await q.listSaved(ctx.db, t.workspaceId);
  return rows.map((r) => ({
    id: r.id,
    search_name: r.searchName,
    location: r.location,
    business_type: r.businessType,
    radius: r.radius,
    search_radius: r.circleSize,
    filters: r.filters,
    preset: r.preset,
    result_count: r.resultCount,
    last_run_at: r.lastRunAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
  }));
}

/** DELETE /api/maps/saved-searches/{id}. @throws NOT_FOUND 'Saved search not found' (also another workspace's). */
export async function deleteSavedSearch(ctx: Pick<AppContext, "db">, t: LeadsTenant, id: string) {
  const parsed = idSchema.safeParse(id);
  if (!parsed.success || !(await q.deleteSaved(ctx.db, t.workspaceId, parsed.data)))
    throw new AppError("NOT_FOUND", "Saved search not found");
  return { success: true as const };
}

/**
 * POST /api/maps/swap-location {savedSearchId, newLocation}: the saved search runs at the new location
 * ("like a search") and moves there once that search completed; its previous place ids are forgotten
 * (another area: nothing is "new" relative to it). A refused or failed search (unknown place 422, quota
 * 402, provider 502) leaves the saved search as it was. @throws NOT_FOUND, plus everything
 * searchBusinesses throws.
 */
export async function swapLocation(ctx: Ctx, t: LeadsTenant, input: unknown) {
  const s = parseInput(swapLocationSchema, input);
  const saved = await q.findSaved(ctx.db, t.workspaceId, s.savedSearchId);
  if (!saved) throw new AppError("NOT_FOUND", "Saved search not found");
  return searchBusinesses(
    ctx,
    t,
    {
      location: s.newLocation,
      businessType: saved.businessType,
      radius: saved.radius,
      searchRadius: saved.circleSize,
      filters: saved.filters,
      usePreset: saved.preset,
      savedSearchId: saved.id,
      searchId: s.searchId,
    },
    { relocate: true },
  );
}

/**
 * POST /api/maps/results/add-to-contacts {searchId, placeIds, tagName?} -> {success, created, updated,
 * skipped, skippedResults: [{placeId, name, reason}], inContacts: placeIds, contactIds}: the chosen
 * results of one of the workspace's searches become contacts through the crm feature (crm
 * addBusinessContacts: dedupe by place id, email, E.164 phone and website domain of the same
 * business, then name + address; lead_source 'business_search'; each skipped result with its reason,
 * e.g. "same phone as Patel Plumber"). Creations count against the plan's contact limit (402 before
 * anything is written). The results that became or matched a contact (`inContacts`) are stored as
 * `in_contacts: true` afterwards, the others are not.
 * @throws NOT_FOUND 'Search not found', BAD_REQUEST (no chosen id belongs to the search), PAYMENT_REQUIRED.
 */
export async function addResultsToContacts(ctx: Ctx, t: LeadsTenant, input: unknown) {
  const a = parseInput(addToContactsSchema, input);
  const search = await q.findSearch(ctx.db, t.workspaceId, a.searchId);
  if (!search) throw new AppError("NOT_FOUND", "Search not found");
  const all = await q.listResults(ctx.db, search.id, [...new Set(a.placeIds)]);
  if (!all.length) throw new AppError("BAD_REQUEST", "None of the chosen results belong to this search");
  const results = isGoogleContentExpired(search, ctx.env.GOOGLE_PLACES_RETENTION_DAYS)
    ? []
    : all.filter((r) => !(r.data as { purged?: boolean }).purged);
  if (!results.length)
    throw new AppError(
      "CONFLICT",
      `These results are no longer stored: Google's terms keep only place ids after ${ctx.env.GOOGLE_PLACES_RETENTION_DAYS} days. Run the search again.`,
    );
  const r = await addBusinessContacts(
    ctx,
    t.workspaceId,
    results.map(({ data }) => {
      const b = data as unknown as BusinessJson;
      const street = b.address?.split(",")[0]?.trim() || null;
      return {
        placeId: b.place_id,
        name: b.name,
        phone: b.phone,
        website: b.website,
        email: b.email,
        streetAddress: street,
        city: b.city,
        state: b.state,
        postalCode: b.postal_code,
        latitude: b.lat,
        longitude: b.lng,
        leadScore: b.leadScore,
        facebookUrl: (b.socials as Record<string, string>).facebook ?? null,
        instagramHandle: (b.socials as Record<string, string>).instagram ?? null,
        linkedinUrl: (b.socials as Record<string, string>).linkedin ?? null,
      };
    }),
    { tagName: a.tagName },
  );
  // the results that became or matched a contact now show the badge too (GET results, the enriched
  // list, the public API); a skipped one only when it is a duplicate of the same business
  await q.markResultsInContacts(ctx.db, search.id, r.inContacts);
  return {
    success: true as const,
    created: r.created,
    updated: r.updated,
    skipped: r.skipped,
    skippedResults: r.skippedBusinesses,
    inContacts: r.inContacts,
    contactIds: r.contactIds,
  };
}
