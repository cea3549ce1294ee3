import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// A contact who opted out of email (email_opt_in = no) must not be opted back in by a re-import
// (on_duplicate=update) whose row says nothing about opt-in: an empty cell, or a JSON row without the
// key while other rows of the same import have it. Only a row that says "yes" changes the flag.

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

async function optIns(workspaceId: string, email: string) {
  const [c] = await t.db
    .select({ email: contacts.emailOptIn, sms: contacts.smsOptIn, call: contacts.callOptIn })
    .from(contacts)
    .where(
      and(eq(contacts.workspaceId, workspaceId), sql`lower(${contacts.email}) = ${email.toLowerCase()}`),
    );
  return c;
}

function multipart(name: string, content: string, fields: Record<string, string>) {
  const boundary = `----optout${Date.now()}`;
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  );
  return {
    payload: parts.join(""),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

describe("a re-import does not opt a contact back in", () => {
  it("JSON import (update): a row without the opt-in keys keeps the contact's opt-outs; the next campaign skips them", async () => {
    const { client, user } = await account();
    const email = `optout-json-${Date.now()}@example.com`;
    const other = `optin-json-${Date.now()}@example.com`;
    const first = await client.post("/api/contacts/import", {
      contacts: [{ first_name: "Olive", email, email_opt_in: "no", sms_opt_in: "yes", call_opt_in: "yes" }],
    });
    expect(first.json()).toMatchObject({ created: 1 });
    expect(await optIns(user.id, email)).toEqual({ email: false, sms: true, call: true });
    // a later list: this row says nothing about opt-in (another row does), and an empty value
    const again = await client.post("/api/contacts/import", {
      on_duplicate: "update",
      contacts: [
        { first_name: "Olivia", email: email.toUpperCase() },
        { first_name: "Ned", email: other, email_opt_in: "yes", sms_opt_in: "", call_opt_in: "" },
      ],
    });
    expect(again.json()).toMatchObject({ created: 1, updated: 1, errors: 0 });
    expect(await optIns(user.id, email)).toEqual({ email: false, sms: true, call: true });
    // a new contact's unstated opt-ins still get the defaults
    expect(await optIns(user.id, other)).toEqual({ email: true, sms: false, call: false });
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "After import",
      subject: "S",
      body: "B",
      contacts: [{ name: "Olivia", email }],
    });
    expect(launch.statusCode).toBe(422);
    expect(launch.json().skipped).toEqual({ "opted out of email": 1 });
    expect(await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, email))).toHaveLength(0);
  });

  it("CSV upload (update): an empty opt-in cell keeps the contact's opt-out; 'yes' still opts in", async () => {
    const { client, user } = await account();
    const a = `optout-csv-a-${Date.now()}@example.com`;
    const b = `optout-csv-b-${Date.now()}@example.com`;
    const upload = async (csv: string, fields: Record<string, string> = {}) => {
      const { payload, headers } = multipart("people.csv", csv, fields);
      const res = await client.inject({
        method: "POST",
        url: "/api/contacts/import/upload",
        payload,
        headers,
      });
      expect(res.statusCode, res.body).toBe(202);
      return (await client.get(`/api/contacts/imports/${res.json().import.id}`)).json().import;
    };
    await upload(`email,first_name,email_opt_in\n${a},Al,no\n${b},Bo,no\n`);
    const imp = await upload(`email,first_name,email_opt_in\n${a},Alan,\n${b},Bob,yes\n`, {
      on_duplicate: "update",
    });
    expect(imp).toMatchObject({ status: "completed", updated: 2, errors: 0 });
    expect((await optIns(user.id, a)).email).toBe(false);
    expect((await optIns(user.id, b)).email).toBe(true);
  });
});
