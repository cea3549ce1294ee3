import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGPlace, startGooglePlacesFake } from "../fakes/google-places";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall } from "../helpers";

// Regressions of the lead search audit (helper-leadsaudit): real HTTP against the app.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: process.env.DBG_LOG ?? "silent" });
});
afterAll(async () => t?.close());

const search = { location: "Saginaw, MI", businessType: "dentist", radius: 3, searchRadius: 2 };

async function workspaceOfSearch(app: Pick<TestApp, "db">, searchId: string): Promise<string> {
  const rows = (await app.db.execute(
    sql`select workspace_id from lead_searches where id = ${searchId}`,
  )) as unknown as { workspace_id: string }[];
  return rows[0]?.workspace_id as string;
}

async function contactCount(app: Pick<TestApp, "db">, workspaceId: string): Promise<number> {
  const rows = (await app.db.execute(
    sql`select count(*)::int as n from contacts where workspace_id = ${workspaceId}`,
  )) as unknown as { n: number }[];
  return rows[0]?.n ?? -1;
}

describe("add to contacts, concurrently", () => {
  it.each(["free", "business"])(
    "three simultaneous adds of the same results (plan %s) all succeed and create each contact once",
    async (plan) => {
      const a = await signUp(t.app);
      const s = (await a.client.post("/api/maps/search", search)).json();
      const placeIds = s.businesses.map((b: { place_id: string }) => b.place_id);
      expect(placeIds.length).toBeGreaterThan(1);
      const ws = await workspaceOfSearch(t, s.searchId);
      await setPlan(t, ws, plan);
      const rs = await Promise.all(
        [1, 2, 3].map(() =>
          a.client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds }),
        ),
      );
      // before: the calls that lost the race answered 500 (the email index refused their inserts)
      expect(rs.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      const bodies = rs.map((r) => r.json());
      expect(bodies.reduce((n, b) => n + b.created, 0)).toBe(placeIds.length);
      expect(await contactCount(t, ws)).toBe(placeIds.length);
    },
  );

  it("results without emails (Google) are not created twice by simultaneous adds", async () => {
    const places: FakeGPlace[] = Array.from({ length: 5 }, (_, i) => ({
      id: `ChIJrace${i}`,
      displayName: { text: `Race Dental ${i}`, languageCode: "en" },
      formattedAddress: `${200 + i} Main St, Saginaw, MI 48601, USA`,
      location: { latitude: 43.4047 + i * 0.001, longitude: -83.9156 },
      types: ["dentist", "establishment"],
    }));
    const fake = await startGooglePlacesFake({ apiKey: "k", places });
    const g = await createTestApp({
      PLACES_PROVIDER: "google",
      GOOGLE_PLACES_API_KEY: "k",
      GOOGLE_PLACES_API_URL: fake.url,
    });
    try {
      const a = await signUp(g.app);
      const s = (await a.client.post("/api/maps/search", { ...search, location: "48601" })).json();
      expect(s.businesses).toHaveLength(5);
      const placeIds = s.businesses.map((b: { place_id: string }) => b.place_id);
      const ws = await workspaceOfSearch(g, s.searchId);
      await setPlan(g, ws, "business");
      const rs = await Promise.all(
        [1, 2].map(() =>
          a.client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds }),
        ),
      );
      expect(rs.map((r) => r.statusCode)).toEqual([200, 200]);
      // before: 10 contacts (each call matched before the other had written)
      expect(await contactCount(g, ws)).toBe(5);
    } finally {
      await g.close();
      await fake.close();
    }
  });
});

