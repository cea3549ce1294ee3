import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";
import { searchSaginawDentists } from "../leads-fixtures";

/**
 * "Add to contacts" from the lead search checks the plan's contact limit for the contacts its first
 * match (before the contact-creation lock) would create, then matches again under the lock. A
 * business matched to a contact at first whose contact was deleted while the request waited for the
 * lock is created after all: that creation was never checked, and a workspace at its limit went
 * past it (Free: 101 of 100). The creations found under the lock are checked there too.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** Class of crm.queries' contact-creation advisory lock ("CRM\x01"). */
const CONTACT_CREATION_LOCK_CLASS = 1129467137;

it("a business whose matched contact is deleted while the add waits for the lock is refused at the limit", async () => {
  const { user, client } = await signUp(t.app);
  await t.sql`
    insert into contacts (workspace_id, first_name, email)
    select ${user.id}, 'Seed', 'seed' || g || '@example.com' from generate_series(1, 99) g`;
  const s = await searchSaginawDentists(client);
  const placeIds = [(s.businesses as { place_id: string }[])[0]?.place_id];
  const first = await client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds });
  expect(first.json()).toMatchObject({ created: 1 });
  const [lead] = await t.sql<{ id: number }[]>`
    select id from contacts where workspace_id = ${user.id} and lead_source = 'business_search'`;

  let again: Awaited<ReturnType<typeof client.post>> | undefined;
  await t.sql.begin(async (tx) => {
    // hold the workspace's contact-creation lock, as a concurrent creator would
    await tx`select pg_advisory_xact_lock(${CONTACT_CREATION_LOCK_CLASS}, hashtext(${user.id}::text))`;
    // the second add matches the business to its contact (nothing to create) and waits for the lock
    const pending = client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds });
    pending.then((r) => {
      again = r;
    });
    for (let i = 0; i < 200; i++) {
      const [w] = await t.sql<{ n: number }[]>`
        select count(*)::int as n from pg_locks
        where locktype = 'advisory' and not granted and classid = ${CONTACT_CREATION_LOCK_CLASS}`;
      if (w?.n) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    // meanwhile: the lead's contact is deleted and another contact fills its place (100 of 100)
    await tx`delete from contacts where id = ${lead?.id}`;
    await tx`insert into contacts (workspace_id, first_name, email) values (${user.id}, 'Other', 'other@example.com')`;
  });
  for (let i = 0; i < 200 && !again; i++) await new Promise((r) => setTimeout(r, 25));
  expect(again?.statusCode, again?.body).toBe(402);
  expect(again?.json().error).toMatch(/^Your Free plan includes 100 contacts/);
  const [n] = await t.sql<
    { n: number }[]
  >`select count(*)::int as n from contacts where workspace_id = ${user.id}`;
  expect(n?.n).toBe(100);
});
