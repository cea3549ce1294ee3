import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, workspaces } from "../../src/server/db/schema";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall as trpc } from "../helpers";

/**
 * One phone rule (issue 14 section 4, src/server/lib/phone.ts): valid numbers only, read in the
 * workspace's default country, the same on contact create/update over REST, tRPC and /api/v1, on
 * imports (invalid numbers kept, flagged to the user, unreachable) and on campaign recipients.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("phone rule", () => {
  it("contact create/update refuse invalid numbers with a sentence, over REST and tRPC", async () => {
    const { client } = await signUp(t.app);
    for (const phone of ["555-1234", "(188)169-1674x58692", "+1 555 123 4567"]) {
      const r = await client.post("/api/contacts", {
        first_name: "A",
        email: `a${phone.length}@x.example`,
        phone,
      });
      expect(r.statusCode, phone).toBe(400);
      const msg = r.json().error as string;
      expect(msg).toContain(`'${phone}' is not a valid phone number. Please include the area code`);
      expect(msg).not.toMatch(/^phone:/);
      const viaTrpc = await trpc(client, "crm.create", { first_name: "A", email: "t@x.example", phone });
      expect(viaTrpc.status).toBe(400);
      expect(viaTrpc.error?.message).toBe(msg);
    }
    const ok = await client.post("/api/contacts", {
      first_name: "Maria",
      email: "maria@x.example",
      phone: "(415) 555-0132 x7",
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const id = ok.json().contact.id as number;
    expect(ok.json().contact).toMatchObject({ phone: "(415) 555-0132 x7", phone_e164: "+14155550132" });
    const bad = await client.put(`/api/contacts/${id}`, { mobile: "12" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/^'12' is not a valid mobile number/);
  });

  it("reads national numbers in the workspace's default country (REST, tRPC, v1)", async () => {
    const u = await signUp(t.app);
    const bad = await u.client.inject({
      method: "PATCH",
      url: "/api/workspaces/current",
      payload: { phone_country: "XX" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain("Phone country must be a two-letter country code such as US or GB");
    const set = await u.client.inject({
      method: "PATCH",
      url: "/api/workspaces/current",
      payload: { phone_country: "gb" },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().workspace.phone_country).toBe("GB");

    const rest = await u.client.post("/api/contacts", {
      first_name: "Ann",
      email: "ann@x.example",
      phone: "020 7946 0958",
    });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json().contact.phone_e164).toBe("+442079460958");
    // a US number without +1 is not a UK number
    const us = await u.client.post("/api/contacts", {
      first_name: "Bo",
      email: "bo@x.example",
      phone: "(415) 555-0132",
    });
    expect(us.statusCode).toBe(400);
    const withCode = await trpc(u.client, "crm.create", {
      first_name: "Bo",
      email: "bo@x.example",
      phone: "+1 415 555 0132",
    });
    expect(withCode.status).toBe(200);
    expect(withCode.data.phone_e164).toBe("+14155550132");

    await setPlan(t, u.user.id, "business");
    const key = (await u.client.post("/api/api-keys", { name: "CI", scopes: ["contacts:write"] })).json().key;
    const v1 = await t.app.inject({
      method: "POST",
      url: "/api/v1/contacts",
      headers: { authorization: `Bearer ${key}` },
      payload: { first_name: "Cy", email: "cy@x.example", phone: "020 7946 0001" },
    });
    expect(v1.statusCode, v1.body).toBeLessThan(300);
    expect(v1.json().phone_e164).toBe("+442079460001");
  });

  it("import keeps rows with invalid numbers, flags them, and they are not reachable", async () => {
    const { client, user } = await signUp(t.app);
    const r = await client.post("/api/contacts/import", {
      contacts: [
        { first_name: "Ok", email: "ok@x.example", phone: "(989) 555-0142" },
        { first_name: "Bad", email: "bad@x.example", phone: "(188)169-1674x58692" },
        { first_name: "None", email: "none@x.example" },
      ],
    });
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ imported: 3, errors: 0, phone_invalid: 1 });
    expect(body.error_rows).toEqual([
      {
        line: 2,
        kept: true,
        field: "phone",
        reason:
          "'(188)169-1674x58692' is not a valid phone number: contact imported, but it cannot be texted or called until the number is fixed",
      },
    ]);
    const rows = await t.db.select().from(contacts).where(eq(contacts.workspaceId, user.id));
    const bad = rows.find((c) => c.email === "bad@x.example");
    expect(bad).toMatchObject({ phone: null, phoneRaw: "(188)169-1674x58692" });

    // a number written with dots is quoted whole (the report cut it at its first ".": "'229: contact ...")
    const dotted = await client.post("/api/contacts/import", {
      contacts: [{ first_name: "Dot", email: "dot@x.example", phone: "229.077.5154" }],
    });
    expect(dotted.statusCode, dotted.body).toBe(200);
    expect(dotted.json().error_rows).toEqual([
      {
        line: 1,
        kept: true,
        field: "phone",
        reason:
          "'229.077.5154' is not a valid phone number: contact imported, but it cannot be texted or called until the number is fixed",
      },
    ]);

    // a campaign to them: the invalid number is skipped with a reason, never sent
    await setPlan(t, user.id, "business");
    await t.db.update(contacts).set({ smsOptIn: true }).where(eq(contacts.workspaceId, user.id));
    const pre = await client.post("/api/campaigns/preflight", {
      channel: "sms",
      campaignName: "P",
      message: "Hi",
      contacts: [
        { name: "Ok", phone: "(989) 555-0142" },
        { name: "Bad", phone: "(188)169-1674x58692" },
      ],
    });
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json().skipped["no valid email or phone number"]).toBe(1);
  });
});

it("the workspace column defaults to US", async () => {
  const { user } = await signUp(t.app);
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
  expect(w?.phoneCountry).toBe("US");
});
