import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_STORED_ERRORS } from "../../src/server/features/crm/crm.import";
import { importCsv } from "../contacts-import";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// A file import's report counts (phone_invalid, fields_cleared, opt_outs_kept) were counted from the
// row reports it stores, which stop at MAX_STORED_ERRORS (10,000): a file with more such rows said
// 10,000. They are the importer's own counts now (contact_imports columns, migration 0062).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("a file import's report counts", () => {
  it("count every row past the 10,000 stored row reports", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "enterprise");
    const n = MAX_STORED_ERRORS + 5;
    const s = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
    // every row: an unusable phone and a website that is not a web address (two reports a row)
    const lines = ["first_name,email,phone,website"];
    for (let i = 0; i < n; i++) lines.push(`P${i},p${i}-${s}@example.com,12,not a site`);
    const imp = await importCsv(client, `${lines.join("\n")}\n`, {}, "many.csv");
    expect(imp).toMatchObject({
      status: "completed",
      created: n,
      phone_invalid: n,
      fields_cleared: n,
      opt_outs_kept: 0,
    });
    // the stored reports stop where they did
    const errorsCsv = await client.get(`/api/contacts/imports/${imp.id}/errors.csv`);
    expect(errorsCsv.statusCode).toBe(200);
    expect(errorsCsv.body.trim().split(/\r?\n/).length - 1).toBeLessThanOrEqual(MAX_STORED_ERRORS);
  }, 120_000);
});
