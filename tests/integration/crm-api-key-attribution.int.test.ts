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

// Contacts and notes added through the public API (/api/v1, an API key) recorded no one: the contact's
// page said nothing of who added the contact, and a note was signed with the key's creator as though
// she had written it. As HubSpot shows "Created by: <integration>", they now record the key
// (contacts / notes created_by_api_key_id, migration 0066) and the page says "Added through API key
// 'Zapier'", also once the key is revoked (a revoked key's row stays).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function v1(key: string, method: "POST" | "DELETE", url: string, payload?: unknown) {
  return t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function detail(client: AuthedClient, id: number) {
  const res = await client.get(`/api/contacts/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    added_by_name: string | null;
    added_by_api_key_name: string | null;
    notes: {
      id: number;
      note_text: string;
      author_name: string | null;
      author_api_key_name: string | null;
    }[];
  };
}

describe("what came through an API key says which key", () => {
  it("a contact and a note added through the public API name the key (REST and tRPC), also once it is revoked; the bulk upsert's new contacts too, not the ones it updates", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const made = await owner.client.post("/api/api-keys", {
      name: "Zapier",
      scopes: ["contacts:read", "contacts:write"],
    });
    expect(made.statusCode, made.body).toBe(200);
    const key = made.json().key as string;
    const keyId = made.json().apiKey.id as string;

    const created = await v1(key, "POST", "/contacts", { first_name: "Hal", email: uniqueEmail("hal") });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const note = await v1(key, "POST", `/contacts/${id}/notes`, { note_text: "Synced from the web form." });
    expect(note.statusCode, note.body).toBe(201);
    const byCara = await cara.client.post(`/api/contacts/${id}/notes`, { note_text: "Called Hal." });
    expect(byCara.statusCode, byCara.body).toBe(200);

    // the bulk upsert: a new contact records the key; a contact Cara added keeps saying Cara
    const carasContact = await cara.client.post("/api/contacts", {
      first_name: "Ivy",
      email: uniqueEmail("ivy"),
    });
    expect(carasContact.statusCode, carasContact.body).toBe(200);
    const ivy = carasContact.json().contact as { id: number; email: string };
    const newEmail = uniqueEmail("jon");
    const bulk = await v1(key, "POST", "/contacts/bulk", {
      contacts: [
        { first_name: "Jon", email: newEmail },
        { first_name: "Ivy", last_name: "Updated", email: ivy.email },
      ],
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.json()).toMatchObject({ created: 1, updated: 1 });
    const list = (await owner.client.get("/api/contacts?limit=50")).json().contacts as {
      id: number;
      email: string;
    }[];
    const jon = list.find((c) => c.email === newEmail)!.id;

    const revoked = await owner.client.del(`/api/api-keys/${keyId}`);
    expect(revoked.statusCode, revoked.body).toBe(200);

    const shown = await detail(cara.client, id);
    expect(shown).toMatchObject({ added_by_name: null, added_by_api_key_name: "Zapier" });
    expect(
      shown.notes.map(({ note_text, author_name, author_api_key_name }) => ({
        note_text,
        author_name,
        author_api_key_name,
      })),
    ).toEqual([
      { note_text: "Called Hal.", author_name: "Cara Member", author_api_key_name: null },
      // not the key's creator: nobody wrote it by hand
      { note_text: "Synced from the web form.", author_name: null, author_api_key_name: "Zapier" },
    ]);
    expect(await detail(owner.client, jon)).toMatchObject({
      added_by_name: null,
      added_by_api_key_name: "Zapier",
    });
    expect(await detail(owner.client, ivy.id)).toMatchObject({
      added_by_name: "Cara Member",
      added_by_api_key_name: null,
    });
    const trpc = await trpcCall(owner.client, "crm.get", { id }, "query");
    expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
    expect(trpc.data.added_by_api_key_name).toBe("Zapier");
    expect(trpc.data.notes[1]).toMatchObject({ author_name: null, author_api_key_name: "Zapier" });
  });

  it("a note added through a key is an owner's or admin's to change: a member's edit is refused naming the key", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const made = await owner.client.post("/api/api-keys", { name: "Zapier", scopes: ["contacts:write"] });
    const key = made.json().key as string;
    const created = await v1(key, "POST", "/contacts", { first_name: "Kim", email: uniqueEmail("kim") });
    const id = created.json().id as number;
    const note = await v1(key, "POST", `/contacts/${id}/notes`, { note_text: "From the form." });
    const noteId = note.json().id as number;

    const refused = await cara.client.put(`/api/contacts/${id}/notes/${noteId}`, { note_text: "x" });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().error).toBe(
      "You can edit only the notes you wrote; this one was added through API key 'Zapier'. The workspace owner or an admin can edit anyone's.",
    );
    const byOwner = await owner.client.put(`/api/contacts/${id}/notes/${noteId}`, { note_text: "Checked." });
    expect(byOwner.statusCode, byOwner.body).toBe(200);
  });
});
