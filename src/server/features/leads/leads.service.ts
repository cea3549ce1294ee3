import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { ProviderError } from "../../providers/errors";
import type { Place } from "../../providers/places";
import { assertWithinPlan } from "../billing/billing.plans";
import { addBusinessContacts, countContacts, matchBusinessContacts } from "../crm/crm.service";
import { getWorkspace } from "../workspaces/workspaces.service";
import { runGridSearch } from "./leads.engine";
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

type Ctx = Pick<AppContext, "db" | "env" | "providers" | "log">;

/** The user and workspace a call acts for. */
export interface LeadsTenant {
  userId: string;
  workspaceId: string;
}

/** First instant of the current calendar month, UTC (the monthly search quota's period). */
function monthStart(now = new Date()) {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
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
    demo: p.demo === true,
    attribution: p.attribution ?? null,
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
 * unknown), checks the monthly search quota (402, billing.plans.ts), runs the grid search, scores,
 * filters and stores the results, and saves the search when asked (`saveSearch`, `searchName`).
 * A re-run of a saved search (`savedSearchId`) marks results its previous run did not find.
 * @throws AppError BAD_REQUEST, UNPROCESSABLE, PAYMENT_REQUIRED, CONFLICT (saved search name taken),
 *   NOT_FOUND (saved search), BAD_GATEWAY (the provider failed; its sentence is kept).
 */
export async function searchBusinesses(ctx: Ctx, t: LeadsTenant, input: SearchInput | unknown) {
  const s = parseInput(searchSchema, input);
  const preset = s.usePreset ? PRESETS.find((p) => p.id === s.usePreset) : undefined;
  if (s.usePreset && !preset) throw new AppError("BAD_REQUEST", `Unknown preset: ${s.usePreset}`);
  const presetFilters = preset
    ? (presetsFor(ctx.providers.places.attributes).find((p) => p.id === preset.id)?.filters ?? {})
    : {};
  const filters: FilterValues = { ...DEFAULT_FILTERS, ...presetFilters, ...stripUnset(s.filters) };
  const provider = ctx.providers.places;
  const refused = unanswerable(filters, provider.attributes, provider.label);
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
  assertWithinPlan(
    workspace,
    "leadSearches",
    1,
    await q.countSearchesSince(ctx.db, t.workspaceId, monthStart()),
  );

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
      if (
        (e as { code?: string }).code === "23505" ||
        (e as { cause?: { code?: string } }).cause?.code === "23505"
      )
        throw new AppError("CONFLICT", `A saved search named "${s.searchName}" already exists`);
      throw e;
    }
  }
  const search = await q.insertSearch(ctx.db, {
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
  });
  if (!search) throw new AppError("INTERNAL", "Search failed");

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
  );
  const comp = competition(grid.places);
  const typeWords = s.businessType
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 2)
    .map((w) => w.replace(/s$/, ""));
  const previous = new Set(saved?.lastPlaceIds ?? []);
  const active = activeFilters(filters);
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
      matchesType: typeWords.some((w) => (p.types ?? []).some((ty) => ty.toLowerCase().includes(w))),
    };
    if (!passes(p, f, filters, active)) return;
    const isNew = !!saved && saved.lastRunAt !== null && !previous.has(p.placeId);
    rows.push({
      placeId: p.placeId,
      data: toBusinessJson(p, f, reasons, isNew),
      isNew,
      score,
      d: f.distanceMi,
    });
  });
  rows.sort((a, b) => b.score - a.score || a.d - b.d);
  await q.insertResults(ctx.db, search.id, rows);
  await q.updateSearch(ctx.db, t.workspaceId, search.id, {
    status: "completed",
    circlesDone: grid.circles.length,
    circlesTotal: grid.circles.length + grid.skippedCircles,
    apiCalls: grid.apiCalls,
    totalResults: rows.length,
    capped: grid.capped,
    finishedAt: new Date(),
  });
  if (savedId)
    await q.updateSaved(ctx.db, t.workspaceId, savedId, {
      resultCount: rows.length,
      lastPlaceIds: rows.map((r) => r.placeId),
      lastRunAt: new Date(),
    });
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

/** Progress of a running search (circles answered of those known, calls), for the progress bar. */
export async function searchProgress(ctx: Pick<AppContext, "db">, t: LeadsTenant, searchId: string) {
  const id = idSchema.safeParse(searchId);
  if (!id.success) throw new AppError("NOT_FOUND", "Search not found");
  const s = await q.findSearch(ctx.db, t.workspaceId, id.data);
  if (!s) return { status: "pending" as const, circlesDone: 0, circlesTotal: 0, apiCalls: 0 };
  return {
    status: s.status as "running" | "completed" | "failed",
    circlesDone: s.circlesDone,
    circlesTotal: s.circlesTotal,
    apiCalls: s.apiCalls,
  };
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
 * POST /api/maps/swap-location {savedSearchId, newLocation}: the saved search moves to the new location
 * and runs there ("like a search"). Its previous place ids are forgotten (another area: nothing is
 * "new" relative to it). @throws NOT_FOUND, plus everything searchBusinesses throws.
 */
export async function swapLocation(ctx: Ctx, t: LeadsTenant, input: unknown) {
  const s = parseInput(swapLocationSchema, input);
  const saved = await q.findSaved(ctx.db, t.workspaceId, s.savedSearchId);
  if (!saved) throw new AppError("NOT_FOUND", "Saved search not found");
  resolveLocation(s.newLocation); // 422 before anything changes
  await q.updateSaved(ctx.db, t.workspaceId, saved.id, {
    location: s.newLocation,
    lastPlaceIds: [],
    lastRunAt: null,
  });
  return searchBusinesses(ctx, t, {
    location: s.newLocation,
    businessType: saved.businessType,
    radius: saved.radius,
    searchRadius: saved.circleSize,
    filters: saved.filters,
    usePreset: saved.preset,
    savedSearchId: saved.id,
    searchId: s.searchId,
  });
}

/**
 * POST /api/maps/results/add-to-contacts {searchId, placeIds, tagName?} -> {success, created, updated,
 * skipped}: the chosen results of one of the workspace's searches become contacts through the crm
 * feature (dedupe by place id, email, E.164 phone, website domain, then name + address; lead_source
 * 'business_search'). Creations count against the plan's contact limit (402 before anything is written).
 * @throws NOT_FOUND 'Search not found', BAD_REQUEST (no chosen id belongs to the search), PAYMENT_REQUIRED.
 */
export async function addResultsToContacts(ctx: Ctx, t: LeadsTenant, input: unknown) {
  const a = parseInput(addToContactsSchema, input);
  const search = await q.findSearch(ctx.db, t.workspaceId, a.searchId);
  if (!search) throw new AppError("NOT_FOUND", "Search not found");
  const results = await q.listResults(ctx.db, search.id, [...new Set(a.placeIds)]);
  if (!results.length) throw new AppError("BAD_REQUEST", "None of the chosen results belong to this search");
  const workspace = await getWorkspace(ctx, t.workspaceId);
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
    {
      tagName: a.tagName,
      beforeCreate: async (n) => {
        if (n > 0) assertWithinPlan(workspace, "contacts", n, await countContacts(ctx, t.workspaceId));
      },
    },
  );
  return {
    success: true as const,
    created: r.created,
    updated: r.updated,
    skipped: r.skipped,
    contactIds: r.contactIds,
  };
}
