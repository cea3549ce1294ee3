import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";

/** Issue 14 section 4: notes can be edited and deleted; the activity timeline says so. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("contact notes edit and delete", () => {
  it("edits and deletes a note over REST and tRPC, records note_edited / note_deleted, refuses blanks and other workspaces", async () => {
    const { client } = await signUp(t.app);
    const c = (await client.post("/api/contacts", { first_name: "Nora", email: "nora@example.com" })).json()
      .contact;
    const add = await client.post(`/api/contacts/${c.id}/notes`, { note_text: "Called, wants a quote" });
    expect(add.statusCode, add.body).toBe(200);
    const noteId = add.json().note.id as number;

    const edit = await client.put(`/api/contacts/${c.id}/notes/${noteId}`, { note_text: "Quote sent" });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json().note).toMatchObject({ id: noteId, note_text: "Quote sent" });
    const blank = await client.put(`/api/contacts/${c.id}/notes/${noteId}`, { note_text: "   " });
    expect(blank.statusCode).toBe(400);

    let detail = (await client.get(`/api/contacts/${c.id}`)).json();
    expect(detail.notes.map((n: { note_text: string }) => n.note_text)).toEqual(["Quote sent"]);
    const types = () => detail.activities.map((a: { activity_type: string }) => a.activity_type);
    expect(types()).toEqual(expect.arrayContaining(["note_added", "note_edited"]));

    // another workspace: 404 for edit and delete; an unknown note id and another contact's note too
    const other = await signUp(t.app);
    expect(
      (await other.client.put(`/api/contacts/${c.id}/notes/${noteId}`, { note_text: "x" })).statusCode,
    ).toBe(404);
    expect((await other.client.del(`/api/contacts/${c.id}/notes/${noteId}`)).statusCode).toBe(404);
    const c2 = (await client.post("/api/contacts", { first_name: "Other", email: "o@example.com" })).json()
      .contact;
    expect((await client.del(`/api/contacts/${c2.id}/notes/${noteId}`)).statusCode).toBe(404);
    expect((await client.del(`/api/contacts/${c.id}/notes/99999999`)).statusCode).toBe(404);
    expect((await client.del(`/api/contacts/${c.id}/notes/abc`)).statusCode).toBe(404);

    // tRPC: edit then delete
    const trpcEdit = await client.post("/trpc/crm.editNote", {
      json: { id: c.id, noteId, note_text: "Quote accepted" },
    });
    expect(trpcEdit.statusCode, trpcEdit.body).toBe(200);
    expect(trpcEdit.json().result.data.json.note_text).toBe("Quote accepted");
    const trpcDel = await client.post("/trpc/crm.deleteNote", { json: { id: c.id, noteId } });
    expect(trpcDel.statusCode, trpcDel.body).toBe(200);
    detail = (await client.get(`/api/contacts/${c.id}`)).json();
    expect(detail.notes).toEqual([]);
    expect(types()).toEqual(expect.arrayContaining(["note_added", "note_edited", "note_deleted"]));
    expect((await client.del(`/api/contacts/${c.id}/notes/${noteId}`)).statusCode).toBe(404);
  });
});
