import { eq, inArray } from "drizzle-orm";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";
import { uniqueDaytimePhone, uniquePhone } from "../unique-phone";

// A STOP reply is an opt-out from the number that sent the text (CTIA; Twilio Advanced Opt-Out
// blocks that sender). Pitchwise sends every workspace's SMS, and the public demo's, from one number
// (TWILIO_FROM_NUMBER / messaging service), so a STOP must stop every SMS path to that number, not
// only the campaigns that happened to text it.

const TOKEN = "opt-out-twilio-token";
let t: TestApp;
beforeAll(async () => {
  // local providers (outbox); the auth token only so the inbound webhook's signature can be checked
  t = await createTestApp({ TWILIO_AUTH_TOKEN: TOKEN, CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** An Etc/GMT zone where the local time is now about 14:00 (inside the quiet-hours window). */
function daytimeZone(): string {
  const offset = 14 - new Date().getUTCHours();
  const o = ((offset + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("212");

let sidSeq = 0;
/** A signed inbound SMS from `from` to the sending number, as Twilio posts it. */
async function reply(from: string, body: string) {
  sidSeq += 1;
  const params = { MessageSid: `SMopt${Date.now()}${sidSeq}`, From: from, To: "+15005550006", Body: body };
  const url = "http://localhost:80/api/webhooks/twilio/inbound";
  const res = await t.app.inject({
    method: "POST",
    url: "/api/webhooks/twilio/inbound",
    payload: new URLSearchParams(params).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": twilio.getExpectedTwilioSignature(TOKEN, url, params),
    },
  });
  expect(res.statusCode).toBe(200);
  return res.body;
}

async function sent(to: string, channel: string) {
  return (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to))).filter(
    (m) => m.channel === channel,
  ).length;
}

async function workspaceWithContact(phone: string, business?: string) {
  const s = await signUp(t.app, business === undefined ? {} : { business_name: business });
  await setPlan(t, s.user.id, "business"); // SMS campaigns are a paid feature
  const ids = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Sam", phone }]);
  await t.db
    .update(contacts)
    .set({ timezone: daytimeZone(), smsOptIn: true })
    .where(inArray(contacts.id, ids));
  return { ...s, contactId: ids[0] as number };
}

function launchSms(workspaceId: string, contactId: number) {
  return createAndLaunchCampaign(t.ctx, workspaceId, {
    name: "Texts",
    channel: "sms",
    content: { message: "Hi" },
    recipients: { contactIds: [contactId] },
  }).catch((e: { status: number; details: { expose: { skipped: unknown } } }) => e);
}

describe("an SMS STOP reply stops every SMS to that number", () => {
  it("a STOP answering a single SMS from the contact page stops the next single SMS and campaign", async () => {
    const phone = await freshPhone();
    const w = await workspaceWithContact(phone);
    const first = await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hello" });
    expect(first.statusCode).toBe(200);
    expect(await reply(phone, "STOP")).toContain("You have been unsubscribed");
    const again = await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hello?" });
    expect(again.statusCode).toBe(422);
    expect(again.json().error).toBe("This number is on your suppression list (opted out of SMS)");
    const campaign = await launchSms(w.user.id, w.contactId);
    expect("status" in campaign && campaign.status).toBe(422);
    expect("details" in campaign && campaign.details.expose.skipped).toEqual({
      "opted out: replied STOP": 1,
    });
    expect(await sent(phone, "sms")).toBe(1);
  });

  it("a STOP to the shared sending number holds in a workspace that never texted the number, until START", async () => {
    const phone = await freshPhone();
    const a = await workspaceWithContact(phone);
    const b = await workspaceWithContact(phone);
    const launched = await launchSms(a.user.id, a.contactId);
    expect("campaign" in launched && launched.campaign.status).toBe("completed");
    await reply(phone, "stop");
    // workspace B's texts come from the same number: the person opted out of it
    expect((await b.client.post(`/api/contacts/${b.contactId}/send-sms`, { message: "Hi" })).statusCode).toBe(
      422,
    );
    const campaign = await launchSms(b.user.id, b.contactId);
    expect("details" in campaign && campaign.details.expose.skipped).toEqual({
      "opted out: replied STOP": 1,
    });
    expect(await sent(phone, "sms")).toBe(1);
    // START is the number's later decision: texts may go again
    expect(await reply(phone, "START")).toContain("resubscribed");
    expect((await b.client.post(`/api/contacts/${b.contactId}/send-sms`, { message: "Hi" })).statusCode).toBe(
      200,
    );
    expect(await sent(phone, "sms")).toBe(2);
  });

  it("the STOP and START confirmations name only the businesses that texted the number", async () => {
    // a business that only scheduled a text to the number (or whose text was skipped) never reached
    // the person: naming it in the reply would tell them who else holds their number
    const phone = await freshPhone();
    const named = (business: string) => workspaceWithContact(phone, business);
    const bakery = await named(`Open Bakery ${phone.slice(-4)}`);
    const clinic = await named(`Discreet Clinic ${phone.slice(-4)}`);
    const florist = await named(`Corner Florist ${phone.slice(-4)}`);
    const sentNow = await launchSms(bakery.user.id, bakery.contactId);
    expect("campaign" in sentNow && sentNow.campaign.status).toBe("completed");
    const later = await createAndLaunchCampaign(t.ctx, clinic.user.id, {
      name: "Reminder",
      channel: "sms",
      content: { message: "See you tomorrow" },
      recipients: { contactIds: [clinic.contactId] },
      scheduledAt: new Date(Date.now() + 86_400_000),
    });
    expect(later.campaign.status).toBe("scheduled");
    // the florist texted from the contact page
    expect(
      (await florist.client.post(`/api/contacts/${florist.contactId}/send-sms`, { message: "Your order" }))
        .statusCode,
    ).toBe(200);
    const stop = await reply(phone, "STOP");
    expect(stop).toContain("You have been unsubscribed");
    expect(stop).toContain("Open Bakery");
    expect(stop).toContain("Corner Florist");
    expect(stop).not.toContain("Discreet Clinic");
    // the STOP still holds for the clinic: its scheduled text will be skipped
    const clinicText = await clinic.client.post(`/api/contacts/${clinic.contactId}/send-sms`, {
      message: "Hi",
    });
    expect(clinicText.statusCode).toBe(422);
    const start = await reply(phone, "START");
    expect(start).toContain("resubscribed");
    expect(start).toContain("Open Bakery");
    expect(start).not.toContain("Discreet Clinic");
  });

  it("the public demo does not text or call a number that replied STOP to the demo text", async () => {
    // a number where it is day now: the demo keeps quiet hours (demo-quiet-hours.int)
    const phone = await uniqueDaytimePhone();
    const demo = () =>
      t.app.inject({ method: "POST", url: "/api/demo/send", payload: { name: "Dee", phone } });
    expect((await demo()).statusCode).toBe(200);
    expect([await sent(phone, "sms"), await sent(phone, "voice")]).toEqual([1, 1]);
    await reply(phone, "STOP");
    // anyone can type this number into the demo form again
    expect((await demo()).statusCode).toBe(200);
    expect([await sent(phone, "sms"), await sent(phone, "voice")]).toEqual([1, 1]);
  });

  it("a STOP shows on the texted contact (sms_opt_in false) and START shows the opt-in again", async () => {
    const phone = await freshPhone();
    const w = await workspaceWithContact(phone);
    const launched = await launchSms(w.user.id, w.contactId);
    expect("campaign" in launched && launched.campaign.status).toBe("completed");
    const optIn = async () => (await w.client.get(`/api/contacts/${w.contactId}`)).json().contact.sms_opt_in;
    expect(await optIn()).toBe(true);
    await reply(phone, "STOP");
    expect(await optIn()).toBe(false);
    await reply(phone, "START");
    expect(await optIn()).toBe(true);
  });

  it("with the local SMS provider the dev outbox's Reply form posts an unsigned STOP that counts; a wrong signature is still refused", async () => {
    const phone = await freshPhone();
    const w = await workspaceWithContact(phone);
    expect(
      (await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hello" })).statusCode,
    ).toBe(200);
    const page = await t.app.inject({
      method: "GET",
      url: `/dev/outbox?channel=sms&to=${encodeURIComponent(phone)}`,
    });
    expect(page.body).toContain('action="/api/webhooks/twilio/inbound"');
    expect(page.body).toContain(`name="From" value="${phone}"`);
    const post = (headers: Record<string, string> = {}) =>
      t.app.inject({
        method: "POST",
        url: "/api/webhooks/twilio/inbound",
        payload: new URLSearchParams({ From: phone, To: "Pitchwise", Body: "stop" }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      });
    expect((await post({ "x-twilio-signature": "forged" })).statusCode).toBe(403);
    const res = await post();
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("You have been unsubscribed");
    expect(
      (await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hi?" })).statusCode,
    ).toBe(422);
  });
});
