import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

/**
 * A saved list (segment) is never silently widened to every contact: `{name, filters: {...}}` (an
 * unknown key) is a 400 naming it, REST and tRPC, where it was saved with the filter `{}`; and a
 * rename without a filter keeps the stored filter, where it was reset to `{}` (a campaign to the
 * renamed list then went to everyone). Tags' bodies are closed the same way.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("unknown keys are refused and a rename keeps the filter", async () => {
  const { client } = await signUp(t.app);
  for (const [name, stage] of [
    ["c1", "customer"],
    ["l1", "lead"],
    ["l2", "lead"],
  ] as const) {
    const r = await client.post("/api/contacts", {
      first_name: name,
      email: uniqueEmail(name),
      lifecycle_stage: stage,
    });
    expect(r.statusCode, r.body).toBe(200);
  }
  const lists = async () =>
    (await client.get("/api/contacts/lists/all")).json().lists as {
      id: number;
      name: string;
      filter: object;
      contact_count: number;
    }[];

  const typo = await client.post("/api/contacts/lists", {
    name: "Customers",
    filters: { lifecycle_stage: "customer" },
  });
  expect(typo.statusCode, typo.body).toBe(400);
  expect(typo.json().error).toBe("This field is not accepted here: filters");
  const typoTrpc = await trpcCall(client, "crm.createList", {
    name: "Customers",
    filters: { lifecycle_stage: "customer" },
  });
  expect(typoTrpc.status).toBe(400);
  expect(typoTrpc.error?.message).toContain("filters");
  expect(await lists()).toEqual([]);

  const made = await client.post("/api/contacts/lists", {
    name: "Customers",
    filter: { lifecycle_stage: "customer" },
  });
  expect(made.statusCode, made.body).toBe(200);
  const id = made.json().list.id as number;
  const renamed = await client.put(`/api/contacts/lists/${id}`, { name: "Best customers" });
  expect(renamed.statusCode, renamed.body).toBe(200);
  expect(renamed.json().list.filter).toEqual({ lifecycle_stage: "customer" });
  const viaTrpc = await trpcCall(client, "crm.updateList", { id, name: "Top customers" });
  expect(viaTrpc.status).toBe(200);
  expect(await lists()).toEqual([
    expect.objectContaining({
      name: "Top customers",
      filter: { lifecycle_stage: "customer" },
      contact_count: 1,
    }),
  ]);
  const putTypo = await client.put(`/api/contacts/lists/${id}`, { name: "X", filters: {} });
  expect(putTypo.statusCode).toBe(400);
  // a filter given replaces the stored one
  const refilter = await client.put(`/api/contacts/lists/${id}`, {
    name: "Leads",
    filter: { lifecycle_stage: "lead" },
  });
  expect(refilter.json().list.filter).toEqual({ lifecycle_stage: "lead" });

  const tag = await client.post("/api/contacts/tags", { name: "Red", colour: "#ff0000" });
  expect(tag.statusCode, tag.body).toBe(400);
  expect(tag.json().error).toBe("This field is not accepted here: colour");
  expect((await trpcCall(client, "crm.createTag", { name: "Red", colour: "#ff0000" })).status).toBe(400);
  expect((await client.get("/api/contacts/tags/all")).json().tags).toEqual([]);
});
