import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import { startOverpassFake } from "../fakes/overpass";
import { createTestApp, signUp, type TestApp } from "../helpers";

/*
 * A business saved from lead search whose email unsubscribed earlier (a contact deleted since): its
 * contact comes back with email opt-in off, not the CRM's default on, as an import or an edit keeps it
 * (compliance optOutsOf, crm.leads), so an email campaign never reaches it by a default. (SMS and call
 * opt-ins of a lead are off by default whatever happened.) Before, only the import and edit paths had a
 * test of this rule.
 */

let fake: Awaited<ReturnType<typeof startOverpassFake>>;
let o: TestApp;
const node = (id: number, tags: Record<string, string>) => ({
  type: "node" as const,
  id,
  lat: 43.4191 + id / 100_000,
  lon: -83.9508,
  tags: { amenity: "dentist", "addr:city": "Saginaw", ...tags },
});
beforeAll(async () => {
  fake = await startOverpassFake([
    node(921, { name: "Unsubscribed Dental", email: "front@unsub-dental.example", phone: "+1 989-555-0161" }),
    node(924, { name: "Plain Dental", email: "front@plain-dental.example", phone: "+1 989-555-0164" }),
  ]);
  o = await createTestApp({ PLACES_PROVIDER: "osm", OVERPASS_URL: `${fake.url}/api/interpreter` });
});
afterAll(async () => {
  await o?.close();
  await fake?.close();
});

describe("lead search -> contacts: opted-out businesses", () => {
  it("keeps email off for an address that unsubscribed; the other gets the CRM's defaults", async () => {
    const a = await signUp(o.app);
    await suppress(
      o.db,
      a.user.id,
      "email",
      "front@unsub-dental.example",
      "unsubscribed",
      "unsubscribe page",
      true,
    );
    const s = await a.client.post("/api/maps/search", {
      location: "Saginaw, MI",
      businessType: "Dentists",
      radius: 3,
      searchRadius: 3,
    });
    expect(s.statusCode, s.body).toBe(200);
    const { searchId, businesses } = s.json() as { searchId: string; businesses: { place_id: string }[] };
    expect(businesses).toHaveLength(2);
    const added = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId,
      placeIds: businesses.map((b) => b.place_id),
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toMatchObject({ created: 2 });
    const rows = await o.sql<
      { company: string; email_opt_in: boolean; sms_opt_in: boolean; call_opt_in: boolean }[]
    >`
      select company, email_opt_in, sms_opt_in, call_opt_in from contacts
      where workspace_id = ${a.user.id} order by company`;
    expect(rows).toEqual([
      // the CRM's defaults: email on, SMS and calls off until the person agrees
      { company: "Plain Dental", email_opt_in: true, sms_opt_in: false, call_opt_in: false },
      // the unsubscribe keeps email off, the default notwithstanding
      { company: "Unsubscribed Dental", email_opt_in: false, sms_opt_in: false, call_opt_in: false },
    ]);
  });
});
