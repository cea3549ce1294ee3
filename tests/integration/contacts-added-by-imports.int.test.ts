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

// Contacts record who added them (contacts.created_by, migration 0064; the contact page's "Added by
// Cara Member"), but two ways a person adds contacts recorded nobody: the app's JSON import
// (POST /api/contacts/import, tRPC crm.importRows) and a campaign launched with rows of its own (a
// CSV of recipients, whose new contacts the launch creates). Both now record the person; a contact
// that already existed keeps who added it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function addedBy(client: AuthedClient, email: string): Promise<string | null> {
  const list = await client.get(`/api/contacts?search=${encodeURIComponent(email)}`);
  expect(list.statusCode, list.body).toBe(200);
  const [row] = list.json().contacts as { id: number }[];
  expect(row, email).toBeDefined();
  const detail = await client.get(`/api/contacts/${row!.id}`);
  expect(detail.statusCode, detail.body).toBe(200);
  return detail.json().added_by_name;
}

describe("contacts a person adds in bulk say who added them", () => {
  it("the JSON import over REST and tRPC records the importer; an existing contact keeps its adder", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner" });
    await setPlan(t, owner.user.id, "business");
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const kept = uniqueEmail("kept");
    const first = await owner.client.post("/api/contacts", { first_name: "Kept", email: kept });
    expect(first.statusCode, first.body).toBe(200);

    const viaRest = uniqueEmail("rest");
    const rest = await cara.client.post("/api/contacts/import", {
      contacts: [
        { first_name: "Rest", email: viaRest },
        { first_name: "Kept again", email: kept },
      ],
      on_duplicate: "update",
    });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ created: 1, updated: 1 });

    const viaTrpc = uniqueEmail("trpc");
    const trpc = await trpcCall(cara.client, "crm.importRows", {
      contacts: [{ first_name: "Trpc", email: viaTrpc }],
    });
    expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);

    expect(await addedBy(owner.client, viaRest)).toBe("Cara Member");
    expect(await addedBy(owner.client, viaTrpc)).toBe("Cara Member");
    expect(await addedBy(owner.client, kept)).toBe("Ana Owner");
  });

  it("a campaign launched with its own rows records its launcher on the contacts it creates", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const known = uniqueEmail("known");
    const before = await owner.client.post("/api/contacts", { first_name: "Known", email: known });
    expect(before.statusCode, before.body).toBe(200);
    const fresh = uniqueEmail("fresh");
    const launched = await ben.client.post("/api/campaigns", {
      name: "Spring offer",
      channel: "email",
      content: { subject: "Hi", body: "Hello {{name|there}}" },
      recipients: { csv: [{ name: "Fresh Person", email: fresh }, { email: known }] },
    });
    expect(launched.statusCode, launched.body).toBe(200);
    expect(await addedBy(owner.client, fresh)).toBe("Ben Admin");
    expect(await addedBy(owner.client, known)).toBe("Ana Owner");
  });
});
