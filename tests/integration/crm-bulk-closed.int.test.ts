import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

/**
 * A bulk operation's body is closed and means one thing: an unknown key is a 400 naming it (a
 * snake_case `exclude_ids` was dropped, so a delete over "all matching" also deleted the contacts
 * the caller had left out), `contactIds` with `filter` is a 400 (the filter was silently ignored),
 * and a filter on another workspace's tag is a 404 like everywhere else (it answered 200, 0 updated).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("exclude_ids, contactIds with filter and a foreign filter tag are refused, and nothing changes", async () => {
  const a = await signUp(t.app);
  const b = await signUp(t.app);
  const ids: number[] = [];
  for (const name of ["keep", "lead1", "lead2"]) {
    const r = await a.client.post("/api/contacts", {
      first_name: name,
      email: uniqueEmail(name),
      lifecycle_stage: "lead",
    });
    expect(r.statusCode, r.body).toBe(200);
    ids.push(r.json().contact.id);
  }
  const total = async () => (await a.client.get("/api/contacts")).json().pagination.total as number;
  const bulk = (body: object) => a.client.post("/api/contacts/bulk/operation", body);

  const snake = await bulk({
    filter: { lifecycle_stage: "lead" },
    exclude_ids: [ids[0]],
    operation: "delete",
  });
  expect(snake.statusCode, snake.body).toBe(400);
  expect(snake.json().error).toContain("exclude_ids");
  expect(await total()).toBe(3);

  const both = await bulk({
    contactIds: [ids[1]],
    filter: { lifecycle_stage: "lead" },
    operation: "update_stage",
    data: { lifecycle_stage: "customer" },
  });
  expect(both.statusCode, both.body).toBe(400);
  expect(both.json().error).toContain("not both");
  const badData = await bulk({
    contactIds: [ids[1]],
    operation: "update_stage",
    data: { stage: "customer" },
  });
  expect(badData.statusCode, badData.body).toBe(400);
  expect(badData.json().error).toContain("stage");

  const theirTag = (await b.client.post("/api/contacts/tags", { name: "Theirs" })).json().tag as {
    id: number;
  };
  const foreign = await bulk({
    filter: { tag_id: theirTag.id },
    operation: "update_stage",
    data: { lifecycle_stage: "customer" },
  });
  expect(foreign.statusCode, foreign.body).toBe(404);
  expect(foreign.json().error).toBe("Tag not found");
  const viaTrpc = await trpcCall(a.client, "crm.bulk", {
    filter: { tag_id: theirTag.id },
    operation: "delete",
  });
  expect(viaTrpc.status).toBe(404);
  expect((await a.client.get("/api/contacts?stage=customer")).json().pagination.total).toBe(0);
  expect(await total()).toBe(3);

  // the closed body's real names still work
  const ok = await bulk({ filter: { lifecycle_stage: "lead" }, excludeIds: [ids[0]], operation: "delete" });
  expect(ok.json()).toEqual({ success: true, deleted: 2 });
  expect(await total()).toBe(1);
});
