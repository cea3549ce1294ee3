import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";

/** Saved segments (lists) are listed and editable over REST too (issue 14 section 1). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("PUT and DELETE /api/contacts/lists/{id} rename, refilter and delete, within the workspace only", async () => {
  const a = await signUp(t.app);
  const b = await signUp(t.app);
  const created = await a.client.post("/api/contacts/lists", {
    name: "Leads",
    filter: { lifecycle_stage: "lead" },
  });
  expect(created.statusCode, created.body).toBe(200);
  const id = created.json().list.id as number;
  const put = await a.client.put(`/api/contacts/lists/${id}`, {
    name: "Hot leads",
    filter: { lifecycle_stage: "lead", lead_status: "qualified" },
  });
  expect(put.statusCode, put.body).toBe(200);
  expect(put.json().list).toMatchObject({
    id,
    name: "Hot leads",
    filter: { lifecycle_stage: "lead", lead_status: "qualified" },
  });
  const lists = (await a.client.get("/api/contacts/lists/all")).json().lists as {
    id: number;
    name: string;
  }[];
  expect(lists.find((l) => l.id === id)?.name).toBe("Hot leads");
  // another workspace's list is 404, for both verbs
  expect((await b.client.put(`/api/contacts/lists/${id}`, { name: "X", filter: {} })).statusCode).toBe(404);
  expect((await b.client.del(`/api/contacts/lists/${id}`)).statusCode).toBe(404);
  const del = await a.client.del(`/api/contacts/lists/${id}`);
  expect(del.statusCode).toBe(200);
  expect((await a.client.del(`/api/contacts/lists/${id}`)).statusCode).toBe(404);
});
