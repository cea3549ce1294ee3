import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOverpassFake } from "../fakes/overpass";
import { createTestApp, signUp, type TestApp } from "../helpers";

let fake: Awaited<ReturnType<typeof startOverpassFake>>;
let o: TestApp;
beforeAll(async () => {
  // OpenStreetMap data is editable by anyone: a business whose tags hold script URLs and a formula email
  fake = await startOverpassFake([
    {
      type: "node",
      id: 901,
      lat: 43.4195,
      lon: -83.9508,
      tags: {
        amenity: "dentist",
        name: "Evil Dental",
        "addr:street": "Court St",
        "addr:city": "Saginaw",
        phone: "+1 989-555-0199",
        website: "javascript:alert(document.domain)//",
        "contact:facebook": "javascript:alert(1)",
        "contact:linkedin": "data:text/html,<script>alert(1)</script>",
        email: '=HYPERLINK("http://x")@a.b',
      },
    },
    {
      type: "node",
      id: 902,
      lat: 43.4196,
      lon: -83.9509,
      tags: {
        amenity: "dentist",
        name: "Good Dental",
        website: "https://good-dental.example",
        "contact:facebook": "https://facebook.com/gooddental",
        email: "hi@good-dental.example",
      },
    },
  ]);
  o = await createTestApp({ PLACES_PROVIDER: "osm", OVERPASS_URL: `${fake.url}/api/interpreter` });
});
afterAll(async () => {
  await o?.close();
  await fake?.close();
});

describe("lead search -> contacts applies the imports' web address and email rules", () => {
  it("a javascript:/data: website, Facebook or LinkedIn URL and an invalid email are left out; the contact is still added", async () => {
    const a = await signUp(o.app);
    const s = await a.client.post("/api/maps/search", {
      location: "Saginaw, MI",
      businessType: "Dentists",
      radius: 3,
      searchRadius: 3,
    });
    expect(s.statusCode).toBe(200);
    const body = s.json();
    const placeIds = body.businesses.map((b: { place_id: string }) => b.place_id).sort();
    expect(placeIds).toEqual(["node/901", "node/902"]);
    const r = await a.client.post("/api/maps/results/add-to-contacts", { searchId: body.searchId, placeIds });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ success: true, created: 2 });
    const rows = await o.sql`
      select company, email, website, facebook_url, linkedin_url, phone from contacts
      where workspace_id = ${a.user.id} order by company`;
    expect(rows).toEqual([
      {
        company: "Evil Dental",
        email: null,
        website: null,
        facebook_url: null,
        linkedin_url: null,
        phone: "+19895550199",
      },
      {
        company: "Good Dental",
        email: "hi@good-dental.example",
        website: "https://good-dental.example",
        facebook_url: "https://facebook.com/gooddental",
        linkedin_url: null,
        phone: null,
      },
    ]);
  });
});
