import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_NOTES_PER_CONTACT } from "../../src/server/features/crm/crm.notes";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

/**
 * A contact holds at most MAX_NOTES_PER_CONTACT notes, also when the last ones are added together
 * (REST and tRPC): its page returns every note (up to 10,000 characters each), so notes added
 * without end made one response, held in the server's memory, as large as the tenant liked.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("notes added at once stop at the limit; deleting one makes room; another contact is not affected", async () => {
  const { client, user } = await signUp(t.app);
  const make = async (name: string) =>
    (await client.post("/api/contacts", { first_name: name, email: uniqueEmail(name) })).json().contact
      .id as number;
  const id = await make("full");
  const other = await make("other");
  await t.db.execute(sql`
    insert into notes (workspace_id, contact_id, note_text)
    select ${user.id}, ${id}, 'seed ' || g from generate_series(1, ${MAX_NOTES_PER_CONTACT - 3}) g`);
  const tries = await Promise.all([
    ...Array.from({ length: 4 }, (_, i) =>
      client.post(`/api/contacts/${id}/notes`, { note_text: `rest ${i}` }),
    ),
    ...Array.from({ length: 3 }, (_, i) => trpcCall(client, "crm.addNote", { id, note_text: `trpc ${i}` })),
  ]);
  const statuses = tries.map((r) => ("statusCode" in r ? r.statusCode : r.status)).sort();
  expect(statuses).toEqual([200, 200, 200, 409, 409, 409, 409]);
  const refused = await client.post(`/api/contacts/${id}/notes`, { note_text: "one more" });
  expect(refused.statusCode).toBe(409);
  expect(refused.json().error).toBe(
    `This contact already has ${MAX_NOTES_PER_CONTACT} notes, the most it can have. Edit or delete an old note to add another.`,
  );
  const detail = (await client.get(`/api/contacts/${id}`)).json();
  expect(detail.notes).toHaveLength(MAX_NOTES_PER_CONTACT);
  expect((await client.del(`/api/contacts/${id}/notes/${detail.notes[0].id}`)).statusCode).toBe(200);
  expect((await client.post(`/api/contacts/${id}/notes`, { note_text: "room" })).statusCode).toBe(200);
  expect((await client.post(`/api/contacts/${other}/notes`, { note_text: "fine" })).statusCode).toBe(200);
});
