import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
// carries author_name, kept after its writer leaves the workspace.

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
