import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { type FakeGPlace, startGooglePlacesFake } from "../fakes/google-places";
import { createTestApp, signUp, type TestApp } from "../helpers";

/**
 * Lead search reads provider phone numbers in the workspace's phone country (issue 14): Google's
 * `nationalPhoneNumber` of a UK business ("020 7946 0018") is +442079460018 for a GB workspace, so
 * the valid-phone filter keeps it, an existing contact with that number is recognised, and adding it
 * to contacts stores the E.164 number; a US workspace reads the same text as no valid number.
 */
const places: FakeGPlace[] = Array.from({ length: 3 }, (_, i) => ({
  id: `ChIJuk${i}`,
  displayName: { text: `Thames Dental ${i}`, languageCode: "en" },
  formattedAddress: `${10 + i} High St, Saginaw, MI 48601, USA`,
  location: { latitude: 43.4047 + i * 0.0005, longitude: -83.9156 },
  rating: 4.6,
  userRatingCount: 80,
  businessStatus: "OPERATIONAL",
  nationalPhoneNumber: `020 7946 00${String(18 + i)}`,
  websiteUri: `https://thames${i}.example.co.uk/`,
  types: ["dentist", "health"],
}));

let t: TestApp;
let fake: Awaited<ReturnType<typeof startGooglePlacesFake>>;
beforeAll(async () => {
  fake = await startGooglePlacesFake({ apiKey: "test-key", places });
  t = await createTestApp({
    PLACES_PROVIDER: "google",
    GOOGLE_PLACES_API_KEY: "test-key",
    GOOGLE_PLACES_API_URL: fake.url,
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const body = { location: "48601", businessType: "dentist", radius: 1, searchRadius: 1 };

describe("lead search phone numbers", () => {
  it("a GB workspace reads national UK numbers as +44: filter, match and add to contacts", async () => {
    const a = await signUp(t.app);
    const set = await a.client.inject({
      method: "PATCH",
      url: "/api/workspaces/current",
      payload: { phone_country: "GB" },
    });
    expect(set.statusCode, set.body).toBe(200);
    // a contact already holding the second business's number (typed nationally)
    const existing = await a.client.post("/api/contacts", {
      first_name: "Olu",
      email: "olu@x.example",
      phone: "020 7946 0019",
    });
    expect(existing.statusCode, existing.body).toBe(200);

    const r = await a.client.post("/api/maps/search", { ...body, filters: { validPhone: true } });
    expect(r.statusCode, r.body).toBe(200);
    const found = r.json().businesses as {
      place_id: string;
      phone: string;
      phone_e164: string | null;
      in_contacts: boolean;
    }[];
    expect(found.map((b) => [b.place_id, b.phone, b.phone_e164, b.in_contacts]).sort()).toEqual([
      ["ChIJuk0", "020 7946 0018", "+442079460018", false],
      ["ChIJuk1", "020 7946 0019", "+442079460019", true],
      ["ChIJuk2", "020 7946 0020", "+442079460020", false],
    ]);

    const add = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: r.json().searchId,
      placeIds: ["ChIJuk0", "ChIJuk1"],
    });
    expect(add.statusCode, add.body).toBe(200);
    expect(add.json()).toMatchObject({ created: 1, updated: 1 });
    const rows = await t.db.select().from(contacts).where(eq(contacts.workspaceId, a.user.id));
    expect(rows.map((c) => [c.company ?? c.firstName, c.phone, c.phoneRaw]).sort()).toEqual([
      ["Olu", "+442079460019", "020 7946 0019"],
      ["Thames Dental 0", "+442079460018", "020 7946 0018"],
    ]);
  });

  it("a US workspace reads the same national text as no valid number", async () => {
    const a = await signUp(t.app);
    const all = await a.client.post("/api/maps/search", body);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().businesses.map((b: { phone_e164: string | null }) => b.phone_e164)).toEqual([
      null,
      null,
      null,
    ]);
    const valid = await a.client.post("/api/maps/search", { ...body, filters: { validPhone: true } });
    expect(valid.statusCode, valid.body).toBe(200);
    expect(valid.json().businesses).toEqual([]);
  });
});
