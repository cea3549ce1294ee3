import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCsv } from "../contacts-import";
import { createTestApp, signUp, type TestApp } from "../helpers";

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
