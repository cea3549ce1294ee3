import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("the contacts CSV export holds what the list shows", () => {
  it("a misspelt search the list corrects (Pembertn -> Pemberton) exports the corrected results", async () => {
    const { client } = await signUp(t.app);
    for (const [first_name, last_name, email] of [
      ["Jonathan", "Pemberton", "jp@pemberton.example"],
      ["Ada", "Lovelace", "ada@lovelace.example"],
    ])
      expect((await client.post("/api/contacts", { first_name, last_name, email })).statusCode).toBe(200);
    const list = await client.get("/api/contacts?search=Pembertn");
    expect(list.statusCode).toBe(200);
    const emails = (list.json().contacts as { email: string }[]).map((c) => c.email);
    expect(emails).toEqual(["jp@pemberton.example"]);

    const csv = await client.get("/api/contacts/export.csv?search=Pembertn");
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split(/\r\n/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("jp@pemberton.example");
    expect(csv.body).not.toContain("ada@lovelace.example");

    // a term that matches as typed is exported as typed (no correction)
    const exact = await client.get("/api/contacts/export.csv?search=Lovelace");
    expect(exact.body.trim().split(/\r\n/)).toHaveLength(2);
    expect(exact.body).toContain("ada@lovelace.example");
    // nothing like it: only the header
    const none = await client.get("/api/contacts/export.csv?search=Zzzzqqq");
    expect(none.body.trim().split(/\r\n/)).toHaveLength(1);
  });
});
