import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCsv } from "../contacts-import";
import {
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

// A QA pass of a small team's week: three people wrote notes on one contact and the contact's page
// showed them unsigned, so nobody could tell who had promised the customer what. The notes were
// recorded with their writer (notes.created_by) but the contact's page did not say it. Each note now
// carries author_name, kept after its writer leaves the workspace. Likewise nobody could tell who
// had added a contact: contacts now record who added them by hand (migration 0064), and the contact's
// page says "Added by Cara Member on <date>" (added_by_name: by hand, or the CSV file's importer).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("notes say who wrote them", () => {
  it("the contact's notes carry their writer's name over REST and tRPC, also once the writer was removed; a note with nobody recorded has null", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const created = await cara.client.post("/api/contacts", {
      first_name: "Dora",
      last_name: "Client",
      email: uniqueEmail("dora"),
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().contact.id as number;
    for (const [who, text] of [
      [cara, "Called Dora, she wants a quote."],
      [ben, "Sent the quote."],
    ] as const) {
      const res = await who.client.post(`/api/contacts/${id}/notes`, { note_text: text });
      expect(res.statusCode, res.body).toBe(200);
    }
    const viaTrpc = await trpcCall(owner.client, "crm.addNote", { id, note_text: "Approved the discount." });
    expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
    // a note with nobody recorded (written before the writer was kept)
    const old = await owner.client.post(`/api/contacts/${id}/notes`, { note_text: "Imported note." });
    await t.db.execute(sql`update notes set created_by = null where id = ${old.json().note.id}`);

    const removed = await owner.client.del(`/api/workspaces/current/members/${ben.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);

    const expected = [
      { note_text: "Imported note.", author_name: null },
      { note_text: "Approved the discount.", author_name: "Ana Owner" },
      { note_text: "Sent the quote.", author_name: "Ben Admin" },
      { note_text: "Called Dora, she wants a quote.", author_name: "Cara Member" },
    ];
    const rest = await cara.client.get(`/api/contacts/${id}`);
    expect(rest.statusCode, rest.body).toBe(200);
    expect(
      rest.json().notes.map((n: { note_text: string; author_name: string | null }) => ({
        note_text: n.note_text,
        author_name: n.author_name,
      })),
    ).toEqual(expected);
    const trpc = await trpcCall(owner.client, "crm.get", { id }, "query");
    expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
    expect(
      trpc.data.notes.map((n: { note_text: string; author_name: string | null }) => ({
        note_text: n.note_text,
        author_name: n.author_name,
      })),
    ).toEqual(expected);
  });
});

describe("a contact says who added it", () => {
  it("added by hand over REST and tRPC, or by a CSV file's importer, names them (also once removed), as does the app's JSON import; the public API names no person (its key instead: crm-api-key-attribution)", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const byCara = await cara.client.post("/api/contacts", {
      first_name: "Dora",
      email: uniqueEmail("dora"),
    });
    expect(byCara.statusCode, byCara.body).toBe(200);
    const byBen = await trpcCall(ben.client, "crm.create", { first_name: "Eve", email: uniqueEmail("eve") });
    expect(byBen.status, JSON.stringify(byBen.error)).toBe(200);
    const fileEmail = uniqueEmail("finn");
    const imported = await importCsv(ben.client, `first_name,email\nFinn,${fileEmail}\n`);
    expect(imported.status).toBe("completed");
    const jsonEmail = uniqueEmail("gus");
    const json = await owner.client.post("/api/contacts/import", {
      contacts: [{ first_name: "Gus", email: jsonEmail }],
    });
    expect(json.statusCode, json.body).toBe(200);
    const keyRes = await owner.client.post("/api/api-keys", { name: "Zap", scopes: ["contacts:write"] });
    expect(keyRes.statusCode, keyRes.body).toBe(200);
    const viaApi = await t.app.inject({
      method: "POST",
      url: "/api/v1/contacts",
      headers: { authorization: `Bearer ${keyRes.json().key}` },
      payload: { first_name: "Hal", email: uniqueEmail("hal") },
    });
    expect(viaApi.statusCode, viaApi.body).toBe(201);
    await owner.client.del(`/api/workspaces/current/members/${ben.user.id}`);

    const list = (await owner.client.get("/api/contacts?limit=50")).json().contacts as {
      id: number;
      email: string;
    }[];
    const idOf = (email: string) => list.find((c) => c.email === email)?.id;
    const addedBy = async (id: number | undefined) => {
      const res = await owner.client.get(`/api/contacts/${id}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().added_by_name;
    };
    expect(await addedBy(byCara.json().contact.id)).toBe("Cara Member");
    expect(await addedBy(byBen.data.id)).toBe("Ben Admin");
    expect(await addedBy(idOf(fileEmail))).toBe("Ben Admin");
    expect(await addedBy(idOf(jsonEmail))).toBe("Ana Owner");
    expect(await addedBy(viaApi.json().id ?? viaApi.json().contact?.id)).toBeNull();
    const trpc = await trpcCall(cara.client, "crm.get", { id: byCara.json().contact.id }, "query");
    expect(trpc.data.added_by_name).toBe("Cara Member");
  });
});
