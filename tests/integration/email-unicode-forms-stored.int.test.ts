import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, users } from "../../src/server/db/schema";
import {
  addBusinessContacts,
  findOrCreateContacts,
  matchContactsByAddress,
} from "../../src/server/features/crm/crm.service";
import { importCsv } from "../contacts-import";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// One mailbox written two ways: "josé@" with a precomposed é (NFC, U+00E9) and with e + a combining
// acute accent (NFD, U+0065 U+0301) are one address (RFC 6532 section 3.1). The contacts' unique
// index (workspace_id, lower(email)) and the users' (lower(email)) compare the stored text, so the
// server stores every address in NFC: each path that writes or looks one up below is given the
// other form of an address it already holds and must treat it as that address, the way it treats
// an exact (or upper-cased) repeat.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const stamp = () => `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
/** The NFC and NFD forms of one address whose local part holds an é. */
function forms(prefix: string) {
  const s = stamp();
  const nfc = `${prefix}jos\u00e9.${s}@example.com`;
  const nfd = `${prefix}jose\u0301.${s}@example.com`;
  expect(nfc).not.toBe(nfd);
  expect(nfd.normalize("NFC")).toBe(nfc);
  return { nfc, nfd };
}

/** The workspace's contacts whose email is either form of `nfc` (compared in NFC), as stored. */
async function storedForms(workspaceId: string, nfc: string) {
  const rows = await t.db
    .select({ id: contacts.id, email: contacts.email })
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        sql`normalize(lower(${contacts.email}), NFC) = ${nfc.toLowerCase()}`,
      ),
    );
  return rows;
}

describe("an email address in its composed (NFC) and decomposed (NFD) forms is one contact", () => {
  it("a CSV import holding both forms creates one contact, in NFC; the second row is the file's duplicate", async () => {
    const { client, user } = await signUp(t.app);
    const { nfc, nfd } = forms("csv.");
    const done = await importCsv(
      client,
      `first_name,email\nJosé,${nfc}\nJosé again,${nfd.toUpperCase()}\nOther,other.${stamp()}@example.com\n`,
    );
    expect(done.created).toBe(2);
    expect(done.error_rows).toEqual([
      { line: 3, reason: `Duplicate email ${nfc}, already on line 2`, kept: false },
    ]);
    expect((await storedForms(user.id, nfc)).map((r) => r.email)).toEqual([nfc]);
  });

  it("a JSON import of the other form of an existing contact's address is the existing contact (skipped / updated)", async () => {
    const { client, user } = await signUp(t.app);
    const { nfc, nfd } = forms("json.");
    const first = await client.post("/api/contacts/import", {
      contacts: [{ first_name: "José", email: nfd }],
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().created).toBe(1);
    // the exact repeat and the other form are both skipped (on_duplicate skip, the default)
    const again = await client.post("/api/contacts/import", {
      contacts: [{ first_name: "Same", email: nfd }],
    });
    expect(again.json()).toMatchObject({ created: 0, skipped: 1 });
    const other = await client.post("/api/contacts/import", {
      contacts: [{ first_name: "Composed", email: ` ${nfc.toUpperCase()} ` }],
    });
    expect(other.json()).toMatchObject({ created: 0, skipped: 1 });
    // and updated in update mode
    const update = await client.post("/api/contacts/import", {
      contacts: [{ first_name: "Updated", email: nfc }],
      on_duplicate: "update",
    });
    expect(update.json()).toMatchObject({ created: 0, updated: 1 });
    const stored = await storedForms(user.id, nfc);
    expect(stored.map((r) => r.email)).toEqual([nfc]);
  });

  it("campaign CSV recipients and the preflight's match find the contact by the other form", async () => {
    const { user } = await signUp(t.app);
    const { nfc, nfd } = forms("rcpt.");
    const [id] = await findOrCreateContacts(t.ctx, user.id, [{ name: "José Composed", email: nfc }]);
    // an exact repeat maps to the same contact, and so does the other form
    expect(await findOrCreateContacts(t.ctx, user.id, [{ email: nfc.toUpperCase() }])).toEqual([id]);
    expect(await findOrCreateContacts(t.ctx, user.id, [{ name: "José Decomposed", email: nfd }])).toEqual([
      id,
    ]);
    expect(await matchContactsByAddress(t.ctx, user.id, [{ email: nfd }, { email: nfc }])).toEqual([id, id]);
    expect((await storedForms(user.id, nfc)).map((r) => r.email)).toEqual([nfc]);
    // a new address given in NFD is stored in NFC
    const fresh = forms("rcpt2.");
    await findOrCreateContacts(t.ctx, user.id, [{ email: fresh.nfd }]);
    expect((await storedForms(user.id, fresh.nfc)).map((r) => r.email)).toEqual([fresh.nfc]);
  });

  it("a lead search business whose email is the other form of a contact's matches that contact", async () => {
    const { user } = await signUp(t.app);
    const { nfc, nfd } = forms("lead.");
    const [id] = await findOrCreateContacts(t.ctx, user.id, [{ name: "José", email: nfc }]);
    const added = await addBusinessContacts(t.ctx, user.id, [
      { placeId: `place-${stamp()}`, name: "José's Bakery", email: nfd, city: "Lyon" },
    ]);
    expect(added).toMatchObject({ created: 0, contactIds: [id] });
    expect((await storedForms(user.id, nfc)).map((r) => r.email)).toEqual([nfc]);
  });
});

describe("an account's address in the other Unicode form", () => {
  it("signs in with either form", async () => {
    // Registration takes ASCII addresses only (zod's email rule), so an account with an é in its
    // address is written here directly, in NFC as the migration 0052 leaves a stored one.
    const { user, password } = await signUp(t.app);
    const { nfc, nfd } = forms("acct.");
    await t.db.update(users).set({ email: nfc }).where(eq(users.id, user.id));
    for (const email of [nfc, nfd, nfd.toUpperCase()]) {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/auth/login",
        payload: { email, password },
      });
      expect(res.statusCode, `${JSON.stringify(email)}: ${res.body}`).toBe(200);
      expect(res.json().user.id).toBe(user.id);
    }
    // the other form cannot register a second account (refused by the email rule before the
    // duplicate check: 400, as it was already)
    const again = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { name: "Twin", email: nfd, password: "correct-horse-battery" },
    });
    expect(again.statusCode).toBe(400);
    // an ASCII address is unaffected
    const plain = uniqueEmail("plain");
    const other = await signUp(t.app, { email: plain });
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: plain, password: other.password },
    });
    expect(res.statusCode).toBe(200);
  });
});
