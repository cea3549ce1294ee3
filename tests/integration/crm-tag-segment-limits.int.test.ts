import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_SEGMENTS, MAX_TAGS } from "../../src/server/features/crm/crm.tags";
import { createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

/**
 * A workspace has at most MAX_TAGS tags and MAX_SEGMENTS saved lists, also when the last ones are
 * asked for together (counted under a per-workspace lock) and through every path that creates a tag
 * (REST, tRPC, the lead search's "add to contacts" with a new tag name). Before, both were created
 * without end: listing the lists runs one count per list.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("tags: concurrent creations stop at MAX_TAGS, then REST, tRPC and a lead add with a new tag name are 409", async () => {
  const a = await signUp(t.app);
  await t.db.execute(sql`
    insert into tags (workspace_id, name) select ${a.user.id}, 'seed ' || g from generate_series(1, ${MAX_TAGS - 2}) g`);
  const tries = await Promise.all(
    Array.from({ length: 6 }, (_, i) => a.client.post("/api/contacts/tags", { name: `new ${i}` })),
  );
  expect(tries.map((r) => r.statusCode).sort()).toEqual([200, 200, 409, 409, 409, 409]);
  expect(tries.find((r) => r.statusCode === 409)?.json().error).toBe(
    `This workspace already has ${MAX_TAGS} tags, the most it can have. Delete one it no longer uses to create another.`,
  );
  expect((await trpcCall(a.client, "crm.createTag", { name: "by trpc" })).status).toBe(409);
  // a lead add naming an existing tag still works; a new tag name is refused and adds nothing
  const s = (
    await a.client.post("/api/maps/search", {
      location: "Saginaw, MI",
      businessType: "dentist",
      radius: 5,
      searchRadius: 2,
    })
  ).json();
  const placeIds = s.businesses.slice(0, 2).map((x: { place_id: string }) => x.place_id);
  const refused = await a.client.post("/api/maps/results/add-to-contacts", {
    searchId: s.searchId,
    placeIds,
    tagName: "Brand new",
  });
  expect(refused.statusCode, refused.body).toBe(409);
  expect((await a.client.get("/api/contacts")).json().contacts).toHaveLength(0);
  const ok = await a.client.post("/api/maps/results/add-to-contacts", {
    searchId: s.searchId,
    placeIds,
    tagName: "SEED 7",
  });
  expect(ok.statusCode, ok.body).toBe(200);
  expect(ok.json().created).toBe(2);
  const [{ n }] = await t.db.execute<{ n: number }>(
    sql`select count(*)::int as n from tags where workspace_id = ${a.user.id}`,
  );
  expect(n).toBe(MAX_TAGS);
  // another workspace is not affected
  const b = await signUp(t.app);
  expect((await b.client.post("/api/contacts/tags", { name: "mine" })).statusCode).toBe(200);
});

it("saved lists: concurrent creations stop at MAX_SEGMENTS (REST and tRPC), a deletion makes room", async () => {
  const a = await signUp(t.app);
  await t.db.execute(sql`
    insert into segments (workspace_id, name) select ${a.user.id}, 'seed ' || g from generate_series(1, ${MAX_SEGMENTS - 3}) g`);
  const tries = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      a.client.post("/api/contacts/lists", { name: `list ${i}`, filter: { lifecycle_stage: "lead" } }),
    ),
  );
  expect(tries.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 409, 409, 409, 409, 409]);
  expect(tries.find((r) => r.statusCode === 409)?.json().error).toBe(
    `This workspace already has ${MAX_SEGMENTS} saved lists, the most it can have. Delete one it no longer uses to save another.`,
  );
  expect((await trpcCall(a.client, "crm.createList", { name: "by trpc", filter: {} })).status).toBe(409);
  const lists = (await a.client.get("/api/contacts/lists/all")).json().lists as { id: number }[];
  expect(lists).toHaveLength(MAX_SEGMENTS);
  expect((await a.client.del(`/api/contacts/lists/${lists[0]?.id}`)).statusCode).toBe(200);
  expect((await a.client.post("/api/contacts/lists", { name: "room", filter: {} })).statusCode).toBe(200);
});
