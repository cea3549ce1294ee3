import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

/**
 * A bulk operation takes up to 100,000 contactIds (bulkOperationSchema). Past 65,535 each id was a
 * bind parameter of its own and Postgres refused the statement: a 500 for every operation. The ids
 * now travel as one parameter; ids of another workspace are still left alone.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("update_stage, add_tag, remove_tag and delete over 100,000 ids (REST and tRPC) touch only the workspace's contacts", async () => {
  const a = await signUp(t.app);
  const b = await signUp(t.app);
  const make = async (client: typeof a.client, name: string) => {
    const r = await client.post("/api/contacts", { first_name: name, email: uniqueEmail(name) });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().contact.id as number;
  };
  const mine = [await make(a.client, "a1"), await make(a.client, "a2")];
  const theirs = await make(b.client, "b1");
  const filler = Array.from({ length: 100_000 - 3 }, (_, i) => 10_000_000 + i);
  const ids = [...mine, theirs, ...filler];
  const tag = (await a.client.post("/api/contacts/tags", { name: "Many" })).json().tag as { id: number };
  const bulk = (operation: string, data: object) =>
    a.client.post("/api/contacts/bulk/operation", { contactIds: ids, operation, data });

  const stage = await bulk("update_stage", { lifecycle_stage: "customer" });
  expect(stage.statusCode, stage.body).toBe(200);
  expect(stage.json().updated).toBe(2);
  const tagged = await bulk("add_tag", { tag_id: tag.id });
  expect(tagged.statusCode, tagged.body).toBe(200);
  expect(tagged.json().tagged).toBe(2);
  const viaTrpc = await trpcCall(a.client, "crm.bulk", {
    contactIds: ids,
    operation: "remove_tag",
    data: { tag_id: tag.id },
  });
  expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
  expect(viaTrpc.data.untagged).toBe(2);
  const deleted = await bulk("delete", {});
  expect(deleted.statusCode, deleted.body).toBe(200);
  expect(deleted.json().deleted).toBe(2);
  expect((await a.client.get("/api/contacts")).json().contacts).toHaveLength(0);
  // the other workspace's contact is untouched
  const other = (await b.client.get(`/api/contacts/${theirs}`)).json().contact;
  expect(other.lifecycle_stage).not.toBe("customer");
});
