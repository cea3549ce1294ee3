import { describe, expect, it } from "vitest";
import { runGridSearch } from "../../src/server/features/leads/leads.engine";
import {
  activeFilters,
  FILTER_CATEGORIES,
  FILTERS,
  filterSetSchema,
  passes,
  unanswerable,
} from "../../src/server/features/leads/leads.filters";
import {
  distanceMi,
  hexCovering,
  sampleDisk,
  uncoveredPoints,
} from "../../src/server/features/leads/leads.geo";
import { leadTier, scoreLead } from "../../src/server/features/leads/leads.score";
import { describeZodError } from "../../src/server/lib/validate";
import type { NearbyQuery, Place } from "../../src/server/providers/places";
import { LocalPlacesProvider } from "../../src/server/providers/places/local";

const SAGINAW = { lat: 43.42, lng: -83.95 };

describe("hexagonal covering of the search disk", () => {
  it.each([
    [25, 2, 211],
    [10, 2, 37],
    [50, 5, 142],
  ])(
    "%i mi / %i mi circles: at most the hexagonal figure and every one of 10,000 points covered",
    (r, c, max) => {
      const circles = hexCovering(SAGINAW, r, c);
      expect(circles.length).toBeLessThanOrEqual(max);
      expect(circles.length).toBeGreaterThan(max * 0.9);
      const pts = sampleDisk(SAGINAW, r, 10_000);
      expect(pts).toHaveLength(10_000);
      expect(uncoveredPoints(pts, circles)).toEqual([]);
    },
  );

  it("finds the gap when one circle is taken away (the coverage check can fail)", () => {
    const circles = hexCovering(SAGINAW, 10, 2);
    const pts = sampleDisk(SAGINAW, 10, 10_000);
    expect(uncoveredPoints(pts, circles.slice(1)).length).toBeGreaterThan(0);
  });

  it("a circle at least as large as the disk is one circle", () => {
    expect(hexCovering(SAGINAW, 1, 2)).toHaveLength(1);
  });
});

/** A synthetic provider over a fixed list of places: nearest first, capped per answer. */
function fakeMarket(places: Place[], cap = 20, ranked = true) {
  let calls = 0;
  let inflight = 0;
  let maxInflight = 0;
  return {
    get calls() {
      return calls;
    },
    get maxInflight() {
      return maxInflight;
    },
    maxRadiusMi: 31,
    concurrency: 4,
    ratePerSecond: 10_000,
    async searchNearby(q: NearbyQuery) {
      calls++;
      inflight++;
      maxInflight = Math.max(maxInflight, inflight);
      await new Promise((r) => setTimeout(r, 1));
      inflight--;
      const hits = places
        .map((p) => ({ p, d: distanceMi(q, p) }))
        .filter((h) => h.d <= q.radiusMi)
        .sort((a, b) => a.d - b.d);
      return {
        places: hits.slice(0, cap).map((h) => h.p),
        calls: 1,
        full: hits.length > cap,
        rankedByDistance: ranked,
      };
    },
  };
}

function denseCentre(n: number): Place[] {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const out: Place[] = [];
  for (let i = 0; i < n; i++) {
    const dense = i < n * 0.8;
    // dense: a 2-D Gaussian around the centre (sigma about 2 miles); sparse: uniform over the disk
    const rr = dense ? 3 * Math.sqrt(-Math.log(1 - rand())) : Math.sqrt(rand()) * 24.5;
    const a = rand() * 2 * Math.PI;
    out.push({
      placeId: `p${i}`,
      name: `P${i}`,
      lat: SAGINAW.lat + (rr * Math.cos(a)) / 69.055,
      lng: SAGINAW.lng + (rr * Math.sin(a)) / (69.055 * Math.cos((SAGINAW.lat * Math.PI) / 180)),
    });
  }
  return out;
}

