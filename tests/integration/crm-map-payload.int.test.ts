import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

/**
 * The map (GET /api/contacts/map, tRPC crm.mapContacts, the radius search) returns up to 5,000
 * contacts: it carried each one's custom fields too (up to 50 values of 500 characters), which the map
 * never shows, so 5,000 contacts could be a 125 MB response read and written whole per request.
 * Its rows now leave custom_fields out: 200 such contacts went from 5 MB to a fraction of 1 MB.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("map rows leave custom fields out and stay small however large the custom fields are", async () => {
  const { user, client } = await signUp(t.app);
  await t.db.execute(sql`
    insert into contacts (workspace_id, first_name, email, city, state, latitude, longitude, custom_fields)
    select ${user.id}, 'Pin ' || g, 'pin' || g || '@example.com', 'Saginaw', 'MI',
      43.42 + g / 10000.0, -83.95, (select jsonb_object_agg('f' || k, repeat('x', 500)) from generate_series(1, 50) k)
    from generate_series(1, 200) g`);
  const map = await client.get("/api/contacts/map");
  expect(map.statusCode).toBe(200);
  const rows = map.json().contacts as Record<string, unknown>[];
  expect(rows).toHaveLength(200);
  expect(rows[0]).toMatchObject({
    first_name: expect.stringMatching(/^Pin /),
    city: "Saginaw",
    latitude: expect.any(Number),
  });
  expect(rows.some((r) => "custom_fields" in r)).toBe(false);
  expect(map.body.length).toBeLessThan(500_000);
  const viaTrpc = await trpcCall(client, "crm.mapContacts", undefined, "query");
  expect(viaTrpc.status).toBe(200);
  expect((viaTrpc.data as Record<string, unknown>[]).some((r) => "custom_fields" in r)).toBe(false);
  const near = await client.post("/api/contacts/search/location", {
    latitude: 43.42,
    longitude: -83.95,
    radius_miles: 5,
  });
  expect(near.statusCode).toBe(200);
  const found = near.json().contacts as Record<string, unknown>[];
  expect(found).toHaveLength(200);
  expect(found[0]).toHaveProperty("distance_miles");
  expect(found.some((r) => "custom_fields" in r)).toBe(false);
  expect(near.body.length).toBeLessThan(500_000);
});
