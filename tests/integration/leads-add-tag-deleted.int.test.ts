import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";
import {
  searchSaginawDentists,
  TAG_CREATION_LOCK_CLASS,
  waitForContactDeleteBlockedBy,
  waitForTagLockWaiter,
} from "../leads-fixtures";

/**
 * "Add to contacts" with a tag name tags the businesses' contacts after matching them; a matched
 * contact deleted in between (another request's delete, committed) made the tag links' insert fail on
 * the contacts foreign key: a 500 and nothing added. The tagging now takes only contacts that are
 * still there (locking them). The interleaving is made certain by holding the workspace's
 * tag-creation lock, which the add takes after matching, while the contact is deleted. Since the add
 * locks the contacts it matches under its contact-creation lock (leads-add-contact-deleted.int), that
 * delete waits for the add's commit instead: the test lets it wait (or answer) before releasing the
 * lock, and checks the outcome once both have answered.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("a matched contact deleted before the tagging: the add succeeds and tags the others", async () => {
  const { user, client } = await signUp(t.app);
  const s = await searchSaginawDentists(client);
  const placeIds = (s.businesses as { place_id: string }[]).slice(0, 2).map((b) => b.place_id);
  // both already contacts: the second add matches them (nothing new to fill: skipped)
  expect(
    (await client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds })).json(),
  ).toMatchObject({ created: 2 });
  const [gone] = await t.sql<{ id: number }[]>`
    select id from contacts where workspace_id = ${user.id} order by id limit 1`;

  let added: Awaited<ReturnType<typeof client.post>> | undefined;
  let deleted: Awaited<ReturnType<typeof client.del>> | undefined;
  await t.sql.begin(async (gate) => {
    await gate`select pg_advisory_xact_lock(${TAG_CREATION_LOCK_CLASS}, hashtext(${user.id}::text))`;
    client
      .post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds, tagName: "Dentists" })
      .then((r) => {
        added = r;
      });
    const addPid = await waitForTagLockWaiter(t.sql, user.id);
    expect(addPid, "the add did not reach the tag-creation lock").toBeDefined();
    client.del(`/api/contacts/${gone?.id}`).then((r) => {
      deleted = r;
    });
    // the delete answers, or waits for the add's row lock on the contact
    await waitForContactDeleteBlockedBy(t.sql, addPid, () => deleted !== undefined);
  });
  for (let i = 0; i < 400 && !(added && deleted); i++) await new Promise((r) => setTimeout(r, 25));
  expect(added?.statusCode, added?.body).toBe(200);
  expect(deleted?.statusCode, deleted?.body).toBe(200);
  expect((await client.get("/api/contacts/tags/all")).json().tags).toEqual([
    expect.objectContaining({ name: "Dentists", contact_count: 1 }),
  ]);
});
