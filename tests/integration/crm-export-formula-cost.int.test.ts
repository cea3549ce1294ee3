import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTACT_TEXT_LIMITS } from "../../src/server/features/crm/crm.schemas";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// Attack re-test: the formula escape of every CSV the app writes (lib/csv CSV_FORMULA_ESCAPE) was
// quadratic in a cell's length for text like "-111...1x" (a near-number: the number rule's two runs
// of digits were tried at every split). A workspace whose contacts hold such values at the fields'
// lengths (100 to 500 characters) made GET /api/contacts/export.csv spend 10 s of the server's one
// thread on 5,000 contacts against 0.6 s for as much plain text: 25,000 contacts on Business froze
// every other request for about a minute, an Enterprise workspace's million for half an hour.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const COUNT = 3000;
/** The exported free-text fields a CSV import keeps as written, at their longest. */
const FIELDS = [
  "first_name",
  "last_name",
  "company",
  "job_title",
  "street_address",
  "city",
  "state",
  "country",
  "lead_source",
  "twitter_handle",
  "instagram_handle",
  "linkedin_url",
  "facebook_url",
] as const;

/** A workspace on Business with COUNT contacts whose FIELDS are `value(length)`; its export's time (ms) and text. */
async function exportOf(value: (length: number) => string) {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const fields = Object.fromEntries(FIELDS.map((f) => [f, value(CONTACT_TEXT_LIMITS[f])]));
  const contacts = Array.from({ length: COUNT }, (_, i) => ({ ...fields, email: `x${i}@example.com` }));
  const imported = await u.client.post("/api/contacts/import", { contacts });
  expect(imported.statusCode, imported.body).toBe(200);
  expect(imported.json().created).toBe(COUNT);
  const started = performance.now();
  const res = await u.client.get("/api/contacts/export.csv");
  const ms = performance.now() - started;
  expect(res.statusCode).toBe(200);
  return { ms, body: res.body };
}

describe("contacts export of formula-like values", () => {
  it("costs about what as many other escaped cells cost, and every such cell is still escaped", async () => {
    // the baseline is escaped and quoted too ("'=aaa..."), so both exports write as much
    const plain = await exportOf((n) => `=${"a".repeat(n - 1)}`);
    const hostile = await exportOf((n) => `-${"1".repeat(n - 2)}x`);
    const row = hostile.body.split("\r\n")[1] as string;
    expect(row).toContain(`"'-${"1".repeat(CONTACT_TEXT_LIMITS.company - 2)}x"`);
    expect(hostile.ms, `hostile ${Math.round(hostile.ms)} ms, plain ${Math.round(plain.ms)} ms`).toBeLessThan(
      2 * plain.ms + 300,
    );
  });
});
