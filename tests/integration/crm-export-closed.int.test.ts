import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall as trpc } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

// The list's query is closed (crm listContactsQuerySchema): a filter the server does not know is a 400
// naming it. The CSV export and tRPC crm.list took the same filter open, so a caller using the public
// API's name `lifecycle_stage` got every contact with the filter silently ignored.
describe("the contacts export and tRPC list refuse a filter they do not know", () => {
  it("export.csv?lifecycle_stage=customer is a 400 naming it; ?stage=customer exports the customers", async () => {
    const { client } = await signUp(t.app);
    for (const [email, lifecycle_stage] of [
      ["cus@closed.example", "customer"],
      ["lead@closed.example", "lead"],
    ])
      expect(
        (await client.post("/api/contacts", { first_name: "C", email, lifecycle_stage })).statusCode,
      ).toBe(200);
    const wrong = await client.get("/api/contacts/export.csv?lifecycle_stage=customer");
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/lifecycle_stage/);
    expect(wrong.body).not.toContain("lead@closed.example");

    const right = await client.get("/api/contacts/export.csv?stage=customer");
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain("cus@closed.example");
    expect(right.body).not.toContain("lead@closed.example");
  });

  it("tRPC crm.list with {lifecycle_stage} is a 400 naming it; {stage} filters", async () => {
    const { client } = await signUp(t.app);
    for (const [email, lifecycle_stage] of [
      ["cus2@closed.example", "customer"],
      ["lead2@closed.example", "lead"],
    ])
      expect(
        (await client.post("/api/contacts", { first_name: "C", email, lifecycle_stage })).statusCode,
      ).toBe(200);
    const wrong = await trpc(client, "crm.list", { lifecycle_stage: "customer" }, "query");
    expect(wrong.status).toBe(400);
    expect(wrong.error?.message).toMatch(/lifecycle_stage/);
    const right = await trpc(client, "crm.list", { stage: "customer" }, "query");
    expect(right.status).toBe(200);
    expect((right.data.contacts as { email: string }[]).map((c) => c.email)).toEqual(["cus2@closed.example"]);
  });
});
