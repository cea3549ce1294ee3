import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, postTwilioWebhook, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

// A STOP is the person's opt-out, not only their number's: a contact who replied STOP from one of
// their numbers (phone or mobile) is opted out of texts, calls and voicemail on every number the
// contact holds, in campaign launches, the preflight and contact-page sends, and no consent
// confirmation (includeNotOptedIn) overrides it; only a START from that number lifts it. A text goes
// to the mobile first in campaigns as on the contact page, and the "Reply STOP to opt out" notice is
// decided per number.

const TOKEN = "stop-every-number-token";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TWILIO_AUTH_TOKEN: TOKEN, CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("415");

let sid = 0;
async function reply(from: string, body: string) {
  sid += 1;
  const res = await postTwilioWebhook(t.app, TOKEN, "inbound", {
    MessageSid: `SMeach${Date.now()}${sid}`,
    From: from,
    To: "+15005550006",
    Body: body,
  });
  expect(res.statusCode).toBe(200);
}

async function textsTo(to: string) {
  return (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to))).filter(
    (m) => m.channel === "sms",
  );
}

async function callsTo(to: string) {
  return (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to))).filter(
    (m) => m.channel === "voice",
  );
}

/** A signed-in workspace with one contact holding `phone` and `mobile`, SMS and call opt-in on, in daytime. */
async function contactWith(phone: string, mobile: string | null) {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "business");
  const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Ada Lovelace", phone }]);
  await t.db
    .update(contacts)
    .set({ mobile, timezone: daytimeZone(), smsOptIn: true, callOptIn: true })
    .where(inArray(contacts.id, [id as number]));
  return { ...s, id: id as number };
}

describe("a STOP from one of a contact's numbers opts the person out on all of them", () => {
  it("STOP from the mobile: a consent-confirmed SMS launch, the preflight and a call to the phone all refuse", async () => {
    const phone = await freshPhone();
    const mobile = await freshPhone();
    const c = await contactWith(phone, mobile);
    // the contact page texts the mobile first, with the first-text notice
    const first = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "Hello Ada" });
    expect(first.statusCode).toBe(200);
    const toMobile = await textsTo(mobile);
    expect(toMobile).toHaveLength(1);
    expect(toMobile[0]?.body).toContain("Reply STOP to opt out");
    await reply(mobile, "STOP");
    const [row] = await t.db.select().from(contacts).where(eq(contacts.id, c.id));
    expect(row?.smsOptIn).toBe(false);

    const body = {
      campaignName: "Spring",
      message: "Spring offer, reply STOP to opt out",
      contacts: [{ id: c.id }],
      includeNotOptedIn: true,
    };
    // the text would go to the mobile (its own STOP); never "not opted in", which consent overrides
    const pre = await c.client.post("/api/campaigns/preflight", { ...body, channel: "sms" });
    expect(pre.statusCode).toBe(200);
    expect(pre.json().skipped).toEqual({ "opted out: replied STOP": 1 });
    expect(pre.json().willSendNow).toBe(0);
    const launch = await c.client.post("/api/campaigns/sms/launch", body);
    expect(launch.statusCode).toBe(422);
    expect(await textsTo(phone)).toHaveLength(0);
    // a call goes to the phone first: the STOP from the mobile holds there too, consent or not
    const voice = await c.client.post("/api/campaigns/preflight", { ...body, channel: "voice" });
    expect(voice.statusCode).toBe(200);
    expect(voice.json().skipped).toEqual({ "opted out (replied STOP)": 1 });
    expect(voice.json().willSendNow).toBe(0);

    // calls: the phone is reached first, and the STOP from the mobile stops calls to it too
    const call = await c.client.post(`/api/contacts/${c.id}/make-call`, { script: "Hello" });
    expect(call.statusCode).toBe(422);
    expect(call.json().error).toContain("replied STOP");
    expect(await callsTo(phone)).toHaveLength(0);
  });

  it("STOP from the phone: a consent-confirmed SMS launch to the mobile is skipped 'opted out (replied STOP)'", async () => {
    const phone = await freshPhone();
    const mobile = await freshPhone();
    const c = await contactWith(phone, mobile);
    await reply(phone, "STOP");
    const body = {
      campaignName: "Spring",
      message: "Spring offer, reply STOP to opt out",
      contacts: [{ id: c.id }],
      includeNotOptedIn: true,
    };
    const pre = await c.client.post("/api/campaigns/preflight", { ...body, channel: "sms" });
    expect(pre.json().skipped).toEqual({ "opted out (replied STOP)": 1 });
    const launch = await c.client.post("/api/campaigns/sms/launch", body);
    expect(launch.statusCode).toBe(422);
    expect(launch.json().error).toContain("opted out (replied STOP)");
    expect(launch.json().error).not.toContain("Confirm you have their consent");
    const single = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "Hi" });
    expect(single.statusCode).toBe(422);
    expect(await textsTo(mobile)).toHaveLength(0);
    expect(await textsTo(phone)).toHaveLength(0);
  });

  it("a campaign texts the phone, STOP from it: the contact page refuses the mobile until START from the phone", async () => {
    const phone = await freshPhone();
    const mobile = await freshPhone();
    const c = await contactWith(phone, null);
    const launch = await c.client.post("/api/campaigns/sms/launch", {
      campaignName: "Hello",
      message: "Hello from Acme",
      contacts: [{ id: c.id }],
    });
    expect(launch.statusCode).toBe(200);
    await expect.poll(async () => (await textsTo(phone)).length).toBe(1);
    await reply(phone, "STOP");
    // the person's mobile is added later
    await t.db.update(contacts).set({ mobile }).where(eq(contacts.id, c.id));
    const refused = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "Still there?" });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toContain("replied STOP");
    expect(await textsTo(mobile)).toHaveLength(0);

    // START from the phone lifts it; the mobile's first text carries the opt-out notice (per number)
    await reply(phone, "START");
    const ok = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "Welcome back" });
    expect(ok.statusCode).toBe(200);
    const toMobile = await textsTo(mobile);
    expect(toMobile).toHaveLength(1);
    expect(toMobile[0]?.body).toContain("Reply STOP to opt out");
  });

  it("a campaign texts the mobile first, like the contact page", async () => {
    const phone = await freshPhone();
    const mobile = await freshPhone();
    const c = await contactWith(phone, mobile);
    const launch = await c.client.post("/api/campaigns/sms/launch", {
      campaignName: "Mobile first",
      message: "Hello from Acme",
      contacts: [{ id: c.id }],
    });
    expect(launch.statusCode).toBe(200);
    await expect.poll(async () => (await textsTo(mobile)).length).toBe(1);
    expect(await textsTo(phone)).toHaveLength(0);
  });
});