describe("grid search engine", () => {
  it("splits full circles until answers are complete and merges by place id", async () => {
    const market = denseCentre(1200);
    const provider = fakeMarket(market);
    const r = await runGridSearch({
      provider,
      centre: SAGINAW,
      radiusMi: 25,
      circleMi: 2,
      businessType: "x",
      maxCalls: 1000,
    });
    const inDisk = market.filter((p) => distanceMi(SAGINAW, p) <= 25);
    expect(r.places.length).toBe(inDisk.length);
    expect(new Set(r.places.map((p) => p.placeId)).size).toBe(r.places.length);
    expect(r.apiCalls).toBe(provider.calls);
    expect(r.circles.length).toBe(r.apiCalls);
    expect(provider.maxInflight).toBeLessThanOrEqual(4);
    const uniform = await runGridSearch({
      provider: fakeMarket(market),
      centre: SAGINAW,
      radiusMi: 25,
      circleMi: 2,
      businessType: "x",
      maxCalls: 1000,
      mode: "uniform",
    });
    expect(uniform.apiCalls).toBe(211);
    expect(uniform.places.length).toBeLessThan(inDisk.length * 0.9); // the capped dense centre loses places
    // a uniform grid fine enough for the dense centre costs far more
    const fine = await runGridSearch({
      provider: fakeMarket(market),
      centre: SAGINAW,
      radiusMi: 25,
      circleMi: 0.5,
      businessType: "x",
      maxCalls: 100_000,
      mode: "uniform",
    });
    expect(r.apiCalls).toBeLessThanOrEqual(fine.apiCalls * 0.5);
  });

  it("also completes without distance ranking (7-circle split)", async () => {
    const market = denseCentre(300);
    const r = await runGridSearch({
      provider: fakeMarket(market, 20, false),
      centre: SAGINAW,
      radiusMi: 10,
      circleMi: 2,
      businessType: "x",
      maxCalls: 5000,
    });
    expect(r.places.length).toBe(market.filter((p) => distanceMi(SAGINAW, p) <= 10).length);
  });

  it("stops at the call cap and reports it", async () => {
    const provider = fakeMarket(denseCentre(2000));
    const r = await runGridSearch({
      provider,
      centre: SAGINAW,
      radiusMi: 25,
      circleMi: 2,
      businessType: "x",
      maxCalls: 30,
    });
    expect(provider.calls).toBe(30);
    expect(r.apiCalls).toBe(30);
    expect(r.capped).toBe(true);
    expect(r.skippedCircles).toBeGreaterThan(0);
  });

  it("respects the provider's rate limit", async () => {
    const provider = { ...fakeMarket([]), ratePerSecond: 50 };
    const t0 = Date.now();
    const r = await runGridSearch({
      provider,
      centre: SAGINAW,
      radiusMi: 10,
      circleMi: 2,
      businessType: "x",
      maxCalls: 100,
      mode: "uniform",
    });
    expect(r.apiCalls).toBe(37);
    expect(Date.now() - t0).toBeGreaterThanOrEqual((36 / 50) * 1000 - 20);
  });

  it("the local provider is deterministic and labels its businesses as demo data", async () => {
    const a = await new LocalPlacesProvider().searchNearby({
      ...SAGINAW,
      radiusMi: 5,
      businessType: "Dentist",
    });
    const b = await new LocalPlacesProvider().searchNearby({
      ...SAGINAW,
      radiusMi: 5,
      businessType: "dentist",
    });
    expect(a.places.length).toBeGreaterThan(0);
    expect(a.places).toEqual(b.places);
    expect(a.places.every((p) => p.demo && p.name.includes("Dentist"))).toBe(true);
  });
});

describe("lead score and tiers", () => {
  it("tiers: HOT >= 80, WARM 50-79, COLD < 50 (blue)", () => {
    expect(leadTier(80).tier).toBe("HOT");
    expect(leadTier(79).tier).toBe("WARM");
    expect(leadTier(50).tier).toBe("WARM");
    expect(leadTier(49)).toEqual({ tier: "COLD", emoji: "❄️", color: "#3b82f6" });
  });
  it("scores the documented components and explains them", () => {
    const full = scoreLead({
      placeId: "a",
      name: "A",
      lat: 0,
      lng: 0,
      rating: 5,
      reviewCount: 200,
      phone: "x",
      website: "x",
      email: "x",
      businessStatus: "OPERATIONAL",
      hours: { openNow: true, text: "24/7" },
      address: "1 Main St",
      socials: { facebook: "x" },
    });
    expect(full.score).toBe(100);
    const bare = scoreLead({ placeId: "b", name: "B", lat: 0, lng: 0, phone: "x" });
    expect(bare.score).toBe(15);
    expect(bare.reasons).toContain("Phone listed (+15)");
    expect(bare.reasons).toContain("No website (+0)");
    expect(
      scoreLead({ placeId: "c", name: "C", lat: 0, lng: 0, phone: "x", businessStatus: "CLOSED_PERMANENTLY" })
        .score,
    ).toBe(0);
  });
});

