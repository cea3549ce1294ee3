import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { importCsv } from "../contacts-import";
import { type AuthedClient, createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

// Contact search ignores accents (migration 0053): "jose" finds "José" and "josé" finds "Jose", as
// HubSpot's and Mailchimp's contact search do. It matched accents exactly, so a Spanish, French or
// German name typed on an English keyboard found nobody.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** The first names GET /api/contacts?search= lists, sorted. */
async function restSearch(client: AuthedClient, term: string): Promise<string[]> {
  const r = await client.get(`/api/contacts?search=${encodeURIComponent(term)}&limit=50`);
  expect(r.statusCode, r.body).toBe(200);
  return (r.json().contacts as { first_name: string }[]).map((c) => c.first_name).sort();
}

describe("accent-insensitive contact search", () => {
  it("finds names, companies and emails whatever accents the contact or the term carries", async () => {
    const { client } = await signUp(t.app);
    const people = [
      { first_name: "José", last_name: "Núñez", company: "Panadería Núñez" },
      { first_name: "Jose", last_name: "Nunez", company: "Nunez Bakery" },
      // typed decomposed (e + U+0308), as some Mac keyboards and exports write it
      { first_name: "Zoe\u0308", last_name: "Mu\u0308ller", company: "Crème Brûlée Café" },
      { first_name: "Søren", last_name: "Ærø", company: "Fjord" },
      { first_name: "Kim", last_name: "김민수", company: "Seoul Shop" },
    ];
    for (const p of people) {
      const r = await client.post("/api/contacts", { ...p, email: uniqueEmail("accents") });
      expect(r.statusCode, r.body).toBe(200);
    }
    const bothJoses = ["Jose", "José"];
    expect(await restSearch(client, "jose")).toEqual(bothJoses);
    expect(await restSearch(client, "JOSÉ")).toEqual(bothJoses);
    expect(await restSearch(client, "nunez")).toEqual(bothJoses);
    expect(await restSearch(client, "Núñez")).toEqual(bothJoses);
    expect(await restSearch(client, "jose nunez")).toEqual(bothJoses);
    expect(await restSearch(client, "panaderia")).toEqual(["José"]);
    // the stored decomposed name is found with a precomposed term and with none
    expect(await restSearch(client, "müller")).toEqual(["Zoe\u0308"]);
    expect(await restSearch(client, "muller")).toEqual(["Zoe\u0308"]);
    expect(await restSearch(client, "creme brulee")).toEqual(["Zoe\u0308"]);
    // a term of one or two letters is tested row by row, with the same folding
    expect(await restSearch(client, "zö")).toEqual(["Zoe\u0308"]);
    // letters that are not a letter plus a mark stay as they are; other scripts keep their form
    expect(await restSearch(client, "søren")).toEqual(["Søren"]);
    expect(await restSearch(client, "ærø")).toEqual(["Søren"]);
    expect(await restSearch(client, "민수")).toEqual(["Kim"]);
    // no match is still no match
    expect(await restSearch(client, "zzqx")).toEqual([]);

    // tRPC crm.list (the contacts screen) gives the same contacts and total
    const list = await trpcCall(client, "crm.list", { search: "josé", page: 1, limit: 25 }, "query");
    expect(list.status).toBe(200);
    expect(list.data.pagination.total).toBe(2);
    expect((list.data.contacts as { first_name: string }[]).map((c) => c.first_name).sort()).toEqual(
      bothJoses,
    );
  });

  it("finds imported contacts without accents, indexed or awaiting their import's search indexing", async () => {
    const { client, user } = await signUp(t.app);
    const imp = await importCsv(
      client,
      "first_name,last_name,email,company\nRenée,Dubé,renee@accents.example,Société Générale\nRene,Dube,rene@accents.example,Plain Co\n",
    );
    expect(imp).toMatchObject({ status: "completed", created: 2 });
    expect(await restSearch(client, "renee dube")).toEqual(["Renée"]);
    expect(await restSearch(client, "dube")).toEqual(["Rene", "Renée"]);
    expect(await restSearch(client, "societe generale")).toEqual(["Renée"]);
    // while an import's follow-up job has not indexed its contacts, search reads them through the
    // pending index and tests the same folded text
    await t.db.update(contacts).set({ searchIndexed: false }).where(eq(contacts.workspaceId, user.id));
    expect(await restSearch(client, "renee dube")).toEqual(["Renée"]);
    expect(await restSearch(client, "SOCIÉTÉ")).toEqual(["Renée"]);
  });
});
