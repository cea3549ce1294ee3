import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthedClient, createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

// A contacts filter with a key it does not know (`stage`, the list screen's and campaign audiences'
// name, instead of `lifecycle_stage`) was dropped, leaving `{}`: "every contact". A bulk delete over
// it deleted the whole workspace; a saved segment over it held everyone.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function seed(client: AuthedClient) {
  for (const [i, stage] of ["customer", "lead", "lead"].entries()) {
    const res = await client.post("/api/contacts", {
      first_name: `F${i}`,
      email: `f${i}@filter-closed.example`,
      lifecycle_stage: stage,
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}
const total = async (client: AuthedClient) => (await client.get("/api/contacts")).json().pagination.total;

describe("contacts filters are closed: an unknown key is a 400, never 'every contact'", () => {
  it("REST bulk operation over {filter: {stage}} is refused and deletes nothing", async () => {
    const { client } = await signUp(t.app);
    await seed(client);
    const res = await client.post("/api/contacts/bulk/operation", {
      filter: { stage: "customer" },
      operation: "delete",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain("not accepted here");
    expect(res.json().error).toContain("stage");
    expect(await total(client)).toBe(3);
    // the filter's real name still works
    const ok = await client.post("/api/contacts/bulk/operation", {
      filter: { lifecycle_stage: "customer" },
      operation: "delete",
    });
    expect(ok.json()).toEqual({ success: true, deleted: 1 });
    expect(await total(client)).toBe(2);
  });

  it("tRPC crm.bulk over an unknown filter key is refused and changes nothing", async () => {
    const { client } = await signUp(t.app);
    await seed(client);
    const r = await trpcCall(client, "crm.bulk", {
      filter: { status: "new" },
      operation: "update_stage",
      data: { lifecycle_stage: "advocate" },
    });
    expect(r.status).toBe(400);
    expect(r.error?.message).toContain("status");
    const advocates = (await client.get("/api/contacts?stage=advocate")).json().pagination.total;
    expect(advocates).toBe(0);
  });

  it("a segment saved with an unknown filter key is refused, on create and on update", async () => {
    const { client } = await signUp(t.app);
    await seed(client);
    const bad = await client.post("/api/contacts/lists", {
      name: "Customers",
      filter: { stage: "customer" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain("stage");
    const good = await client.post("/api/contacts/lists", {
      name: "Customers",
      filter: { lifecycle_stage: "customer" },
    });
    expect(good.statusCode, good.body).toBe(200);
    const id = (good.json().list ?? good.json().segment)?.id;
    expect(id).toBeTypeOf("number");
    const upd = await client.put(`/api/contacts/lists/${id}`, { name: "Customers", filter: { tagId: 1 } });
    expect(upd.statusCode).toBe(400);
    expect(upd.json().error).toContain("tagId");
  });
});
