import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

/**
 * The note body is closed: an unknown key is a 400 naming it. The note schema dropped unknown keys,
 * so {note_text, pinned: true} (or tRPC crm.addNote / crm.editNote with an extra key) was answered
 * 200 with the key silently ignored.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("note create and edit (REST and tRPC) refuse an unknown key with a 400 naming it", async () => {
  const { client } = await signUp(t.app);
  const c = await client.post("/api/contacts", { first_name: "Ann", email: uniqueEmail("ann") });
  expect(c.statusCode, c.body).toBe(200);
  const id = c.json().contact.id as number;
  const notes = async () =>
    (
      await t.sql<{ note_text: string }[]>`select note_text from notes where contact_id = ${id} order by id`
    ).map((n) => n.note_text);

  const add = await client.post(`/api/contacts/${id}/notes`, { note_text: "Called", pinned: true });
  expect(add.statusCode, add.body).toBe(400);
  expect(add.json().error).toBe("This field is not accepted here: pinned");
  const addTrpc = await trpcCall(client, "crm.addNote", { id, note_text: "Called", pinned: true });
  expect(addTrpc.status).toBe(400);
  expect(addTrpc.error?.message).toContain("pinned");
  expect(await notes()).toEqual([]);

  const made = await client.post(`/api/contacts/${id}/notes`, { note_text: "Called" });
  expect(made.statusCode, made.body).toBe(200);
  const noteId = made.json().note.id as number;
  const edit = await client.put(`/api/contacts/${id}/notes/${noteId}`, { note_text: "Emailed", text: "x" });
  expect(edit.statusCode, edit.body).toBe(400);
  expect(edit.json().error).toBe("This field is not accepted here: text");
  const editTrpc = await trpcCall(client, "crm.editNote", { id, noteId, note_text: "Emailed", text: "x" });
  expect(editTrpc.status).toBe(400);
  expect(editTrpc.error?.message).toContain("text");
  expect(await notes()).toEqual(["Called"]);
  // the known body still works
  expect((await trpcCall(client, "crm.editNote", { id, noteId, note_text: "Emailed" })).status).toBe(200);
  expect(await notes()).toEqual(["Emailed"]);
});
