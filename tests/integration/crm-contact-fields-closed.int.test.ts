import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

/**
 * Creating and editing a contact (REST and tRPC) takes only the contact's fields: an unknown one
 * (`stage` where the field is lifecycle_stage, camelCase `customFields`) is a 400 naming it. Before,
 * it was dropped: the edit answered 200 with the contact unchanged, the create stored no custom fields.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("an unknown field on create or edit is a 400 naming it, and nothing is written", async () => {
  const { client } = await signUp(t.app);
  const email = uniqueEmail("closed");
  const camel = await client.post("/api/contacts", {
    first_name: "Ann",
    email,
    customFields: { industry: "Bakery" },
  });
  expect(camel.statusCode, camel.body).toBe(400);
  expect(camel.json().error).toBe("This field is not accepted here: customFields");
  const viaTrpc = await trpcCall(client, "crm.create", { first_name: "Ann", email, leadStatus: "qualified" });
  expect(viaTrpc.status).toBe(400);
  expect(viaTrpc.error?.message).toContain("leadStatus");
  expect((await client.get("/api/contacts")).json().pagination.total).toBe(0);

  const created = await client.post("/api/contacts", { first_name: "Ann", email });
  expect(created.statusCode, created.body).toBe(200);
  const id = created.json().contact.id as number;
  const put = await client.put(`/api/contacts/${id}`, { stage: "customer", city: "Austin" });
  expect(put.statusCode, put.body).toBe(400);
  expect(put.json().error).toBe("This field is not accepted here: stage");
  const upd = await trpcCall(client, "crm.update", { id, data: { lifecycleStage: "customer" } });
  expect(upd.status).toBe(400);
  expect(upd.error?.message).toContain("lifecycleStage");
  const now = (await client.get(`/api/contacts/${id}`)).json().contact;
  expect(now).toMatchObject({ lifecycle_stage: "lead", city: null });
  // the real names still work
  const ok = await client.put(`/api/contacts/${id}`, { lifecycle_stage: "customer", city: "Austin" });
  expect(ok.statusCode, ok.body).toBe(200);
  expect(ok.json().contact).toMatchObject({ lifecycle_stage: "customer", city: "Austin" });
});
