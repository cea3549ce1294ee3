import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { type FakeGPlace, startGooglePlacesFake } from "../fakes/google-places";
import { startOverpassFake } from "../fakes/overpass";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const search = { location: "Saginaw, MI", businessType: "dentist", radius: 10, searchRadius: 2 };

describe("/api/maps on the local provider", () => {
  it("searches with the documented response shape and real counts", async () => {
    const a = await signUp(t.app);
    const res = await a.client.post("/api/maps/search", { ...search, usePreset: "dentists" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      location: "Saginaw, MI",
      preset: "Dentists",
      provider: { name: "local", label: "Demo data" },
    });
    expect(body.coordinates.lat).toBeCloseTo(43.42, 1);
    expect(body.totalResults).toBe(body.businesses.length);
    expect(body.totalCircles).toBe(body.circles.length);
    expect(body.apiCalls).toBeGreaterThanOrEqual(body.totalCircles);
    expect(body.businesses.length).toBeGreaterThan(0);
    const b = body.businesses[0];
    expect(b).toMatchObject({ demo: true, opening_hours: { open_now: expect.any(Boolean) } });
    for (const k of [
      "name",
      "address",
      "rating",
      "review_count",
      "phone",
      "website",
      "distance",
      "leadScore",
      "leadTier",
    ])
      expect(b).toHaveProperty(k);
    // the preset's filters were applied: every result has a phone and a website and >= 10 reviews
    for (const x of body.businesses) {
      expect(x.phone).toBeTruthy();
      expect(x.website).toBeTruthy();
      expect(x.review_count).toBeGreaterThanOrEqual(10);
      expect(x.distance).toBeLessThanOrEqual(10);
      expect(x.leadTier.tier).toBe(x.leadScore >= 80 ? "HOT" : x.leadScore >= 50 ? "WARM" : "COLD");
    }
  });

  it("answers validation errors with the spec's sentences and a 422 for unknown places", async () => {
    const a = await signUp(t.app);
    const r1 = await a.client.post("/api/maps/search", { location: " ", businessType: "dentist" });
    expect(r1.statusCode).toBe(400);
    expect(r1.json()).toEqual({ success: false, error: "Please enter both location and business type" });
    const r2 = await a.client.post("/api/maps/search", { ...search, saveSearch: true, searchName: "  " });
    expect(r2.json().error).toBe("Please enter a search name");
    const r3 = await a.client.post("/api/maps/search", { ...search, radius: 80 });
    expect(r3.statusCode).toBe(400);
    expect(r3.json().error).toBe("Radius must be between 1 and 50 miles");
    const r4 = await a.client.post("/api/maps/search", { ...search, searchRadius: 1.3 });
    expect(r4.json().error).toContain("steps of 0.5");
    const r5 = await a.client.post("/api/maps/search", { ...search, filters: { minRating: 7 } });
    expect(r5.json().error).toContain("Minimum rating must be at most 5");
    const r6 = await a.client.post("/api/maps/search", { ...search, location: "Atlantis" });
    expect(r6.statusCode).toBe(422);
    expect(r6.json().error).toContain('We could not find "Atlantis"');
  });

  it("refuses a filter the provider cannot answer with a 422 naming it", async () => {
    const a = await signUp(t.app);
    const r = await a.client.post("/api/maps/search", {
      ...search,
      filters: { dncCompliant: true, hasPhone: true },
    });
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toContain("dncCompliant");
    expect(r.json().error).toContain("Do Not Call");
    const cat = (await a.client.get("/api/maps/filters")).json();
    expect(cat.filters).toHaveLength(131);
    expect(cat.filters.find((f: { key: string }) => f.key === "dncCompliant")).toMatchObject({
      answerable: false,
    });
  });

  it("presets, save, list, re-run marks new results, swap location, delete; isolated per workspace", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const presets = (await a.client.get("/api/maps/presets")).json().presets;
    expect(presets.length).toBeGreaterThanOrEqual(12);
    for (const id of [
      "restaurants",
      "dentists",
      "plumbers",
      "hvac",
      "roofers",
      "real-estate",
      "salons",
      "auto-repair",
      "law-firms",
      "gyms",
      "chiropractors",
      "landscapers",
    ])
      expect(presets.some((p: { id: string }) => p.id === id)).toBe(true);

    const saved = await a.client.post("/api/maps/search", {
      ...search,
      radius: 5,
      saveSearch: true,
      searchName: "Saginaw dentists",
    });
    expect(saved.statusCode).toBe(200);
    const dup = await a.client.post("/api/maps/search", {
      ...search,
      saveSearch: true,
      searchName: "saginaw DENTISTS",
    });
    expect(dup.statusCode).toBe(409);
    const list = (await a.client.get("/api/maps/saved-searches")).json().searches;
    expect(list).toEqual([
      expect.objectContaining({
        search_name: "Saginaw dentists",
        location: "Saginaw, MI",
        business_type: "dentist",
        radius: 5,
        filters: {},
        result_count: saved.json().totalResults,
      }),
    ]);
    expect((await b.client.get("/api/maps/saved-searches")).json().searches).toEqual([]);
    const id = list[0].id;

    // re-run with a larger radius: results beyond the first run are new
    const rerun = await a.client.post("/api/maps/search", { ...search, radius: 10, savedSearchId: id });
    const rb = rerun.json();
    expect(rb.newResults).toBeGreaterThan(0);
    expect(
      rb.businesses
        .filter((x: { is_new: boolean }) => x.is_new)
        .every((x: { distance: number }) => x.distance > 4),
    ).toBe(true);
    // results found again are not new: the mark is relative to the saved search's last run
    const again = (
      await a.client.post("/api/maps/search", { ...search, radius: 10, savedSearchId: id })
    ).json();
    expect(again.totalResults).toBe(rb.totalResults);
    expect(again.newResults).toBe(0);
    expect(again.businesses.some((x: { is_new: boolean }) => x.is_new)).toBe(false);

    const swapped = await a.client.post("/api/maps/swap-location", {
      savedSearchId: id,
      newLocation: "48601",
    });
    expect(swapped.statusCode).toBe(200);
    expect(swapped.json().location).toBe("48601 (Saginaw, MI)");
    expect((await a.client.get("/api/maps/saved-searches")).json().searches[0].location).toBe("48601");
    expect(
      (await b.client.post("/api/maps/swap-location", { savedSearchId: id, newLocation: "48601" }))
        .statusCode,
    ).toBe(404);
    expect(
      (await a.client.post("/api/maps/swap-location", { savedSearchId: id, newLocation: "" })).json().error,
    ).toContain("New location is required");

    expect((await b.client.del(`/api/maps/saved-searches/${id}`)).statusCode).toBe(404);
    expect((await a.client.del(`/api/maps/saved-searches/${id}`)).json()).toEqual({ success: true });
    expect((await a.client.del(`/api/maps/saved-searches/${id}`)).statusCode).toBe(404);
    expect((await a.client.del("/api/maps/saved-searches/not-a-uuid")).statusCode).toBe(404);
  });

  it("adds results to contacts once (dedupe), tags them, and another workspace cannot", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const s = (await a.client.post("/api/maps/search", { ...search, radius: 5 })).json();
    const picked = s.businesses.slice(0, 3);
    const placeIds = picked.map((x: { place_id: string }) => x.place_id);
    // a contact that already has the first business's phone: matched, not created
    const first = picked.find((x: { phone: string | null }) => x.phone);
    await a.client.post("/api/contacts", {
      first_name: "Existing",
      email: "existing@example.com",
      phone: first.phone,
    });
    const r = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: s.searchId,
      placeIds,
      tagName: "Dentists",
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ success: true, created: 2, updated: 1, skipped: 0 });
    const again = (
      await a.client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds })
    ).json();
    expect(again).toMatchObject({ created: 0, updated: 0, skipped: 3 });
    const contacts = (await a.client.get("/api/contacts?limit=50")).json().contacts;
    expect(contacts).toHaveLength(3);
    expect(contacts.filter((c: { lead_source: string }) => c.lead_source === "business_search")).toHaveLength(
      2,
    );
    const tags = (await a.client.get("/api/contacts/tags/all")).json().tags;
    expect(tags).toEqual([expect.objectContaining({ name: "Dentists", contact_count: 3 })]);
    // the next search shows them as already in contacts, and notContacted leaves them out
    const s2 = (
      await a.client.post("/api/maps/search", { ...search, radius: 5, filters: { notContacted: true } })
    ).json();
    expect(s2.businesses.some((x: { place_id: string }) => placeIds.includes(x.place_id))).toBe(false);
    expect(s2.totalResults).toBe(s.totalResults - 3);
    const other = await b.client.post("/api/maps/results/add-to-contacts", {
      searchId: s.searchId,
      placeIds,
    });
    expect(other.statusCode).toBe(404);
    const none = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: s.searchId,
      placeIds: [],
    });
    expect(none.json().error).toContain("Select at least one result");
  });

  it("counts searches against the plan (Free: 10 per month) and contacts against the contact limit", async () => {
    const a = await signUp(t.app);
    const ws = a.user.id; // the personal workspace has the user's id
    await t.db.update(workspaces).set({ plan: "free" }).where(eq(workspaces.id, ws));
    for (let i = 0; i < 10; i++)
      expect(
        (await a.client.post("/api/maps/search", { ...search, radius: 1, searchRadius: 1 })).statusCode,
      ).toBe(200);
    const over = await a.client.post("/api/maps/search", { ...search, radius: 1, searchRadius: 1 });
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toMatch(/Free plan includes 10/);
  });

  it("tRPC runs the same operations", async () => {
    const a = await signUp(t.app);
    const call = async (path: string, input: unknown) => {
      const res = await a.client.inject({ method: "POST", url: `/trpc/${path}`, payload: { json: input } });
      return { status: res.statusCode, body: res.json() };
    };
    const r = await call("leads.search", { ...search, radius: 3 });
    expect(r.status).toBe(200);
    expect(r.body.result.data.json.provider.label).toBe("Demo data");
    const bad = await call("leads.search", { location: "", businessType: "" });
    expect(bad.body.error.json.message).toBe("Please enter both location and business type");
    const q = await a.client.get(
      `/trpc/leads.progress?input=${encodeURIComponent(JSON.stringify({ json: { searchId: r.body.result.data.json.searchId } }))}`,
    );
    expect(q.json().result.data.json.status).toBe("completed");
  });
});

