import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { importCsv } from "../contacts-import";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall } from "../helpers";

// One rule for a contact's email address: what an import stores (crm.import validateImportRow), the
// Add Contact form and the edit form accept. The forms used zod's ASCII-only email pattern, so a
// contact imported as "josé@..." (RFC 6531 allows a UTF-8 local part) or "o!reilly@..." could not be
// saved from the edit form: changing only its phone answered 400 'Please enter a valid email address'
// about an address the person never touched.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const stamp = () => `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;

describe("a contact's email: one rule for imports and the forms", () => {
  it("an imported contact whose address zod's ASCII pattern refuses can be edited and saved", async () => {
    const { client } = await signUp(t.app);
    const s = stamp();
    const addresses = [
      `jos\u00e9.${s}@example.com`,
      `o!reilly.${s}@example.com`,
      `m\u00fcller.${s}@bücher.de`,
    ];
    const imported = await importCsv(
      client,
      `first_name,email\n${addresses.map((a, i) => `P${i},${a}`).join("\n")}\n`,
    );
    expect(imported).toMatchObject({ created: 3, errors: 0 });
    for (const address of addresses) {
      const list = await client.get(`/api/contacts?search=${encodeURIComponent(address.split("@")[0]!)}`);
      const contact = (list.json().contacts as { id: string; email: string; first_name: string }[]).find(
        (c) => c.email === address,
      );
      expect(contact, address).toBeTruthy();
      // the edit form sends the fields back with the one the person changed
      const saved = await client.put(`/api/contacts/${contact!.id}`, {
        first_name: contact!.first_name,
        email: contact!.email,
        phone: "+12125550123",
      });
      expect(saved.statusCode, `${address}: ${saved.body}`).toBe(200);
      expect(saved.json().contact).toMatchObject({ email: address, phone: "+12125550123" });
    }
  });

  it("Add Contact accepts the addresses an import accepts, and refuses what an import refuses", async () => {
    const { client } = await signUp(t.app);
    const s = stamp();
    const ok = await client.post("/api/contacts", {
      first_name: "José",
      email: `JOS\u00c9.${s}@Example.com`,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().contact.email).toBe(`jos\u00e9.${s}@example.com`);
    for (const bad of [
      "no-at-sign.example.com",
      `two@@example.com`,
      `a b.${s}@example.com`,
      `x.${s}@nodot`,
    ]) {
      const res = await client.post("/api/contacts", { first_name: "Bad", email: bad });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error).toContain("Please enter a valid email address");
      const imported = await importCsv(client, `first_name,email\nBad,${bad}\n`);
      expect(imported, bad).toMatchObject({ created: 0, errors: 1 });
    }
  });
});

describe("a local part's dots (RFC 5321 dot-atom)", () => {
  // a QA pass: the contact form and REST accepted "qa3-a..b@example.com", which mail servers refuse
  const dotted = (s: string) => [
    `qa3-a..b.${s}@example.com`,
    `.qa3.${s}@example.com`,
    `qa3.${s}.@example.com`,
  ];

  it("two dots in a row, or a leading or trailing dot, are refused by the form, REST, tRPC, imports and campaign rows", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const s = stamp();
    const ok = await client.post("/api/contacts", { first_name: "Dot", email: `qa3-a.b.${s}@example.com` });
    expect(ok.statusCode, ok.body).toBe(200);
    for (const bad of dotted(s)) {
      const res = await client.post("/api/contacts", { first_name: "Bad", email: bad });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error).toContain("Please enter a valid email address");
      const edit = await client.put(`/api/contacts/${ok.json().contact.id}`, { email: bad });
      expect(edit.statusCode, bad).toBe(400);
      expect(edit.json().error).toContain("Please enter a valid email address");
      const viaTrpc = await trpcCall(client, "crm.create", { first_name: "Bad", email: bad });
      expect(viaTrpc.status, bad).toBe(400);
      const imported = await importCsv(client, `first_name,email\nBad,${bad}\n`);
      expect(imported, bad).toMatchObject({ created: 0, errors: 1 });
    }
    // a campaign list row with such an address and no phone makes no contact and is skipped
    const launched = await client.post("/api/campaigns", {
      name: "Dots",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { csv: [{ email: `qa3-a.b.${s}@example.com` }, ...dotted(s).map((email) => ({ email }))] },
    });
    expect(launched.statusCode, launched.body).toBe(200);
    expect(launched.json()).toMatchObject({
      recipients: 1,
      skipped: { "no valid email or phone number": 3 },
    });
    const [{ n }] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(contacts)
      .where(eq(contacts.workspaceId, user.id));
    expect(n).toBe(1);
  });
});
