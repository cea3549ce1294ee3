import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suppress, suppressCallsByKeypress } from "../../src/server/features/compliance/compliance.service";
import { selectAddressesOfContactsNamed } from "../../src/server/features/crm/crm.queries";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";
import { uniquePhone } from "../unique-phone";

// The suppression list could not be seen anywhere (a QA pass). Contacts > Opt-outs lists it through
// tRPC crm.optOutList (channel, address or number, how, date, the contact holding it), searchable,
// filtered by channel, paged, and exported as CSV (GET /api/contacts/opt-outs.csv) with every cell
// formula-safe. A workspace never sees another's opt-outs. Read only: only the person can opt back in.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

type Listed = {
  entries: {
    channel: string;
    value: string;
    reason: string;
    how: string;
    created_at: string;
    contact: { id: number; name: string } | null;
  }[];
  total: number;
  page: number;
  limit: number;
};

async function list(client: Awaited<ReturnType<typeof signUp>>["client"], input: object) {
  const res = await trpcCall(client, "crm.optOutList", input, "query");
  expect(res.status, JSON.stringify(res)).toBe(200);
  return res.data as Listed;
}

describe("Contacts > Opt-outs (crm.optOutList, opt-outs.csv)", () => {
  it("lists the workspace's suppressions with how and the contact, searches, filters, pages; never another workspace's", async () => {
    const s = await signUp(t.app);
    const ws = s.user.id;
    const email = uniqueEmail("ada");
    const made = await s.client.post("/api/contacts", { first_name: "Ada", last_name: "King", email });
    expect(made.statusCode, made.body).toBe(200);
    const adaId = made.json().contact.id as number;
    const phone = await uniquePhone("415");
    await suppress(t.db, ws, "email", email, "unsubscribed", "unsubscribe page", true);
    await suppress(t.db, ws, "sms", phone, "stop_reply", "twilio inbound");
    await suppressCallsByKeypress(t.db, ws, phone);
    const stranger = uniqueEmail("=hyperlink");
    await suppress(t.db, ws, "email", stranger, "hard_bounce", "postmark webhook");

    const all = await list(s.client, {});
    expect(all.total).toBe(5);
    const ada = all.entries.find((e) => e.value === email);
    expect(ada).toMatchObject({
      channel: "email",
      reason: "unsubscribed",
      how: "unsubscribed (unsubscribe page)",
      contact: { id: adaId, name: "Ada King" },
    });
    expect(all.entries.find((e) => e.channel === "sms")).toMatchObject({
      value: phone,
      // a STOP revokes calls and voicemail too (compliance optOutsOf): the list says so
      how: "replied STOP: no texts, calls or voicemail",
      contact: null,
    });
    expect(all.entries.find((e) => e.channel === "voice")?.how).toBe("pressed 9 (during a call)");
    expect(all.entries.find((e) => e.value === stranger)?.contact).toBeNull();

    // search by address, and by reason words; the channel filter ("voice" lists voicemail too)
    expect(
      (await list(s.client, { search: email.slice(0, 8).toUpperCase() })).entries.map((e) => e.value),
    ).toEqual([email]);
    expect((await list(s.client, { search: "bounce" })).entries.map((e) => e.value)).toEqual([stranger]);
    // and by the words the screen shows for a reason
    expect((await list(s.client, { search: "Replied" })).entries.map((e) => e.channel)).toEqual(["sms"]);
    expect((await list(s.client, { search: "pressed 9" })).entries.map((e) => e.channel).sort()).toEqual([
      "voice",
      "voicemail",
    ]);
    // the calls filter lists the STOP too
    expect((await list(s.client, { channel: "voice" })).entries.map((e) => e.channel).sort()).toEqual([
      "sms",
      "voice",
      "voicemail",
    ]);
    expect((await list(s.client, { channel: "sms" })).entries.map((e) => e.channel)).toEqual(["sms"]);
    expect((await list(s.client, { search: "100%_" })).total).toBe(0);
    // pages
    const p1 = await list(s.client, { limit: 2, page: 1 });
    const p3 = await list(s.client, { limit: 2, page: 3 });
    expect(p1.entries).toHaveLength(2);
    expect(p3.entries).toHaveLength(1);
    expect(p1.total).toBe(5);

    // an unknown key or channel is a 400 naming it
    const bad = await trpcCall(s.client, "crm.optOutList", { reason: "x" }, "query");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad)).toContain("reason");
    expect((await trpcCall(s.client, "crm.optOutList", { channel: "fax" }, "query")).status).toBe(400);

    // another workspace sees none of them, in the list or the CSV
    const other = await signUp(t.app);
    expect((await list(other.client, {})).total).toBe(0);
    expect((await list(other.client, { search: email })).entries).toEqual([]);
    const foreignCsv = await other.client.get("/api/contacts/opt-outs.csv");
    expect(foreignCsv.statusCode).toBe(200);
    expect(foreignCsv.body).not.toContain(email);
    // the other workspace's id as the shown workspace is refused, never its data
    const shown = await s.client.get(`/api/contacts/opt-outs.csv?workspace=${other.user.id}`);
    expect(shown.statusCode).toBeGreaterThanOrEqual(400);
    expect(shown.body).not.toContain(email);
  });

  it("exports CSV with formula-starting cells escaped, the same filter, and a closed query", async () => {
    const s = await signUp(t.app);
    const ws = s.user.id;
    const email = `=HYPERLINK("http://evil")${Date.now()}@example.com`.toLowerCase();
    const made = await s.client.post("/api/contacts", {
      first_name: "@SUM(A1)",
      email: uniqueEmail("plain"),
    });
    expect(made.statusCode, made.body).toBe(200);
    await suppress(t.db, ws, "email", email, "spam_complaint", "+cmd|' /C calc'!A0");
    await suppress(t.db, ws, "email", made.json().contact.email, "unsubscribed", "one-click", true);

    const res = await s.client.get("/api/contacts/opt-outs.csv");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/csv");
    expect(res.headers["content-disposition"]).toMatch(
      /attachment; filename="opt-outs-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    const lines = res.body
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe("channel,address,reason,source,how,opted_out_at,contact_id,contact_name");
    expect(lines).toHaveLength(3);
    expect(res.body).toContain(`"'=hyperlink(""http://evil"")`);
    expect(res.body).toContain(`'+cmd|' /C calc'!A0`);
    expect(res.body).toContain(`'@SUM(A1)`);
    expect(res.body).not.toMatch(/(^|,)=hyperlink/m);

    const filtered = await s.client.get("/api/contacts/opt-outs.csv?search=one-click");
    expect(filtered.body.trim().split("\r\n")).toHaveLength(2);
    const bad = await s.client.get("/api/contacts/opt-outs.csv?page=2");
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("page");
  });

  it("finds the opt-outs of the contacts a search names (email, phone or mobile; accents and case ignored), in the list and the CSV", async () => {
    const s = await signUp(t.app);
    const ws = s.user.id;
    const email = uniqueEmail("zoe");
    const mobile = await uniquePhone("415");
    const phone = await uniquePhone("212");
    const zoe = await s.client.post("/api/contacts", {
      first_name: "Zoë",
      last_name: "Quintana-Núñez",
      email,
      mobile,
    });
    expect(zoe.statusCode, zoe.body).toBe(200);
    // a contact of the same family name who opted out of texts only
    const ana = await s.client.post("/api/contacts", {
      first_name: "Ana",
      last_name: "Quintana-Nunez",
      email: uniqueEmail("ana"),
      phone,
    });
    expect(ana.statusCode, ana.body).toBe(200);
    // addresses that hold nothing of the name, and an opt-out of no contact
    await suppress(t.db, ws, "email", email, "unsubscribed", "unsubscribe page", true);
    await suppress(t.db, ws, "sms", mobile, "stop_reply", "twilio inbound");
    await suppress(t.db, ws, "sms", phone, "stop_reply", "twilio inbound");
    await suppress(t.db, ws, "email", uniqueEmail("nobody"), "hard_bounce", "postmark webhook");
    // another workspace's contact of the same name, opted out: never listed here
    const other = await signUp(t.app);
    const foreignEmail = uniqueEmail("foreign");
    await other.client.post("/api/contacts", {
      first_name: "Zoe",
      last_name: "Quintana-Nunez",
      email: foreignEmail,
    });
    await suppress(t.db, other.user.id, "email", foreignEmail, "unsubscribed", "unsubscribe page", true);

    const byFamily = await list(s.client, { search: "quintana-nunez" });
    expect(byFamily.entries.map((e) => e.value).sort()).toEqual([email, mobile, phone].sort());
    expect(byFamily.total).toBe(3);
    expect((byFamily as Listed & { name_match_cap: number | null }).name_match_cap).toBeNull();
    // the full name, typed with its accent or without
    for (const search of ["Zoë Quintana", "zoe quintana"]) {
      const r = await list(s.client, { search });
      expect(r.entries.map((e) => e.value).sort(), search).toEqual([email, mobile].sort());
      expect(r.entries.every((e) => e.contact?.name === "Zoë Quintana-Núñez")).toBe(true);
    }
    // with the channel filter
    expect(
      (await list(s.client, { search: "quintana", channel: "sms" })).entries.map((e) => e.value).sort(),
    ).toEqual([mobile, phone].sort());
    // LIKE metacharacters in a name search are literal
    expect((await list(s.client, { search: "quin%na" })).total).toBe(0);
    // the CSV takes the same search
    const csv = await s.client.get(`/api/contacts/opt-outs.csv?search=${encodeURIComponent("zoe quintana")}`);
    expect(csv.statusCode).toBe(200);
    const lines = csv.body
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(lines).toHaveLength(3);
    expect(csv.body).not.toContain(foreignEmail);
    // past the cap the name match keeps the oldest contacts' addresses and says it was capped
    expect(await selectAddressesOfContactsNamed(t.db, ws, "quintana", 1)).toEqual({
      emails: [email],
      phones: [mobile],
      capped: true,
    });
    expect((await selectAddressesOfContactsNamed(t.db, ws, "quintana", 2)).capped).toBe(false);
    // the other workspace finds its own contact, not these
    expect((await list(other.client, { search: "quintana" })).entries.map((e) => e.value)).toEqual([
      foreignEmail,
    ]);
  });
});
