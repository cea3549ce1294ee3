import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

// The import summary against what was written: a row is listed as "imported with an invalid phone"
// (kept) only when it really was written.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("JSON import summary", () => {
  it("rows with an invalid phone that the plan limit rejected, or that were skipped as duplicates, are not reported as kept", async () => {
    const { client, user } = await signUp(t.app); // Free: 100 contacts
    const s = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
    await findOrCreateContacts(
      t.ctx,
      user.id,
      Array.from({ length: 97 }, (_, i) => ({ name: `C ${i}`, email: `c${i}-${s}@example.com` })),
    );
    const rows = [
      { first_name: "Dup", email: `c0-${s}@example.com`, phone: "12" }, // existing: skipped
      { first_name: "New1", email: `n1-${s}@example.com`, phone: "12" }, // created (98)
      { first_name: "New2", email: `n2-${s}@example.com`, phone: "12" }, // created (99)
      { first_name: "New3", email: `n3-${s}@example.com`, phone: "12" }, // created (100)
      { first_name: "New4", email: `n4-${s}@example.com`, phone: "12" }, // over the limit
      { first_name: "New5", email: `n5-${s}@example.com`, phone: "12" }, // over the limit
    ];
    const res = await client.post("/api/contacts/import", { contacts: rows });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const written = await t.db
      .select({ email: contacts.email, phone: contacts.phone })
      .from(contacts)
      .where(
        and(
          eq(contacts.workspaceId, user.id),
          inArray(
            contacts.email,
            rows.map((r) => r.email),
          ),
        ),
      );
    expect(written).toHaveLength(4);
    expect({
      created: body.created,
      updated: body.updated,
      skipped: body.skipped,
      errors: body.errors,
    }).toEqual({
      created: 3,
      updated: 0,
      skipped: 1,
      errors: 2,
    });
    const kept = body.error_rows
      .filter((e: { kept: boolean }) => e.kept)
      .map((e: { line: number }) => e.line);
    const rejected = body.error_rows
      .filter((e: { kept: boolean }) => !e.kept)
      .map((e: { line: number }) => e.line);
    expect(rejected).toEqual([5, 6]);
    // only the three created rows were kept with their number as typed
    expect(kept).toEqual([2, 3, 4]);
    expect(body.phone_invalid).toBe(3);
  });
});
