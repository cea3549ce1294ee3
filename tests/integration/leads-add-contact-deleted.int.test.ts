import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";
import {
  searchSaginawDentists,
  TAG_CREATION_LOCK_CLASS,
  waitForContactDeleteBlockedBy,
  waitForTagLockWaiter,
} from "../leads-fixtures";

/**
 * "Add to contacts" answers `contactIds`, the contacts the businesses were added as. A matched
 * contact with nothing to fill (skipped) was neither written nor locked by the add, so another
 * request could delete it after the add matched it and before the add committed: the add then
 * answered 200 with the deleted contact's id. The contacts matched under the add's lock are now
 * locked against deletion until its commit, so a delete waits for the add and every id answered is a
 * contact when the add commits. The interleaving is made certain as in leads-add-tag-deleted.int: the
 * test holds the workspace's tag-creation lock, which the add takes after matching, while it deletes.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("a matched contact deleted while the add runs is never answered as added though gone", async () => {
  const { user, client } = await signUp(t.app);
  const s = await searchSaginawDentists(client);
  const placeIds = (s.businesses as { place_id: string }[]).slice(0, 2).map((b) => b.place_id);
  // both already contacts: the second add matches them with nothing to fill (skipped)
  expect(
    (await client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds })).json(),
  ).toMatchObject({ created: 2 });
  const before = await t.sql<{ id: number }[]>`
    select id::int from contacts where workspace_id = ${user.id} order by id`;
  const goneId = before[0]?.id as number;

  type Answer = Awaited<ReturnType<typeof client.post>>;
  let added: Answer | undefined;
  let deleted: Answer | undefined;
  let deletedWhileAddOpen: Answer | undefined;
  await t.sql.begin(async (gate) => {
    await gate`select pg_advisory_xact_lock(${TAG_CREATION_LOCK_CLASS}, hashtext(${user.id}::text))`;
    client
      .post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds, tagName: "Dentists" })
      .then((r) => {
        added = r;
      });
    // the add has matched its contacts and waits for the tag-creation lock
    const addPid = await waitForTagLockWaiter(t.sql, user.id);
    expect(addPid, "the add did not reach the tag-creation lock").toBeDefined();
    // another request deletes a matched contact: it either answers at once or waits on a row lock
    client.del(`/api/contacts/${goneId}`).then((r) => {
      deleted = r;
    });
    await waitForContactDeleteBlockedBy(t.sql, addPid, () => deleted !== undefined);
    deletedWhileAddOpen = deleted;
  });
  for (let i = 0; i < 400 && !(added && deleted); i++) await sleep(25);
  expect(added?.statusCode, added?.body).toBe(200);
  const answered = added?.json().contactIds as number[];
  // the delete did not commit before the add: every contact the add answered was one when it committed
  expect(
    deletedWhileAddOpen,
    `the delete answered ${deletedWhileAddOpen?.statusCode} while the add was open; the add then answered ${JSON.stringify(answered)} (${goneId} deleted)`,
  ).toBeUndefined();
  expect(answered.sort((a, b) => a - b)).toEqual(before.map((r) => r.id));
  // the delete then went through after the add
  expect(deleted?.statusCode, deleted?.body).toBe(200);
  const left = await t.sql<{ id: number }[]>`
    select id::int from contacts where workspace_id = ${user.id} order by id`;
  expect(left.map((r) => r.id)).toEqual(before.slice(1).map((r) => r.id));
  expect((await client.get("/api/contacts/tags/all")).json().tags).toEqual([
    expect.objectContaining({ name: "Dentists", contact_count: 1 }),
  ]);
});
