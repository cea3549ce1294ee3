import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";

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

/** Class of crm.tags.queries' tag-creation advisory lock ("CRM\x03"). */
const TAG_CREATION_LOCK_CLASS = 1129467139;

it("a matched contact deleted before the tagging: the add succeeds and tags the others", async () => {
  const { user, client } = await signUp(t.app);
  const s = (
    await client.post("/api/maps/search", {
      location: "Saginaw, MI",
      businessType: "dentist",
      radius: 5,
      searchRadius: 2,
    })
  ).json();
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
    // (this workspace's key: other test files take the same lock class at the same time)
    let addPid: number | undefined;
    for (let i = 0; i < 200 && !addPid; i++) {
      const [w] = await t.sql<{ pid: number }[]>`
        select pid from pg_locks
        where locktype = 'advisory' and not granted and classid = ${TAG_CREATION_LOCK_CLASS}
          and objid::text::bigint = (hashtext(${user.id}::text)::bigint & 4294967295)`;
      addPid = w?.pid;
      if (addPid) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(addPid, "the add did not reach the tag-creation lock").toBeDefined();
    client.del(`/api/contacts/${gone?.id}`).then((r) => {
      deleted = r;
    });
    // the delete answers, or waits for the add's row lock on the contact
    for (let i = 0; i < 200 && !deleted; i++) {
      const [w] = await t.sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where ${addPid ?? 0}::int = any(pg_blocking_pids(pid)) and query ilike '%delete from "contacts"%'`;
      if (w?.n) break;
      await new Promise((r) => setTimeout(r, 25));
    }
  });
  for (let i = 0; i < 400 && !(added && deleted); i++) await new Promise((r) => setTimeout(r, 25));
  expect(added?.statusCode, added?.body).toBe(200);
  expect(deleted?.statusCode, deleted?.body).toBe(200);
  expect((await client.get("/api/contacts/tags/all")).json().tags).toEqual([
    expect.objectContaining({ name: "Dentists", contact_count: 1 }),
  ]);
});
