import { afterAll, beforeAll, expect, it } from "vitest";
import { renderMergeTags } from "../../src/server/lib/merge-tags";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

/**
 * Custom field names are case-insensitive (as HubSpot's and GoHighLevel's custom field keys): merge
 * tags look them up case-insensitively (`{{tier}}` reads `Tier`), so a contact holding both `Tier`
 * and `tier` rendered whichever came first. A body whose custom field names differ only in case is a
 * 400 naming them (contacts create and edit, REST and tRPC; a JSON import row is rejected with that
 * reason), and an edit or an update-import that sends `tier` to a contact holding `Tier` replaces it
 * (one key), where both were kept.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const COLLISION = "Custom field names 'Tier' and 'tier' differ only in case";

it("a body whose custom field names differ only in case is refused, naming them", async () => {
  const { client } = await signUp(t.app);
  const email = uniqueEmail("case");
  const both = { Tier: "gold", tier: "silver" };
  const made = await client.post("/api/contacts", { first_name: "Ann", email, custom_fields: both });
  expect(made.statusCode, made.body).toBe(400);
  expect(made.json().error).toContain(COLLISION);
  const viaTrpc = await trpcCall(client, "crm.create", { first_name: "Ann", email, custom_fields: both });
  expect(viaTrpc.status).toBe(400);
  expect(viaTrpc.error?.message).toContain(COLLISION);
  expect((await client.get("/api/contacts")).json().contacts).toEqual([]);

  const ok = await client.post("/api/contacts", {
    first_name: "Ann",
    email,
    custom_fields: { Tier: "gold" },
  });
  expect(ok.statusCode, ok.body).toBe(200);
  const id = ok.json().contact.id as number;
  const put = await client.put(`/api/contacts/${id}`, { custom_fields: both });
  expect(put.statusCode, put.body).toBe(400);
  expect(put.json().error).toContain(COLLISION);
  const putTrpc = await trpcCall(client, "crm.update", { id, data: { custom_fields: both } });
  expect(putTrpc.status).toBe(400);
  expect((await client.get(`/api/contacts/${id}`)).json().contact.custom_fields).toEqual({ Tier: "gold" });
});

it("an edit naming a stored field in another case replaces it (one key), null removes it", async () => {
  const { client } = await signUp(t.app);
  const made = await client.post("/api/contacts", {
    first_name: "Bo",
    email: uniqueEmail("case"),
    custom_fields: { Tier: "gold", region: "MI" },
  });
  expect(made.statusCode, made.body).toBe(200);
  const id = made.json().contact.id as number;
  const put = await client.put(`/api/contacts/${id}`, { custom_fields: { tier: "silver" } });
  expect(put.statusCode, put.body).toBe(200);
  const stored = (await client.get(`/api/contacts/${id}`)).json().contact.custom_fields;
  expect(stored).toEqual({ tier: "silver", region: "MI" });
  // what a merge tag renders is the one value
  expect(renderMergeTags("{{Tier}}/{{tier}}", { customFields: stored })).toBe("silver/silver");
  const viaTrpc = await trpcCall(client, "crm.update", { id, data: { custom_fields: { TIER: "bronze" } } });
  expect(viaTrpc.status).toBe(200);
  expect(viaTrpc.data.custom_fields).toEqual({ TIER: "bronze", region: "MI" });
  const removed = await client.put(`/api/contacts/${id}`, { custom_fields: { tier: null } });
  expect(removed.statusCode, removed.body).toBe(200);
  expect((await client.get(`/api/contacts/${id}`)).json().contact.custom_fields).toEqual({ region: "MI" });

  // the 50-field limit counts names case-insensitively: renaming the case of one is not a 51st
  const fifty = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`F${i}`, i]));
  expect((await client.put(`/api/contacts/${id}`, { custom_fields: fifty })).statusCode).toBe(200);
  const recase = await client.put(`/api/contacts/${id}`, { custom_fields: { f0: "zero" } });
  expect(recase.statusCode, recase.body).toBe(200);
  const after = (await client.get(`/api/contacts/${id}`)).json().contact.custom_fields;
  expect(Object.keys(after)).toHaveLength(50);
  expect(after.f0).toBe("zero");
  expect(after.F0).toBeUndefined();
});

it("the JSON import: a row with colliding names is rejected with the reason; an update replaces the stored case", async () => {
  const { client } = await signUp(t.app);
  const email = uniqueEmail("case");
  const made = await client.post("/api/contacts", {
    first_name: "Cy",
    email,
    custom_fields: { Tier: "gold" },
  });
  expect(made.statusCode, made.body).toBe(200);
  const id = made.json().contact.id as number;
  const other = uniqueEmail("case");
  const r = await client.post("/api/contacts/import", {
    on_duplicate: "update",
    contacts: [
      { first_name: "Di", email: other, custom_fields: { Tier: "a", tier: "b" } },
      { email, custom_fields: { tier: "silver" } },
    ],
  });
  expect(r.statusCode, r.body).toBe(200);
  expect(r.json()).toMatchObject({ imported: 1, errors: 1 });
  expect(JSON.stringify(r.json())).toContain(COLLISION);
  expect((await client.get(`/api/contacts/${id}`)).json().contact.custom_fields).toEqual({ tier: "silver" });
});
