import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

/**
 * POST /api/contacts/search/location finds every contact within the radius, wherever the circle is:
 * its bounding box used to stop at longitude -180/180 (a contact in Fiji at 179.9 E was not found 13
 * miles away from -179.9), and near a pole it was too narrow (r / cos latitude instead of
 * asin(sin r / cos latitude), and bounded in longitude although the circle held the pole).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("finds contacts across the antimeridian, over a pole and at the wide edge of a high-latitude circle", async () => {
  const { client } = await signUp(t.app);
  const at = async (name: string, latitude: number, longitude: number) => {
    const r = await client.post("/api/contacts", { first_name: name, email: uniqueEmail(name) });
    expect(r.statusCode, r.body).toBe(200);
    const id = r.json().contact.id as number;
    await t.db.execute(
      sql`update contacts set latitude = ${latitude}, longitude = ${longitude} where id = ${id}`,
    );
  };
  await at("fiji", -17.8, 179.9);
  await at("chukotka", 65, -179.95);
  await at("overpole", 88, 180);
  await at("wideedge", 81.5, 44);
  const near = async (latitude: number, longitude: number, radius_miles: number) => {
    const r = await client.post("/api/contacts/search/location", { latitude, longitude, radius_miles });
    expect(r.statusCode, r.body).toBe(200);
    return (r.json().contacts as { first_name: string; distance_miles: number }[]).map((c) => [
      c.first_name,
      Math.round(c.distance_miles),
    ]);
  };
  // 13 miles west across the meridian, and the other way round
  expect(await near(-17.8, -179.9, 50)).toEqual([["fiji", 13]]);
  expect(await near(65, 179.95, 20)).toEqual([["chukotka", 3]]);
  // 484 miles over the north pole from (85, 0)
  expect(await near(85, 0, 500)).toContainEqual(["overpole", 484]);
  // 487 miles from (80, 0), 44 degrees of longitude away (r / cos 80 is 41.7 degrees)
  expect(await near(80, 0, 500)).toContainEqual(["wideedge", 487]);
  // a circle elsewhere still finds nothing
  expect(await near(0, 0, 500)).toEqual([]);
});
