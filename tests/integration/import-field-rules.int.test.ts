import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { importCsv } from "../contacts-import";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// Every import path applies the contact's web address and time zone rules (crm.schemas isWebAddress,
// isTimeZone; single-contact create/update refuse such values, see contact-field-rules.int). Before,
// a CSV, JSON or v1 bulk import stored `javascript:alert(1)` as a website and `Mars/Base` as a time
// zone. The row is imported with that field left empty, and listed in the report as kept, with its
// line, the field and the rule; an existing contact keeps its stored value.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const BAD_WEB = "javascript:alert(1)";
const BAD_TZ = "Mars/Base";

async function user() {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "business");
  return s;
}

/** The workspace's contacts by email: website, linkedin, facebook, time zone. */
async function stored(workspaceId: string) {
  const rows = await t.db.select().from(contacts).where(eq(contacts.workspaceId, workspaceId));
  return new Map(
    rows.map((c) => [
      c.email,
      { website: c.website, linkedin: c.linkedinUrl, facebook: c.facebookUrl, timezone: c.timezone },
    ]),
  );
}

type Row = { line: number; reason: string; kept: boolean; field?: string };

/** The report's kept rows about cleared fields, as [line, field] pairs, and checks their sentences. */
function clearedOf(rows: Row[]) {
  const cleared = rows.filter((e) => e.kept && e.field && !["phone", "mobile"].includes(e.field));
  for (const e of cleared) {
    expect(e.reason, JSON.stringify(e)).toMatch(/contact imported without it$/);
    if (e.field === "timezone") expect(e.reason).toMatch(/^Timezone 'Mars\/Base' must be a time zone name/);
    else expect(e.reason).toMatch(/must be a web address starting with https:\/\/ or http:\/\//);
  }
  return cleared.map((e) => [e.line, e.field]);
}

describe("imports apply the contact's web address and time zone rules", () => {
  it("CSV file: bad website, profile URLs and time zone are left empty and reported by line and field", async () => {
    const { client, user: u } = await user();
    const csv = [
      "Email,First Name,Website,LinkedIn,Facebook,Time Zone",
      `a@x.example,Ann,${BAD_WEB},https://linkedin.com/in/ann,facebook.com/ann,${BAD_TZ}`,
      "b@x.example,Bob,example.com,vbscript:msgbox(1),data:text/html;base64,America/Chicago",
      "c@x.example,Cy,https://cy.example,,,Etc/GMT+5",
    ].join("\n");
    const imp = await importCsv(client, csv);
    expect(imp).toMatchObject({ status: "completed", imported: 3, errors: 0, fields_cleared: 2 });
    expect(imp.phone_invalid).toBe(0);
    expect(clearedOf(imp.error_rows)).toEqual([
      [2, "website"],
      [2, "timezone"],
      [3, "linkedin_url"],
      [3, "facebook_url"],
    ]);
    const byEmail = await stored(u.id);
    expect(byEmail.get("a@x.example")).toEqual({
      website: null,
      linkedin: "https://linkedin.com/in/ann",
      facebook: "facebook.com/ann",
      timezone: null,
    });
    expect(byEmail.get("b@x.example")).toEqual({
      website: "example.com",
      linkedin: null,
      facebook: null,
      timezone: "America/Chicago",
    });
    expect(byEmail.get("c@x.example")?.timezone).toBe("Etc/GMT+5");
    // the downloadable report lists them as imported ("yes")
    const report = await client.get(`/api/contacts/imports/${imp.id}/errors.csv`);
    expect(report.body).toContain("Mars/Base");
    expect(report.body).toMatch(/,yes\r?\n/);
  });

  it("JSON import (POST /api/contacts/import) and v1 bulk: the same rows, the same report; an update keeps the stored value", async () => {
    const { client, user: u } = await user();
    const rows = [
      { first_name: "Ann", email: "a@y.example", website: BAD_WEB, timezone: BAD_TZ },
      { first_name: "Bob", email: "b@y.example", website: "bob.example", timezone: "Europe/Paris" },
      { first_name: "Cy", email: "c@y.example", facebook_url: "file:///etc/passwd", phone: "12" },
    ];
    const res = await client.post("/api/contacts/import", { contacts: rows });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ imported: 3, errors: 0, phone_invalid: 1, fields_cleared: 2 });
    expect(clearedOf(body.error_rows)).toEqual([
      [1, "website"],
      [1, "timezone"],
      [3, "facebook_url"],
    ]);
    // the invalid phone of the same row stays its own report
    expect(body.error_rows.filter((e: Row) => e.field === "phone").map((e: Row) => e.line)).toEqual([3]);
    const first = await stored(u.id);
    expect(first.get("a@y.example")).toMatchObject({ website: null, timezone: null });
    expect(first.get("c@y.example")?.facebook).toBeNull();

    // v1 bulk (update by email): Bob's bad values are reported, his stored ones kept
    await setPlan(t, u.id, "business");
    const key = (await client.post("/api/api-keys", { name: "Bulk", scopes: ["contacts:write"] })).json()
      .key as string;
    const v1 = await t.app.inject({
      method: "POST",
      url: "/api/v1/contacts/bulk",
      headers: { authorization: `Bearer ${key}` },
      payload: {
        contacts: [
          { email: "b@y.example", website: BAD_WEB, timezone: BAD_TZ, linkedin_url: "javascript:void(0)" },
          { email: "d@y.example", first_name: "Dee", timezone: "Asia/Tokyo" },
        ],
      },
    });
    expect(v1.statusCode, v1.body).toBe(200);
    // Bob's row holds nothing but values refused: his contact is left as it was (skipped), and the
    // refused values are still reported
    expect(v1.json()).toMatchObject({ created: 1, updated: 0, skipped: 1, errors: 0, fields_cleared: 1 });
    expect(clearedOf(v1.json().error_rows)).toEqual([
      [1, "website"],
      [1, "linkedin_url"],
      [1, "timezone"],
    ]);
    const after = await stored(u.id);
    expect(after.get("b@y.example")).toEqual({
      website: "bob.example",
      linkedin: null,
      facebook: null,
      timezone: "Europe/Paris",
    });
    expect(after.get("d@y.example")?.timezone).toBe("Asia/Tokyo");
  });
});