describe("vendor providers against their fakes", () => {
  it("google: searchNearby with key, field mask and circle; text search pages; 403 and 429 mapped", async () => {
    const places: FakeGPlace[] = Array.from({ length: 30 }, (_, i) => ({
      id: `ChIJ${i}`,
      displayName: { text: `Bright Smile Dental ${i}`, languageCode: "en" },
      formattedAddress: `${100 + i} Main St, Saginaw, MI 48601, USA`,
      location: { latitude: 43.4047 + i * 0.0005, longitude: -83.9156 },
      rating: 4.5,
      userRatingCount: 120,
      priceLevel: "PRICE_LEVEL_MODERATE",
      businessStatus: "OPERATIONAL",
      currentOpeningHours: { openNow: true },
      nationalPhoneNumber: `(989) 555-01${String(i).padStart(2, "0")}`,
      websiteUri: `https://smile${i}.example.com/`,
      types: ["dentist", "health", "point_of_interest", "establishment"],
    }));
    const fake = await startGooglePlacesFake({ apiKey: "test-key", places });
    const g = await createTestApp({
      PLACES_PROVIDER: "google",
      GOOGLE_PLACES_API_KEY: "test-key",
      GOOGLE_PLACES_API_URL: fake.url,
    });
    try {
      const a = await signUp(g.app);
      const r = await a.client.post("/api/maps/search", {
        location: "48601",
        businessType: "dentist",
        radius: 2,
        searchRadius: 1,
      });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.totalResults).toBe(30); // 30 places, 20 per answer: the full circle was split
      expect(body.apiCalls).toBeGreaterThan(1);
      expect(body.businesses[0]).toMatchObject({
        rating: 4.5,
        review_count: 120,
        price_level: 2,
        opening_hours: { open_now: true },
        demo: false,
      });
      const nearby = fake.requests.find((x) => x.path === "/v1/places:searchNearby");
      expect(nearby?.headers["x-goog-api-key"]).toBe("test-key");
      expect(String(nearby?.headers["x-goog-fieldmask"])).toContain("places.currentOpeningHours.openNow");
      expect(String(nearby?.headers["x-goog-fieldmask"])).not.toContain("places.photos");
      expect(JSON.parse(nearby?.body ?? "{}")).toMatchObject({
        includedTypes: ["dentist"],
        rankPreference: "DISTANCE",
        locationRestriction: { circle: { radius: expect.any(Number) } },
      });
      // hasEmail: Google supplies no emails: refused
      const refused = await a.client.post("/api/maps/search", {
        location: "48601",
        businessType: "dentist",
        radius: 2,
        filters: { hasEmail: true },
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error).toContain("Google does not supply email addresses");
      // free text uses searchText with pages
      fake.requests.length = 0;
      const txt = await a.client.post("/api/maps/search", {
        location: "48601",
        businessType: "Bright Smile",
        radius: 1,
        searchRadius: 1,
      });
      expect(txt.statusCode).toBe(200);
      expect(fake.requests.filter((x) => x.path === "/v1/places:searchText").length).toBeGreaterThanOrEqual(
        2,
      );
      expect(JSON.parse(fake.requests[1]?.body ?? "{}").pageToken).toBe("20");
      // 429 twice then success: retried
      fake.failNext(
        {
          status: 429,
          json: { error: { code: 429, message: "Quota exceeded", status: "RESOURCE_EXHAUSTED" } },
        },
        {
          status: 429,
          json: { error: { code: 429, message: "Quota exceeded", status: "RESOURCE_EXHAUSTED" } },
        },
      );
      expect(
        (
          await a.client.post("/api/maps/search", {
            location: "48601",
            businessType: "dentist",
            radius: 1,
            searchRadius: 1,
          })
        ).statusCode,
      ).toBe(200);
    } finally {
      await g.close();
    }
    const bad = await createTestApp({
      PLACES_PROVIDER: "google",
      GOOGLE_PLACES_API_KEY: "wrong",
      GOOGLE_PLACES_API_URL: fake.url,
    });
    try {
      const a = await signUp(bad.app);
      const r = await a.client.post("/api/maps/search", {
        location: "48601",
        businessType: "dentist",
        radius: 1,
        searchRadius: 1,
      });
      expect(r.statusCode).toBe(502);
      expect(r.json().error).toContain("Google Places refused the API key");
      expect(r.json().error).toContain("GOOGLE_PLACES_API_KEY");
    } finally {
      await bad.close();
      await fake.close();
    }
  });

  it("osm: Overpass around: query, tags mapped, opening_hours parsed, ODbL attribution", async () => {
    const fake = await startOverpassFake([
      {
        type: "node",
        id: 101,
        lat: 43.4195,
        lon: -83.9508,
        tags: {
          amenity: "dentist",
          name: "Saginaw Family Dentistry",
          "addr:housenumber": "500",
          "addr:street": "Court St",
          "addr:city": "Saginaw",
          "addr:state": "MI",
          "addr:postcode": "48602",
          phone: "+1 989-555-0100",
          website: "https://saginawfamilydentistry.example",
          "contact:email": "hello@saginawfamilydentistry.example",
          opening_hours: "Mo-Fr 08:00-17:00",
          wheelchair: "yes",
          "payment:credit_cards": "yes",
          start_date: "1998",
        },
      },
      {
        type: "way",
        id: 202,
        center: { lat: 43.43, lon: -83.96 },
        tags: { healthcare: "dentist", name: "Bay Dental" },
      },
      { type: "node", id: 303, lat: 43.42, lon: -83.95, tags: { amenity: "cafe", name: "Not a dentist" } },
    ]);
    const o = await createTestApp({ PLACES_PROVIDER: "osm", OVERPASS_URL: `${fake.url}/api/interpreter` });
    try {
      const a = await signUp(o.app);
      const r = await a.client.post("/api/maps/search", {
        location: "Saginaw, MI",
        businessType: "Dentists",
        radius: 3,
        searchRadius: 3,
        filters: { acceptsCreditCards: true },
      });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.provider.attribution).toContain("OpenStreetMap");
      expect(body.businesses).toHaveLength(1);
      expect(body.businesses[0]).toMatchObject({
        place_id: "node/101",
        name: "Saginaw Family Dentistry",
        address: "500 Court St, Saginaw, MI 48602",
        email: "hello@saginawfamilydentistry.example",
        opening_hours: { text: "Mo-Fr 08:00-17:00", open_now: expect.any(Boolean) },
      });
      const all = (
        await a.client.post("/api/maps/search", {
          location: "Saginaw, MI",
          businessType: "Dentists",
          radius: 3,
          searchRadius: 3,
        })
      ).json();
      expect(all.businesses.map((x: { place_id: string }) => x.place_id).sort()).toEqual([
        "node/101",
        "way/202",
      ]);
      const q = new URLSearchParams(fake.requests[0]?.body).get("data") ?? "";
      expect(q).toContain('nwr["amenity"="dentist"](around:');
      expect(q).toContain("out center tags");
      const refused = await a.client.post("/api/maps/search", {
        location: "Saginaw, MI",
        businessType: "Dentists",
        radius: 3,
        filters: { minRating: 4 },
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error).toContain("OpenStreetMap does not supply ratings");
    } finally {
      await o.close();
      await fake.close();
    }
  });
});
