import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

/**
 * A saved list (segment) saved or re-filtered on a tag while that tag is deleted
 * (DELETE /api/v1/tags/{id}): the list's save checked the tag, then the delete checked that no list
 * used it and deleted it, then the list was stored pointing at the deleted tag, matching nobody. The
 * save and the delete now serialise on the tag's row: either the list is saved first and the delete
 * is refused (409 naming the list), or the tag goes first and the list is refused (404 'Tag not
 * found'). Never a list on a missing tag.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const ROUNDS = 30;

async function setUp() {
  const { client, user } = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, user.id));
  const k = await client.post("/api/api-keys", { name: "CI", scopes: ["contacts:read", "contacts:write"] });
  expect(k.statusCode, k.body).toBe(200);
  const key = k.json().key as string;
  const deleteTag = (id: number) =>
    t.app.inject({
      method: "DELETE",
      url: `/api/v1/tags/${id}`,
      headers: { authorization: `Bearer ${key}` },
    });
  return { client, user, deleteTag };
}

/** Lists of the workspace whose filter names a tag id that is not a tag (any workspace's). */
async function listsOnMissingTags(workspaceId: string) {
  return t.sql<{ name: string; tag_id: string }[]>`
    select s.name, s.filter->>'tag_id' as tag_id from segments s
    where s.workspace_id = ${workspaceId} and s.filter ? 'tag_id'
      and not exists (select 1 from tags g where g.id = (s.filter->>'tag_id')::bigint)`;
}

it("creating a list while its tag is deleted: never a list on a missing tag", async () => {
  const { client, user, deleteTag } = await setUp();
  for (let i = 0; i < ROUNDS; i++) {
    const tag = await client.post("/api/contacts/tags", { name: `T${i}` });
    expect(tag.statusCode, tag.body).toBe(200);
    const tagId = tag.json().tag.id as number;
    const [made, del] = await Promise.all([
      i % 2
        ? client.post("/api/contacts/lists", { name: `L${i}`, filter: { tag_id: tagId } })
        : trpcCall(client, "crm.createList", { name: `L${i}`, filter: { tag_id: tagId } }).then((r) => ({
            statusCode: r.status,
            body: JSON.stringify(r),
          })),
      deleteTag(tagId),
    ]);
    expect(await listsOnMissingTags(user.id)).toEqual([]);
    // one of the two wins, and the other says why it did not
    if (made.statusCode === 200) {
      expect(del.statusCode, del.body).toBe(409);
      expect(del.body).toContain(`'L${i}'`);
    } else {
      expect(made.statusCode, made.body).toBe(404);
      expect(made.body).toContain("Tag not found");
      expect(del.statusCode, del.body).toBe(200);
    }
  }
});

it("re-filtering a list on a tag while it is deleted: never a list on a missing tag", async () => {
  const { client, user, deleteTag } = await setUp();
  const list = await client.post("/api/contacts/lists", { name: "L", filter: { lifecycle_stage: "lead" } });
  expect(list.statusCode, list.body).toBe(200);
  const listId = list.json().list.id as number;
  for (let i = 0; i < ROUNDS; i++) {
    const tag = await client.post("/api/contacts/tags", { name: `T${i}` });
    expect(tag.statusCode, tag.body).toBe(200);
    const tagId = tag.json().tag.id as number;
    const [put, del] = await Promise.all([
      i % 2
        ? client.put(`/api/contacts/lists/${listId}`, { name: "L", filter: { tag_id: tagId } })
        : trpcCall(client, "crm.updateList", { id: listId, name: "L", filter: { tag_id: tagId } }).then(
            (r) => ({ statusCode: r.status, body: JSON.stringify(r) }),
          ),
      deleteTag(tagId),
    ]);
    expect(await listsOnMissingTags(user.id)).toEqual([]);
    if (put.statusCode === 200) {
      expect(del.statusCode, del.body).toBe(409);
      // the list moves off the tag so the next round starts clean
      const back = await client.put(`/api/contacts/lists/${listId}`, {
        name: "L",
        filter: { lifecycle_stage: "lead" },
      });
      expect(back.statusCode, back.body).toBe(200);
      expect((await deleteTag(tagId)).statusCode).toBe(200);
    } else {
      expect(put.statusCode, put.body).toBe(404);
      expect(put.body).toContain("Tag not found");
      expect(del.statusCode, del.body).toBe(200);
    }
  }
});