describe("swap location", () => {
  it("a swap refused by the plan (402) leaves the saved search where it was", async () => {
    const a = await signUp(t.app);
    const saved = (
      await a.client.post("/api/maps/search", {
        ...search,
        radius: 1,
        searchRadius: 1,
        saveSearch: true,
        searchName: "Saginaw dentists",
      })
    ).json();
    expect(saved.savedSearchId, JSON.stringify(saved).slice(0, 300)).toBeTruthy();
    const ws = await workspaceOfSearch(t, saved.searchId);
    await setPlan(t, ws, "free");
    let status = 200;
    for (let i = 0; i < 12 && status === 200; i++)
      status = (await a.client.post("/api/maps/search", { ...search, radius: 1, searchRadius: 1 }))
        .statusCode;
    expect(status).toBe(402);
    const swap = await a.client.post("/api/maps/swap-location", {
      savedSearchId: saved.savedSearchId,
      newLocation: "Austin, TX",
    });
    expect(swap.statusCode).toBe(402);
    const list = (await a.client.get("/api/maps/saved-searches")).json().searches;
    const row = list.find((x: { id: string }) => x.id === saved.savedSearchId);
    // before: the saved search had already moved to Austin and forgotten its last run
    expect(row.location).toBe("Saginaw, MI");
    expect(row.last_run_at).not.toBeNull();
  });

  it("a completed swap moves the saved search and marks nothing new", async () => {
    const a = await signUp(t.app);
    const saved = (
      await a.client.post("/api/maps/search", { ...search, saveSearch: true, searchName: "Swap me" })
    ).json();
    const swap = await a.client.post("/api/maps/swap-location", {
      savedSearchId: saved.savedSearchId,
      newLocation: "Austin, TX",
    });
    expect(swap.statusCode).toBe(200);
    expect(swap.json().newResults).toBe(0);
    const row = (await a.client.get("/api/maps/saved-searches"))
      .json()
      .searches.find((x: { id: string }) => x.id === saved.savedSearchId);
    expect(row).toMatchObject({ location: "Austin, TX", result_count: swap.json().totalResults });
  });
});

describe("search input", () => {
  it("an ocean point or a military ZIP is a 422 that says why, and costs no search", async () => {
    const a = await signUp(t.app);
    const ocean = await a.client.post("/api/maps/search", { ...search, location: "30.0, -40.0" });
    expect(ocean.statusCode).toBe(422);
    expect(ocean.json().error).toMatch(
      /not near any US ZIP code \(open water or outside the United States\)/,
    );
    const apo = await a.client.post("/api/maps/search", { ...search, location: "34001" });
    expect(apo.statusCode).toBe(422);
    expect(apo.json().error).toMatch(/military APO\/FPO/);
    const usage = (await a.client.get("/api/billing/usage")).json();
    expect(usage.usage.lead_searches.used).toBe(0);
  });

  it("a business type of punctuation only is a 400 (it was a match-everything name search on OSM)", async () => {
    const a = await signUp(t.app);
    for (const businessType of ["***", '"];(', "--"]) {
      const r = await a.client.post("/api/maps/search", { ...search, businessType });
      expect(r.statusCode).toBe(400);
      expect(r.json().error).toMatch(/must contain letters or digits/);
    }
  });
});

