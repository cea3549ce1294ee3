import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { importCsv } from "../contacts-import";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// An import in update mode (existing contacts matched by email) that leaves the lifecycle stage, lead
// status or lead score empty (an empty CSV cell; a JSON row without the key, or with null or "", while
// other rows of the same import have it) keeps the contact's stored value: the insert's defaults
// (lead / new / 0) are for new contacts only. A stated value still applies. The three paths are the
// CSV upload, the JSON import (POST /api/contacts/import) and the v1 bulk upsert (POST /api/v1/contacts/bulk).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

async function account() {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "enterprise");
  return s;
}

async function lead(workspaceId: string, email: string) {
  const [c] = await t.db
    .select({
      first: contacts.firstName,
      stage: contacts.lifecycleStage,
      status: contacts.leadStatus,
      score: contacts.leadScore,
    })
    .from(contacts)
    .where(
      and(eq(contacts.workspaceId, workspaceId), sql`lower(${contacts.email}) = ${email.toLowerCase()}`),
    );
  return c;
}

const SEEDED = { stage: "customer", status: "qualified", score: 80 };

describe("an update import keeps the stored stage, status and score when the value is blank", () => {
  it("CSV upload (update): empty cells keep them; stated values still apply; new rows get the defaults", async () => {
    const { client, user } = await account();
    const stamp = Date.now();
    const a = `blank-csv-a-${stamp}@example.com`;
    const b = `blank-csv-b-${stamp}@example.com`;
    const c = `blank-csv-c-${stamp}@example.com`;
    const upload = (csv: string, fields: Record<string, string> = {}) => importCsv(client, csv, fields);
    const header = "email,first_name,lifecycle_stage,lead_status,lead_score";
    await upload(`${header}\n${a},Al,customer,qualified,80\n${b},Bo,customer,qualified,80\n`);
    expect(await lead(user.id, a)).toEqual({ first: "Al", ...SEEDED });
    const imp = await upload(`${header}\n${a},Alan,,,\n${b},Bob,prospect,contacted,0\n${c},Cy,,,\n`, {
      on_duplicate: "update",
    });
    expect(imp).toMatchObject({ status: "completed", created: 1, updated: 2, errors: 0 });
    // blank cells: the row's other columns are updated, the three keep what was stored
    expect(await lead(user.id, a)).toEqual({ first: "Alan", ...SEEDED });
    // stated values (0 included) replace the stored ones
    expect(await lead(user.id, b)).toEqual({
      first: "Bob",
      stage: "prospect",
      status: "contacted",
      score: 0,
    });
    // a new contact's blanks get the defaults
    expect(await lead(user.id, c)).toEqual({ first: "Cy", stage: "lead", status: "new", score: 0 });
  });

  it("JSON import (update): a missing key, null or an empty string keeps them", async () => {
    const { client, user } = await account();
    const stamp = Date.now();
    const emails = [0, 1, 2, 3].map((i) => `blank-json-${i}-${stamp}@example.com`);
    const first = await client.post("/api/contacts/import", {
      contacts: emails.map((email) => ({
        first_name: "Old",
        email,
        lifecycle_stage: "customer",
        lead_status: "qualified",
        lead_score: 80,
      })),
    });
    expect(first.json()).toMatchObject({ created: 4, errors: 0 });
    const again = await client.post("/api/contacts/import", {
      on_duplicate: "update",
      contacts: [
        { first_name: "NoKeys", email: emails[0] },
        { first_name: "Nulls", email: emails[1], lifecycle_stage: null, lead_status: null, lead_score: null },
        { first_name: "Empty", email: emails[2], lifecycle_stage: "", lead_status: "", lead_score: "" },
        {
          first_name: "Stated",
          email: emails[3],
          lifecycle_stage: "lead",
          lead_status: "new",
          lead_score: 5,
        },
      ],
    });
    expect(again.json()).toMatchObject({ updated: 4, errors: 0 });
    expect(await lead(user.id, emails[0]!)).toEqual({ first: "NoKeys", ...SEEDED });
    expect(await lead(user.id, emails[1]!)).toEqual({ first: "Nulls", ...SEEDED });
    expect(await lead(user.id, emails[2]!)).toEqual({ first: "Empty", ...SEEDED });
    expect(await lead(user.id, emails[3]!)).toEqual({
      first: "Stated",
      stage: "lead",
      status: "new",
      score: 5,
    });
  });

  it("v1 bulk upsert: a row without the keys keeps them", async () => {
    const { client, user } = await account();
    const keyRes = await client.post("/api/api-keys", { name: "bulk", scopes: ["contacts:write"] });
    expect(keyRes.statusCode, keyRes.body).toBe(200);
    const key = keyRes.json().key as string;
    const bulk = (body: unknown) =>
      t.app.inject({
        method: "POST",
        url: "/api/v1/contacts/bulk",
        headers: { authorization: `Bearer ${key}` },
        payload: body as object,
      });
    const stamp = Date.now();
    const a = `blank-v1-a-${stamp}@example.com`;
    const b = `blank-v1-b-${stamp}@example.com`;
    const seed = await bulk({
      contacts: [a, b].map((email) => ({
        first_name: "Old",
        email,
        lifecycle_stage: "customer",
        lead_status: "qualified",
        lead_score: 80,
      })),
    });
    expect(seed.statusCode, seed.body).toBe(200);
    const res = await bulk({
      contacts: [
        { first_name: "Ann", email: a },
        { first_name: "Ben", email: b, lifecycle_stage: "subscriber", lead_status: null, lead_score: 40 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ updated: 2, errors: 0 });
    expect(await lead(user.id, a)).toEqual({ first: "Ann", ...SEEDED });
    expect(await lead(user.id, b)).toEqual({
      first: "Ben",
      stage: "subscriber",
      status: "qualified",
      score: 40,
    });
  });
});
