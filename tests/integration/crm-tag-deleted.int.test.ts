import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

/**
 * Tagging a contact deleted meanwhile: bulk add_tag (POST /api/contacts/bulk/operation, tRPC crm.bulk)
 * and the single-contact tagging (POST /api/v1/contacts/{id}/tags) read the contacts, then insert
 * their contact_tags rows; a contact deleted by another request in between (committed) made the
 * insert fail on the contacts foreign key: a 500. The bulk tagging now tags the contacts still there
 * (its count says how many); the single tagging answers 404 'Contact not found'. The interleaving is
 * made certain: a trigger on the contact_tags insert waits for an advisory lock the test holds while
 * it deletes.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const GATE = 434343;

/** Runs `send` with the tag's contact_tags inserts held until `meanwhile` has run; returns its answer. */
async function heldWhile<R>(
  tagId: number,
  send: () => Promise<R>,
  meanwhile: () => Promise<void>,
): Promise<R> {
  const fn = `gate_tag_${tagId}`;
  await t.sql.unsafe(`
    create function ${fn}() returns trigger language plpgsql as $$
    begin
      if new.tag_id = ${tagId} then perform pg_advisory_xact_lock(${GATE}, ${tagId}); end if;
      return new;
    end $$;
    create trigger ${fn} before insert on contact_tags for each row execute function ${fn}();`);
  try {
    let answer: { r: R } | undefined;
    await t.sql.begin(async (gate) => {
      await gate`select pg_advisory_xact_lock(${GATE}, ${tagId})`;
      send().then((r) => {
        answer = { r };
      });
      // the tagging has read its contacts and waits in the contact_tags insert
      for (let i = 0; i < 200; i++) {
        const [w] = await t.sql<{ n: number }[]>`
          select count(*)::int as n from pg_locks
          where locktype = 'advisory' and not granted and classid = ${GATE} and objid = ${tagId}`;
        if (w?.n) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await meanwhile();
    });
    for (let i = 0; i < 200 && !answer; i++) await new Promise((r) => setTimeout(r, 25));
    if (!answer) throw new Error("the tagging did not answer");
    return answer.r;
  } finally {
    await t.sql.unsafe(`drop trigger ${fn} on contact_tags; drop function ${fn}();`);
  }
}

async function contactsAndTag(client: Awaited<ReturnType<typeof signUp>>["client"], n: number) {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await client.post("/api/contacts", { first_name: `c${i}`, email: uniqueEmail(`c${i}`) });
    expect(r.statusCode, r.body).toBe(200);
    ids.push(r.json().contact.id);
  }
  const tag = await client.post("/api/contacts/tags", { name: "Race" });
  expect(tag.statusCode, tag.body).toBe(200);
  return { ids, tagId: tag.json().tag.id as number };
}

it("bulk add_tag: a contact deleted before its link is checked is skipped, the others tagged", async () => {
  const { client } = await signUp(t.app);
  const { ids, tagId } = await contactsAndTag(client, 2);
  const r = await heldWhile(
    tagId,
    () =>
      client.post("/api/contacts/bulk/operation", {
        operation: "add_tag",
        contactIds: ids,
        data: { tag_id: tagId },
      }),
    async () => {
      expect((await client.del(`/api/contacts/${ids[0]}`)).statusCode).toBe(200);
    },
  );
  expect(r.statusCode, r.body).toBe(200);
  expect(r.json()).toMatchObject({ tagged: 1 });
  const links = await t.sql<{ contact_id: number }[]>`
    select contact_id::int from contact_tags where tag_id = ${tagId}`;
  expect(links).toEqual([{ contact_id: ids[1] }]);
});

it("POST /api/v1/contacts/{id}/tags: the contact deleted meanwhile is a 404 'Contact not found'", async () => {
  const { client, user } = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, user.id));
  const k = await client.post("/api/api-keys", { name: "CI", scopes: ["contacts:read", "contacts:write"] });
  expect(k.statusCode, k.body).toBe(200);
  const { ids, tagId } = await contactsAndTag(client, 1);
  const r = await heldWhile(
    tagId,
    () =>
      t.app.inject({
        method: "POST",
        url: `/api/v1/contacts/${ids[0]}/tags`,
        headers: { authorization: `Bearer ${k.json().key}` },
        payload: { tag_id: tagId },
      }),
    async () => {
      expect((await client.del(`/api/contacts/${ids[0]}`)).statusCode).toBe(200);
    },
  );
  expect(r.statusCode, r.body).toBe(404);
  expect(r.body).toContain("Contact not found");
});
