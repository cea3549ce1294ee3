import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, contacts, workspaces } from "../../src/server/db/schema";
import { suppress, suppressCallsByKeypress } from "../../src/server/features/compliance/compliance.service";
import { importCsv } from "../contacts-import";
import { createTestApp, postTwilioWebhook, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";
import { uniquePhone } from "../unique-phone";

// README "Opt-outs": only the person can re-subscribe, and an opt-out turns the contact's flag off so
// the CRM, API and export show it. A QA pass found every write path turning the flag back on for a
// person who had unsubscribed or replied STOP (a CSV import's update with "Email Opt In=yes", v1
// PATCH {"sms_opt_in": true}, the app's edit, a contact deleted and imported again): sends stayed
// blocked, but the contact page said "Email opt-in Yes" above "Opted out". Now the flag stays false:
// an import keeps it off and counts the rows (opt_outs_kept), a single write that asks for it is a 409
// saying how the person opted out.

const TOKEN = "flags-stay-off-token";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TWILIO_AUTH_TOKEN: TOKEN });
});
afterAll(async () => t?.close());

let sid = 0;
/** The person at `from` replies `body` to the shared sending number (Twilio inbound webhook). */
async function reply(from: string, body: string) {
  sid += 1;
  const res = await postTwilioWebhook(t.app, TOKEN, "inbound", {
    MessageSid: `SMstayoff${Date.now()}${sid}`,
    From: from,
    To: "+15005550006",
    Body: body,
  });
  expect(res.statusCode).toBe(200);
}

