import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOverpassFake } from "../fakes/overpass";
import { createTestApp, signUp, type TestApp } from "../helpers";

/*
 * A QA pass: "Add to contacts" of 244 lead search results answered "220 created, 0 updated, 24
 * skipped" with none of them in contacts before: the 24 shared a phone number or website with another
 * result of the batch and were never created, and all 244 cards (and later searches) showed "In
 * contacts". Two businesses sharing a phone or website are both created unless they may be the same
 * business (same name, same street address); each skipped result says why; only results that became
 * or matched a contact are marked "In contacts".
 */

let fake: Awaited<ReturnType<typeof startOverpassFake>>;
let o: TestApp;
const node = (id: number, lat: number, tags: Record<string, string>) => ({
  type: "node" as const,
  id,
  lat,
  lon: -83.9508,
  tags: { amenity: "dentist", "addr:city": "Saginaw", ...tags },
});
beforeAll(async () => {
  fake = await startOverpassFake([
    node(911, 43.4191, {
      name: "Patel Plumber",
      "addr:housenumber": "12",
      "addr:street": "Main St",
      phone: "+1 989-555-0150",
    }),
    // another business answering the same number
    node(912, 43.4192, {
      name: "Quick Drain",
      "addr:housenumber": "80",
      "addr:street": "Oak Ave",
      phone: "(989) 555-0150",
    }),
    // two branches of a chain: one website
    node(913, 43.4193, {
      name: "Chain Smiles",
      "addr:housenumber": "1",
      "addr:street": "State St",
      website: "https://chain-smiles.example",
    }),
    node(914, 43.4194, {
      name: "Chain Smiles",
      "addr:housenumber": "900",
      "addr:street": "Bay Rd",
      website: "https://www.chain-smiles.example/bay",
    }),
    // the first business listed again: same name, address and phone
    node(915, 43.4195, {
      name: "Patel Plumber",
      "addr:housenumber": "12",
      "addr:street": "Main St",
      phone: "+19895550150",
    }),
    // two businesses with one email: a contact's email is unique, so the second is skipped
    node(916, 43.4196, { name: "Email Twin", email: "office@twins.example" }),
    node(917, 43.4197, { name: "Other Twin", email: "office@twins.example" }),
    // not added: another business on Patel Plumber's number
    node(918, 43.4198, {
      name: "Phone Sharer",
      "addr:housenumber": "5",
      "addr:street": "Elm St",
      phone: "989-555-0150",
    }),
  ]);
  o = await createTestApp({ PLACES_PROVIDER: "osm", OVERPASS_URL: `${fake.url}/api/interpreter` });
});
afterAll(async () => {
  await o?.close();
  await fake?.close();
});

describe("lead search -> contacts: businesses sharing a phone or website", () => {
  it("different businesses are all created, a skipped one says why, and only the added ones are 'In contacts'", async () => {
    const a = await signUp(o.app);
    const search = async () => {
      const s = await a.client.post("/api/maps/search", {
        location: "Saginaw, MI",
        businessType: "Dentists",
        radius: 3,
        searchRadius: 3,
      });
      expect(s.statusCode, s.body).toBe(200);
      return s.json() as { searchId: string; businesses: { place_id: string; in_contacts: boolean }[] };
    };
    const first = await search();
    expect(first.businesses).toHaveLength(8);
    const placeIds = first.businesses
      .map((b) => b.place_id)
      .filter((p) => p !== "node/918")
      .sort();
    const r = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: first.searchId,
      placeIds,
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ success: true, created: 5, updated: 0, skipped: 2 });
    expect(r.json().skippedResults).toEqual([
      { placeId: "node/915", name: "Patel Plumber", reason: "same phone as Patel Plumber" },
      { placeId: "node/917", name: "Other Twin", reason: "same email as Email Twin" },
    ]);
    const rows = await o.sql<{ company: string; street_address: string | null }[]>`
      select company, street_address from contacts where workspace_id = ${a.user.id} order by company, street_address`;
    expect(rows.map((c) => `${c.company} ${c.street_address ?? ""}`.trim())).toEqual([
      "Chain Smiles 1 State St",
      "Chain Smiles 900 Bay Rd",
      "Email Twin",
      "Patel Plumber 12 Main St",
      "Quick Drain 80 Oak Ave",
    ]);
    // the stored results: "In contacts" for those added and the skipped ones, whose contact is
    // the earlier business's (the same business listed twice, the contact with that email)
    expect([...r.json().inContacts].sort()).toEqual(placeIds);
    const stored = await o.sql<{ place_id: string; in_contacts: boolean | null }[]>`
      select data->>'place_id' as place_id, (data->>'in_contacts')::boolean as in_contacts
      from lead_results where search_id = ${first.searchId} order by 1`;
    expect(stored.filter((x) => x.in_contacts).map((x) => x.place_id)).toEqual(placeIds);
    // a later search: the business not added is not in contacts, though it has Patel Plumber's number
    const again = await search();
    expect(again.businesses.filter((b) => !b.in_contacts).map((b) => b.place_id)).toEqual(["node/918"]);
    // added now, it is created beside Patel Plumber, not merged into them
    const more = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: again.searchId,
      placeIds: ["node/918"],
    });
    expect(more.json()).toMatchObject({ created: 1, updated: 0, skipped: 0, skippedResults: [] });
  });
});
