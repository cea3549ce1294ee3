import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthedClient,
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

// Members could edit or delete other people's notes. A small team's CRM (HubSpot, Pipedrive) lets
// everyone read every note, its author edit and delete their own, and the workspace's owners and
// admins edit and delete anyone's (workspaces PERMISSIONS editOthersNotes). The server enforces it
// over REST and tRPC (403 with a sentence), and each note of the contact's page carries can_edit and
// can_delete for the reader, which the page's Edit and Delete follow.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

type ShownNote = { id: number; note_text: string; can_edit: boolean; can_delete: boolean };

async function team() {
  const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
  await setPlan(t, owner.user.id, "business");
  const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
  const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
  const dan = await joinWorkspace(t, owner.client, "member", { name: "Dan Member" });
  const created = await cara.client.post("/api/contacts", { first_name: "Dora", email: uniqueEmail("dora") });
  expect(created.statusCode, created.body).toBe(200);
  return { owner, ben, cara, dan, contactId: created.json().contact.id as number };
}

async function addNote(client: AuthedClient, contactId: number, text: string) {
  const res = await client.post(`/api/contacts/${contactId}/notes`, { note_text: text });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().note.id as number;
}

async function notesAs(client: AuthedClient, contactId: number) {
  const res = await client.get(`/api/contacts/${contactId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().notes as ShownNote[];
}

describe("who may edit or delete a note", () => {
  it("a member cannot edit or delete another member's note over REST or tRPC (403 with a sentence, note unchanged); the author can", async () => {
    const { cara, dan, contactId } = await team();
    const carasNote = await addNote(cara.client, contactId, "Called Dora, she wants a quote.");
    const url = `/api/contacts/${contactId}/notes/${carasNote}`;

    const restEdit = await dan.client.put(url, { note_text: "Dora is not interested." });
    expect(restEdit.statusCode, restEdit.body).toBe(403);
    expect(restEdit.json().error).toBe(
      "You can edit only the notes you wrote; this one is Cara Member's. The workspace owner or an admin can edit anyone's.",
    );
    const trpcEdit = await trpcCall(dan.client, "crm.editNote", {
      id: contactId,
      noteId: carasNote,
      note_text: "Dora is not interested.",
    });
    expect(trpcEdit.status).toBe(403);
    expect(trpcEdit.error?.message).toMatch(
      /^You can edit only the notes you wrote; this one is Cara Member's/,
    );
    const restDelete = await dan.client.del(url);
    expect(restDelete.statusCode, restDelete.body).toBe(403);
    expect(restDelete.json().error).toBe(
      "You can delete only the notes you wrote; this one is Cara Member's. The workspace owner or an admin can delete anyone's.",
    );
    const trpcDelete = await trpcCall(dan.client, "crm.deleteNote", { id: contactId, noteId: carasNote });
    expect(trpcDelete.status).toBe(403);

    const kept = (await notesAs(cara.client, contactId)).find((n) => n.id === carasNote);
    expect(kept?.note_text).toBe("Called Dora, she wants a quote.");
    const [edits] = await t.db.execute<{ n: number }>(
      sql`select count(*)::int as n from activities where contact_id = ${contactId} and activity_type in ('note_edited', 'note_deleted')`,
    );
    expect(edits!.n).toBe(0);

    // the author edits (REST) and deletes (tRPC) her own
    const own = await cara.client.put(url, { note_text: "Called Dora, quote sent." });
    expect(own.statusCode, own.body).toBe(200);
    const gone = await trpcCall(cara.client, "crm.deleteNote", { id: contactId, noteId: carasNote });
    expect(gone.status, JSON.stringify(gone.error)).toBe(200);
    expect(await notesAs(cara.client, contactId)).toEqual([]);
  });

  it("the owner and an admin edit and delete anyone's note, also one with no author recorded; a member cannot change that one", async () => {
    const { owner, ben, cara, dan, contactId } = await team();
    const carasNote = await addNote(cara.client, contactId, "Cara's note");
    const dansNote = await addNote(dan.client, contactId, "Dan's note");
    const orphan = await addNote(owner.client, contactId, "Nobody's note");
    await t.db.execute(sql`update notes set created_by = null where id = ${orphan}`);

    const member = await cara.client.put(`/api/contacts/${contactId}/notes/${orphan}`, { note_text: "x" });
    expect(member.statusCode, member.body).toBe(403);
    expect(member.json().error).toBe(
      "You can edit only the notes you wrote. The workspace owner or an admin can edit anyone's.",
    );

    const adminEdit = await trpcCall(ben.client, "crm.editNote", {
      id: contactId,
      noteId: carasNote,
      note_text: "Cara's note, tidied by Ben",
    });
    expect(adminEdit.status, JSON.stringify(adminEdit.error)).toBe(200);
    expect((await ben.client.del(`/api/contacts/${contactId}/notes/${dansNote}`)).statusCode).toBe(200);
    const ownerEdit = await owner.client.put(`/api/contacts/${contactId}/notes/${orphan}`, {
      note_text: "Owner's word",
    });
    expect(ownerEdit.statusCode, ownerEdit.body).toBe(200);
    expect((await owner.client.del(`/api/contacts/${contactId}/notes/${carasNote}`)).statusCode).toBe(200);
    expect((await notesAs(owner.client, contactId)).map((n) => n.note_text)).toEqual(["Owner's word"]);
  });

  it("each note says what the reader may do with it, over REST and tRPC", async () => {
    const { owner, ben, cara, dan, contactId } = await team();
    const carasNote = await addNote(cara.client, contactId, "Cara's note");
    const dansNote = await addNote(dan.client, contactId, "Dan's note");
    const flags = async (client: AuthedClient) =>
      Object.fromEntries(
        (await notesAs(client, contactId)).map((n) => [
          n.id,
          { can_edit: n.can_edit, can_delete: n.can_delete },
        ]),
      );
    const yes = { can_edit: true, can_delete: true };
    const no = { can_edit: false, can_delete: false };
    expect(await flags(dan.client)).toEqual({ [carasNote]: no, [dansNote]: yes });
    expect(await flags(cara.client)).toEqual({ [carasNote]: yes, [dansNote]: no });
    expect(await flags(ben.client)).toEqual({ [carasNote]: yes, [dansNote]: yes });
    expect(await flags(owner.client)).toEqual({ [carasNote]: yes, [dansNote]: yes });
    const trpc = await trpcCall(dan.client, "crm.get", { id: contactId }, "query");
    expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
    expect(
      Object.fromEntries(
        (trpc.data.notes as ShownNote[]).map((n) => [
          n.id,
          { can_edit: n.can_edit, can_delete: n.can_delete },
        ]),
      ),
    ).toEqual({ [carasNote]: no, [dansNote]: yes });
  });

  it("another workspace's note is still not found (404), not forbidden", async () => {
    const { cara, contactId } = await team();
    const note = await addNote(cara.client, contactId, "Private");
    const stranger = await signUp(t.app, {});
    const res = await stranger.client.put(`/api/contacts/${contactId}/notes/${note}`, { note_text: "x" });
    expect(res.statusCode).toBe(404);
  });
});