/** A Business workspace with a v1 key; `call` sends a v1 request with it. */
async function keyed() {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", {
    name: "CI",
    scopes: ["contacts:read", "contacts:write", "campaigns:write"],
  });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const call = (method: string, url: string, payload?: unknown) =>
    t.app.inject({
      method: method as "GET",
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return { ...u, call };
}

/** A contact of the signed-in workspace, with email and mobile (E.164), every opt-in on. */
async function contactOf(client: Awaited<ReturnType<typeof signUp>>["client"], mobile: string) {
  const email = uniqueEmail("stayoff");
  const made = await client.post("/api/contacts", {
    first_name: "Una",
    last_name: "Subscribe",
    email,
    mobile,
    email_opt_in: true,
    sms_opt_in: true,
    call_opt_in: true,
  });
  expect(made.statusCode, made.body).toBe(200);
  return { id: made.json().contact.id as number, email };
}

async function flags(id: number) {
  const [c] = await t.db
    .select({ e: contacts.emailOptIn, s: contacts.smsOptIn, v: contacts.callOptIn })
    .from(contacts)
    .where(eq(contacts.id, id));
  return c;
}

/** The person unsubscribes through a campaign email's unsubscribe page (/u/{token}). */
async function unsubscribeThroughPage(client: Awaited<ReturnType<typeof signUp>>["client"], email: string) {
  const launch = await client.post("/api/campaigns/email/launch", {
    campaignName: "News",
    subject: "S",
    body: "B",
    contacts: [{ name: "Una", email }],
  });
  expect(launch.statusCode, launch.body).toBe(200);
  const [row] = await t.db
    .select()
    .from(campaignRecipients)
    .where(eq(campaignRecipients.campaignId, launch.json().campaignId));
  const res = await t.app.inject({
    method: "POST",
    url: `/u/${row!.token}`,
    payload: "",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  expect(res.statusCode).toBe(200);
}

describe("opt-in flags stay off while the person is opted out", () => {
  it("a CSV import's update with 'yes' keeps them off and says how many rows it kept off", async () => {
    const s = await signUp(t.app);
    const mobile = await uniquePhone("415");
    const una = await contactOf(s.client, mobile);
    const other = await contactOf(s.client, await uniquePhone("415"));
    await unsubscribeThroughPage(s.client, una.email);
    await reply(mobile, "STOP");
    // the unsubscribe turned the email flag off; the STOP came from a number this workspace never
    // texted, so its flag is still on (the number is opted out all the same: compliance findSuppressed)
    expect(await flags(una.id)).toMatchObject({ e: false, s: true });

    const csv = [
      "First Name,Email,Email Opt In,SMS Opt In",
      `Una,${una.email},yes,yes`,
      `Otto,${other.email},yes,yes`,
    ].join("\n");
    const imp = await importCsv(s.client, csv, { on_duplicate: "update" });
    expect(imp).toMatchObject({ status: "completed", updated: 2, errors: 0, opt_outs_kept: 1 });
    // the STOP revokes calls too (FCC 24-24), but the file did not ask for calls: only email and SMS
    expect(await flags(una.id)).toMatchObject({ e: false, s: false });
    expect(await flags(other.id)).toMatchObject({ e: true, s: true });
    const kept = imp.error_rows.filter((r) => r.kind === "opted_out");
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ line: 2, kept: true, field: "email_opt_in" });
    expect(kept[0]!.reason).toContain("unsubscribed (unsubscribe page)");
    expect(kept[0]!.reason).toContain("replied STOP");
    expect(kept[0]!.reason).toContain("Only they can opt back in.");

    // the API and the export say false too
    const got = await s.client.get(`/api/contacts/${una.id}`);
    expect(got.json().contact).toMatchObject({ email_opt_in: false, sms_opt_in: false });
  });

  it("a contact deleted and imported again comes back opted out (CSV and the JSON import)", async () => {
    const s = await signUp(t.app);
    const una = await contactOf(s.client, await uniquePhone("415"));
    await suppress(
      t.db,
      s.user.id,
      "email",
      una.email.toUpperCase(),
      "unsubscribed",
      "unsubscribe page",
      true,
    );
    expect((await s.client.del(`/api/contacts/${una.id}`)).statusCode).toBe(200);

    // no opt-in column: a new contact's default email opt-in (on) stays off
    const imp = await importCsv(s.client, `First Name,Email\nUna,${una.email}\n`);
    expect(imp).toMatchObject({ created: 1, opt_outs_kept: 1 });
    const [again] = await t.db
      .select({ id: contacts.id, e: contacts.emailOptIn })
      .from(contacts)
      .where(eq(contacts.email, una.email));
    expect(again?.e).toBe(false);
    expect((await s.client.del(`/api/contacts/${again!.id}`)).statusCode).toBe(200);

    const json = await s.client.post("/api/contacts/import", {
      contacts: [{ first_name: "Una", email: una.email, email_opt_in: "yes" }],
    });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json()).toMatchObject({ imported: 1, opt_outs_kept: 1 });
    const [third] = await t.db
      .select({ e: contacts.emailOptIn })
      .from(contacts)
      .where(eq(contacts.email, una.email));
    expect(third?.e).toBe(false);
  });

  it("v1 PATCH and bulk: 409 naming the flag, nothing changed; a create defaults the email opt-in off", async () => {
    const k = await keyed();
    const mobile = await uniquePhone("415");
    const una = await contactOf(k.client, mobile);
    await reply(mobile, "STOP");
    const patch = await k.call("PATCH", `/contacts/${una.id}`, { sms_opt_in: true, company: "Acme" });
    expect(patch.statusCode, patch.body).toBe(409);
    expect(patch.json().error).toMatchObject({ param: "sms_opt_in" });
    expect(patch.json().error.message).toBe(
      "This person opted out of your texts (replied STOP), so SMS opt-in stays off. Only they can opt back in, by replying START.",
    );
    const got = await k.call("GET", `/contacts/${una.id}`);
    // nothing changed (the flag is as it was: this workspace never texted the number, so the STOP did
    // not reach its contact's flag, but the number is opted out all the same)
    expect(got.json()).toMatchObject({ company: null });
    // a STOP covers the sender's calls too
    const calls = await k.call("PATCH", `/contacts/${una.id}`, { call_opt_in: true });
    expect(calls.statusCode, calls.body).toBe(409);
    // other fields still save
    expect((await k.call("PATCH", `/contacts/${una.id}`, { company: "Acme" })).statusCode).toBe(200);

    const bulk = await k.call("POST", "/contacts/bulk", {
      contacts: [{ email: una.email, first_name: "Una", sms_opt_in: true }],
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.json()).toMatchObject({ updated: 1, opt_outs_kept: 1 });
    // the bulk row asked for SMS: written false
    expect((await flags(una.id))?.s).toBe(false);

    const gone = uniqueEmail("gone");
    await suppress(t.db, k.user.id, "email", gone, "hard_bounce", "postmark webhook");
    const created = await k.call("POST", "/contacts", { first_name: "Gone", email: gone });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().email_opt_in).toBe(false);
    expect((await k.call("DELETE", `/contacts/${created.json().id}`)).statusCode).toBe(200);
    const refused = await k.call("POST", "/contacts", {
      first_name: "Gone",
      email: gone,
      email_opt_in: true,
    });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.message).toContain("bounced");
    // another address is not opted out
    const fine = await k.call("POST", "/contacts", {
      first_name: "Fine",
      email: uniqueEmail("fine"),
      email_opt_in: true,
    });
    expect(fine.statusCode, fine.body).toBe(201);
    expect(fine.json().email_opt_in).toBe(true);
  });

  it("the app's edit (REST and tRPC) is refused with a sentence; a keypress opt-out keeps call opt-in off", async () => {
    const s = await signUp(t.app);
    const phone = await uniquePhone("415");
    const una = await contactOf(s.client, phone);
    await unsubscribeThroughPage(s.client, una.email);
    const put = await s.client.put(`/api/contacts/${una.id}`, { first_name: "Una", email_opt_in: true });
    expect(put.statusCode, put.body).toBe(409);
    expect(put.json().error).toContain(
      "This person opted out of your emails (unsubscribed (unsubscribe page))",
    );
    const rpc = await trpcCall(s.client, "crm.update", { id: una.id, data: { email_opt_in: true } });
    expect(rpc.status).toBe(409);
    expect((await flags(una.id))?.e).toBe(false);

    await suppressCallsByKeypress(t.db, s.user.id, phone);
    await t.db.update(contacts).set({ callOptIn: false }).where(eq(contacts.id, una.id));
    const call = await trpcCall(s.client, "crm.update", { id: una.id, data: { call_opt_in: true } });
    expect(call.status).toBe(409);
    expect(JSON.stringify(call)).toContain("pressed 9");
    // false is always fine, and the form's other fields save
    const ok = await s.client.put(`/api/contacts/${una.id}`, {
      first_name: "Una",
      email_opt_in: false,
      call_opt_in: false,
      company: "Acme",
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