describe("filter catalogue", () => {
  it("has 131 filters in the 19 category tabs, each naming its attributes", () => {
    expect(FILTERS).toHaveLength(131);
    expect(new Set(FILTERS.map((f) => f.key)).size).toBe(131);
    expect(new Set(FILTERS.map((f) => f.category))).toEqual(new Set(FILTER_CATEGORIES.map((c) => c.id)));
    expect(FILTERS.every((f) => f.attrs.length > 0)).toBe(true);
    for (const k of [
      "minRating",
      "maxRating",
      "minReviews",
      "maxReviews",
      "minDistance",
      "maxDistance",
      "minPriceLevel",
      "maxPriceLevel",
      "minPhotos",
      "minEmployees",
      "maxEmployees",
      "minLeadScore",
      "maxLeadScore",
      "minCompetitors",
      "maxCompetitors",
      "minYearsInBusiness",
      "maxYearsInBusiness",
      "minBBBRating",
      "recentReviewDays",
      "excludeZipCodes",
      "includeZipCodes",
      "priceLevel",
      "leadTier",
      "serviceAreas",
      "languages",
      "targetAgeGroup",
      "targetIncome",
      "hasPhone",
      "hasWebsite",
      "hasEmail",
      "isOpenNow",
      "isClosedNow",
      "verified",
      "claimed",
      "dncCompliant",
      "notContacted",
      "licensed",
      "insured",
      "operational",
      "permanentlyClosed",
      "temporarilyClosed",
    ])
      expect(
        FILTERS.some((f) => f.key === k),
        k,
      ).toBe(true);
  });

  it("validates ranges, lists, text, tri-states and min <= max; refuses unknown keys", () => {
    expect(
      filterSetSchema.safeParse({
        minRating: 4.5,
        priceLevel: [1, 2],
        permanentlyClosed: null,
        targetIncome: "high",
      }).success,
    ).toBe(true);
    const bad = (v: unknown) => {
      const r = filterSetSchema.safeParse(v);
      return r.error ? describeZodError(r.error) : undefined;
    };
    expect(bad({ minRating: 6 })).toContain("Minimum rating must be at most 5");
    expect(bad({ minLeadScore: 101 })).toContain("at most 100");
    expect(bad({ minPriceLevel: 0 })).toContain("at least 1");
    expect(bad({ minRating: 4, maxRating: 3 })).toContain(
      "Minimum rating must not be more than maximum rating",
    );
    expect(bad({ includeZipCodes: ["4860"] })).toContain("ZIP codes must be 5 digits");
    expect(bad({ hasPhone: "yes" })).toContain("Has phone must be true or false");
    expect(bad({ recentReviewDays: 0 })).toContain("at least 1");
    expect(bad({ nope: true })).toBeTruthy();
  });

  it("names the set filters a provider cannot answer, with the reason", () => {
    const google = new Set([
      "location",
      "address",
      "types",
      "rating",
      "reviewCount",
      "phone",
      "website",
      "openNow",
      "businessStatus",
      "crm",
    ]);
    expect(
      unanswerable(
        { hasPhone: true, hasEmail: true, hasWebsite: false, dncCompliant: true },
        google,
        "Google",
      ),
    ).toEqual([
      { key: "hasEmail", reason: "Google does not supply email addresses" },
      { key: "dncCompliant", reason: "Google does not supply the national Do Not Call registry" },
    ]);
  });

  it("applies set filters and ignores unset ones", () => {
    const p: Place = {
      placeId: "a",
      name: "Acme Dental",
      lat: 0,
      lng: 0,
      rating: 4.2,
      phone: "x",
      businessStatus: "CLOSED_TEMPORARILY",
    };
    const f = {
      distanceMi: 3,
      leadScore: 60,
      tier: "WARM" as const,
      competitors: 1,
      topRatedInArea: true,
      inContacts: false,
      phoneE164: null,
      matchesType: true,
    };
    const ok = (v: Record<string, unknown>) => passes(p, f, v, activeFilters(v));
    expect(ok({})).toBe(true);
    expect(ok({ minRating: 4 })).toBe(true);
    expect(ok({ minRating: 4.3 })).toBe(false);
    expect(ok({ hasWebsite: true })).toBe(false);
    expect(ok({ hasWebsite: false })).toBe(true);
    expect(ok({ temporarilyClosed: true })).toBe(true);
    expect(ok({ temporarilyClosed: false })).toBe(false);
    expect(ok({ leadTier: ["HOT"] })).toBe(false);
    expect(ok({ maxDistance: 2 })).toBe(false);
    expect(ok({ excludeNameKeywords: ["dental"] })).toBe(false);
  });
});