describe("Google Places fake (documented shapes)", () => {
  it("answers only the fields of X-Goog-FieldMask, nextPageToken included, as Places API (New) does", async () => {
    const places: FakeGPlace[] = Array.from({ length: 25 }, (_, i) => ({
      id: `ChIJmask${i}`,
      displayName: { text: `Mask Dental ${i}`, languageCode: "en" },
      formattedAddress: `${i} Main St, Saginaw, MI 48601, USA`,
      location: { latitude: 43.4047, longitude: -83.9156 },
      rating: 4.1,
      currentOpeningHours: { openNow: true },
      types: ["dentist"],
    }));
    const fake = await startGooglePlacesFake({ apiKey: "k", places });
    try {
      const post = (path: string, mask: string, body: object) =>
        fetch(`${fake.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "X-Goog-Api-Key": "k", "X-Goog-FieldMask": mask },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, json: await r.json() }));
      const circle = { center: { latitude: 43.4047, longitude: -83.9156 }, radius: 1000 };
      const text = await post("/v1/places:searchText", "places.id,places.currentOpeningHours.openNow", {
        textQuery: "mask",
        pageSize: 20,
        locationBias: { circle },
      });
      expect(text.status).toBe(200);
      // before: every field came back whatever the mask said, and nextPageToken too
      expect(text.json.places[0]).toEqual({ id: "ChIJmask0", currentOpeningHours: { openNow: true } });
      expect(text.json.nextPageToken).toBeUndefined();
      const paged = await post("/v1/places:searchText", "places.id,nextPageToken", {
        textQuery: "mask",
        pageSize: 20,
        locationBias: { circle },
      });
      expect(paged.json.nextPageToken).toBe("20");
      const tooFar = await post("/v1/places:searchNearby", "places.id", {
        includedTypes: ["dentist"],
        locationRestriction: { circle: { ...circle, radius: 80_000 } },
      });
      expect(tooFar.status).toBe(400);
      expect(tooFar.json.error.status).toBe("INVALID_ARGUMENT");
    } finally {
      await fake.close();
    }
  });
});

describe("radius units and bounds in the OpenAPI document", () => {
  it("states miles, 1-50 and 1-5 in steps of 0.5 as the app enforces them", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const ref = doc.paths["/lead_searches"].post.requestBody.content["application/json"].schema;
    const body = ref.$ref ? doc.components.schemas[ref.$ref.split("/").pop()] : ref;
    expect(body.properties.radius).toMatchObject({ minimum: 1, maximum: 50, default: 25 });
    expect(body.properties.radius.description).toMatch(/miles/);
    // before: the step of 0.5 was a refine the document could not state
    expect(body.properties.search_radius).toMatchObject({ minimum: 1, maximum: 5, multipleOf: 0.5 });
    expect(body.properties.location.description).toMatch(/coordinates/);
    const a = await signUp(t.app);
    for (const [searchRadius, ok] of [
      [1.5, true],
      [4.5, true],
      [1.3, false],
      [2.25, false],
    ] as const) {
      const r = await a.client.post("/api/maps/search", { ...search, radius: 1, searchRadius });
      expect(r.statusCode, String(searchRadius)).toBe(ok ? 200 : 400);
      if (!ok) expect(r.json().error).toMatch(/steps of 0.5 miles/);
    }
  });
});

describe("results already in the CRM", () => {
  it("added results read back as in_contacts, and adding them again creates nothing", async () => {
    const a = await signUp(t.app);
    const s = (await a.client.post("/api/maps/search", search)).json();
    const placeIds = s.businesses.slice(0, 2).map((b: { place_id: string }) => b.place_id);
    const first = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: s.searchId,
      placeIds,
    });
    expect(first.json()).toMatchObject({ created: 2 });
    const stored = await trpcCall(a.client, "leads.results", { searchId: s.searchId }, "query");
    const flags = new Map(
      (stored.data as { place_id: string; in_contacts: boolean }[]).map((b) => [b.place_id, b.in_contacts]),
    );
    // before: the stored results kept in_contacts false until a new search
    for (const id of placeIds) expect(flags.get(id)).toBe(true);
    expect([...flags.values()].filter(Boolean)).toHaveLength(2);
    const again = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: s.searchId,
      placeIds,
    });
    expect(again.json()).toMatchObject({ created: 0 });
  });
});

describe("client-chosen searchId", () => {
  it("reusing a searchId (own or another workspace's) is a 409 that says why and costs no search", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const searchId = crypto.randomUUID();
    expect((await a.client.post("/api/maps/search", { ...search, searchId })).statusCode).toBe(200);
    for (const who of [a, b]) {
      const r = await who.client.post("/api/maps/search", { ...search, searchId });
      // before: 500 (the primary key refused the insert)
      expect(r.statusCode).toBe(409);
      expect(r.json().error).toMatch(/searchId is already used/);
    }
    const usageB = (await b.client.get("/api/billing/usage")).json();
    expect(usageB.usage.lead_searches.used).toBe(0);
    // with saveSearch, nothing is saved either (the name stays free for the retry)
    const saving = { ...search, searchId, saveSearch: true, searchName: "Retry me" };
    expect((await b.client.post("/api/maps/search", saving)).statusCode).toBe(409);
    expect((await b.client.get("/api/maps/saved-searches")).json().searches).toEqual([]);
  });
});
