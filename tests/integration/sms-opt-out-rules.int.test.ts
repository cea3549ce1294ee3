import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  activities,
  campaigns,
  contacts,
  outboundWebhookEvents,
  smsOptEvents,
  webhookEndpoints,
} from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { startTwilioFake, twilioFakeEnv } from "../fakes/twilio";
import {
  campaignRecipientRows,
  createTestApp,
  postTwilioWebhook,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// The inbound SMS webhook as a US sender's compliance officer reads it: 47 CFR 64.1200(a)(10)
// (consent revoked by any reasonable means; "stop", "quit", "end", "revoke", "opt out", "cancel",
// "unsubscribe" in a reply), (a)(11) (one confirmation, within five minutes), CTIA (HELP names the
// sender and how to opt out; START/UNSTOP/YES opt back in). Real Twilio SDK against the Twilio fake.

const SID = "ACsmsrules0000000000000000000000";
const TOKEN = "sms-rules-token";
const OUR_NUMBER = "+15005550006";
let t: TestApp;
let tw: Awaited<ReturnType<typeof startTwilioFake>>;

beforeAll(async () => {
  tw = await startTwilioFake(SID, TOKEN);
  t = await createTestApp({ ...twilioFakeEnv(SID, TOKEN, tw.url), CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
  await tw?.close();
});

/** An Etc/GMT zone where the local time is now about 14:00 (inside the quiet-hours window). */
function daytimeZone(): string {
  const offset = 14 - new Date().getUTCHours();
  const o = ((offset + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("646");

/**
 * A reply `body` from `from`, received by Twilio `agoMs` ago (the fake keeps it, so the app can read
 * Twilio's time), posted signed to the inbound webhook as Twilio does. Returns the TwiML.
 */
async function reply(from: string, body: string, agoMs = 0, extra: Record<string, string> = {}) {
  const MessageSid = tw.receive({ from, to: OUR_NUMBER, body, at: new Date(Date.now() - agoMs) });
  const params = {
    MessageSid,
    SmsSid: MessageSid,
    AccountSid: SID,
    From: from,
    To: OUR_NUMBER,
    Body: body,
    ...extra,
  };
  const res = await postTwilioWebhook(t.app, TOKEN, "inbound", params);
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** The text of the TwiML <Message>, or null when the reply sends nothing. */
function messageOf(twiml: string): string | null {
  const m = /<Message>([\s\S]*?)<\/Message>/.exec(twiml);
  return m ? (m[1] as string).replace(/&amp;/g, "&").replace(/&apos;/g, "'") : null;
}

/** A paid workspace named `business` with one contact at `phone` texted by an SMS campaign. */
async function textedContact(phone: string, business: string, smsOptIn = true) {
  const s = await signUp(t.app, { business_name: business });
  await setPlan(t, s.user.id, "business");
  const ids = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Sam", phone }]);
  await t.db.update(contacts).set({ timezone: daytimeZone(), smsOptIn }).where(inArray(contacts.id, ids));
  const contactId = ids[0] as number;
  await createAndLaunchCampaign(t.ctx, s.user.id, {
    name: "Hello",
    channel: "sms",
    content: { message: "Hi from us" },
    recipients: { contactIds: [contactId] },
    includeNotOptedIn: true,
  });
  return { ...s, contactId };
}

const textsTo = (phone: string) => tw.messages.filter((m) => m.To === phone).length;

describe("opt-out replies are read as a person writes them (47 CFR 64.1200(a)(10))", () => {
  const replies = [
    "stop please",
    "Please stop texting me, I never signed up for this",
    "Opt out",
    "REVOKE",
    "🛑 Stop 🛑",
    "Alto",
    "Unsubscribe me from this list right now please",
  ];
  for (const body of replies)
    it(`"${body}" opts the number out: no further text from the contact page or a campaign`, async () => {
      const phone = await freshPhone();
      const w = await textedContact(phone, "Keyword Bakery");
      expect(textsTo(phone)).toBe(1);
      expect(messageOf(await reply(phone, body))).toContain("You have been unsubscribed");
      const again = await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hello?" });
      expect(again.statusCode).toBe(422);
      expect(textsTo(phone)).toBe(1);
    });

  it("an ordinary reply that mentions no opt-out is a reply, not an opt-out", async () => {
    const phone = await freshPhone();
    const w = await textedContact(phone, "Chatty Bakery");
    expect(
      await reply(phone, "Sounds great, see you at the end of the week for the cake tasting!"),
    ).not.toContain("<Message>");
    expect(
      (await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Great" })).statusCode,
    ).toBe(200);
  });
});

describe("the opt-out confirmation (CTIA; 47 CFR 64.1200(a)(11))", () => {
  it("names the business, is sent once, and a repeated STOP gets no second text", async () => {
    const phone = await freshPhone();
    const business = `Bright Bakery ${process.pid}`;
    await textedContact(phone, business);
    const first = messageOf(await reply(phone, "STOP"));
    expect(first).toContain(`unsubscribed from ${business}`);
    expect(first).toContain("Reply START to resubscribe");
    expect(await reply(phone, "stop")).not.toContain("<Message>");
    expect(await reply(phone, "UNSUBSCRIBE")).not.toContain("<Message>");
  });

  it("is not sent when the STOP reaches us more than five minutes after Twilio received it", async () => {
    const phone = await freshPhone();
    const w = await textedContact(phone, "Late Bakery");
    expect(await reply(phone, "STOP", 10 * 60_000)).not.toContain("<Message>");
    // the opt-out itself holds
    expect((await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hi" })).statusCode).toBe(
      422,
    );
  });

  it("a STOP after START is a new opt-out and is confirmed again", async () => {
    const phone = await freshPhone();
    await textedContact(phone, "Again Bakery");
    expect(messageOf(await reply(phone, "STOP"))).toContain("unsubscribed");
    expect(messageOf(await reply(phone, "START"))).toContain("resubscribed");
    expect(messageOf(await reply(phone, "STOP"))).toContain("unsubscribed");
  });
});

describe("HELP and START", () => {
  it("HELP names the business that texted, how to reach it and how to opt out", async () => {
    const phone = await freshPhone();
    const business = `Helpful Plumbing ${process.pid}`;
    await textedContact(phone, business);
    const help = messageOf(await reply(phone, "help"));
    expect(help).toContain(business);
    expect(help).toMatch(/Questions: \S+/);
    expect(help).toContain("Reply STOP");
    expect(messageOf(await reply(phone, "Info."))).toContain(business);
  });

  it("YES re-subscribes a number that replied STOP; a YES from a number that never did is just a reply", async () => {
    const stopped = await freshPhone();
    const w = await textedContact(stopped, "Yes Bakery");
    await reply(stopped, "STOP");
    const yes = messageOf(await reply(stopped, "Yes"));
    // CTIA opt-in confirmation: the sender, HELP, STOP, message and data rates
    expect(yes).toContain("resubscribed to texts from Yes Bakery");
    expect(yes).toMatch(/Reply HELP for help, STOP to unsubscribe\. Msg&data rates may apply\.$/);
    expect((await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hi" })).statusCode).toBe(
      200,
    );

    // a contact never opted in to SMS answers a question with "yes": no opt-in is invented
    const other = await freshPhone();
    const o = await textedContact(other, "Question Bakery", false);
    expect(await reply(other, "YES!")).not.toContain("<Message>");
    expect(await t.db.select().from(smsOptEvents).where(eq(smsOptEvents.phone, other))).toHaveLength(0);
    const [c] = await t.db.select().from(contacts).where(eq(contacts.id, o.contactId));
    expect(c?.smsOptIn).toBe(false);
    const optedIn = await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.contactId, o.contactId), eq(activities.activityType, "opted_in")));
    expect(optedIn).toHaveLength(0);
  });
});

describe("a number texted only from the contact page", () => {
  it("STOP turns the contact's SMS opt-in off with an opted_out activity and names the business; START turns it on", async () => {
    const phone = await freshPhone();
    const business = `Counter Florist ${process.pid}`;
    const s = await signUp(t.app, { business_name: business });
    await setPlan(t, s.user.id, "business");
    const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Pat", phone }]);
    const contactId = id as number;
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), smsOptIn: true })
      .where(eq(contacts.id, contactId));
    expect(
      (await s.client.post(`/api/contacts/${contactId}/send-sms`, { message: "Your order is ready" }))
        .statusCode,
    ).toBe(200);
    const optIn = async () => (await s.client.get(`/api/contacts/${contactId}`)).json().contact.sms_opt_in;
    // an endpoint listens for contact.unsubscribed: the STOP is reported like every other opt-out
    await t.db.insert(webhookEndpoints).values({
      workspaceId: s.user.id,
      url: "https://hooks.example.com/pitchwise",
      events: ["contact.unsubscribed"],
      secret: "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=",
    });

    expect(messageOf(await reply(phone, "help"))).toContain(business);
    expect(messageOf(await reply(phone, "Stop"))).toContain(`unsubscribed from ${business}`);
    expect(await optIn()).toBe(false);
    const types = async () =>
      (await t.db.select().from(activities).where(eq(activities.contactId, contactId))).map(
        (a) => a.activityType,
      );
    expect(await types()).toContain("opted_out");
    const events = await t.db
      .select()
      .from(outboundWebhookEvents)
      .where(
        and(
          eq(outboundWebhookEvents.workspaceId, s.user.id),
          eq(outboundWebhookEvents.type, "contact.unsubscribed"),
        ),
      );
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ contact_id: contactId, channel: "sms", address: phone, campaign_id: null }),
    ]);
    expect(
      (await s.client.post(`/api/contacts/${contactId}/send-sms`, { message: "Hello?" })).statusCode,
    ).toBe(422);

    expect(messageOf(await reply(phone, "START"))).toContain(business);
    expect(await optIn()).toBe(true);
    expect(await types()).toContain("opted_in");
  });
});

describe("Twilio's own record of a STOP (error 21610)", () => {
  it("suppresses the number, so a resend of failed rows and the contact page do not try it again", async () => {
    const phone = await freshPhone();
    tw.blocked.add(phone); // the person replied STOP to our number; Twilio refuses with 21610
    const s = await signUp(t.app, { business_name: "Blocked Bakery" });
    await setPlan(t, s.user.id, "business");
    const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Bo", phone }]);
    const contactId = id as number;
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), smsOptIn: true })
      .where(eq(contacts.id, contactId));
    const launched = await createAndLaunchCampaign(t.ctx, s.user.id, {
      name: "Promo",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: [contactId] },
    });
    const [row] = await campaignRecipientRows(t, launched.campaign.id);
    expect(row?.status).toBe("failed");
    expect(row?.reason).toMatch(/21610/);
    const attempts = () =>
      tw.requests.filter(
        (q) => q.method === "POST" && q.path.endsWith("/Messages.json") && q.body.includes(phone.slice(1)),
      ).length;
    const before = attempts();
    const resend = await s.client.post(`/api/campaigns/${launched.campaign.id}/resend-failed`, {});
    expect(resend.statusCode).toBe(200);
    const [again] = await campaignRecipientRows(t, launched.campaign.id);
    expect(again?.status).toBe("skipped");
    expect(again?.reason).toBe("opted out: replied STOP");
    const single = await s.client.post(`/api/contacts/${contactId}/send-sms`, { message: "Hello?" });
    expect(single.statusCode).toBe(422);
    expect(attempts()).toBe(before);
  });

  it("a contact-page text refused with 21610 suppresses the number for the next one", async () => {
    const phone = await freshPhone();
    tw.blocked.add(phone);
    const s = await signUp(t.app, { business_name: "Blocked Florist" });
    await setPlan(t, s.user.id, "business");
    const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Jo", phone }]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), smsOptIn: true })
      .where(eq(contacts.id, id as number));
    const first = await s.client.post(`/api/contacts/${id}/send-sms`, { message: "Hello" });
    expect(first.statusCode).toBe(502);
    const second = await s.client.post(`/api/contacts/${id}/send-sms`, { message: "Hello?" });
    expect(second.statusCode).toBe(422);
    expect(second.json().error).toBe("This number is on your suppression list (opted out of SMS)");
  });

  it("the first contact-page text to a contact names the business and says how to opt out; the next one does not repeat it", async () => {
    const phone = await freshPhone();
    const s = await signUp(t.app, { business_name: "First Text Florist" });
    await setPlan(t, s.user.id, "business");
    const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Al", phone }]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), smsOptIn: true })
      .where(eq(contacts.id, id as number));
    expect(
      (await s.client.post(`/api/contacts/${id}/send-sms`, { message: "Your order is ready" })).statusCode,
    ).toBe(200);
    expect(
      (await s.client.post(`/api/contacts/${id}/send-sms`, { message: "See you soon" })).statusCode,
    ).toBe(200);
    expect(tw.messages.filter((m) => m.To === phone).map((m) => m.Body)).toEqual([
      "First Text Florist: Your order is ready\nReply STOP to opt out",
      "See you soon",
    ]);
  });
});

describe("a campaign scheduled before the STOP", () => {
  it("does not text the number when its time comes (screened again at send time)", async () => {
    const phone = await freshPhone();
    const s = await signUp(t.app, { business_name: "Scheduled Salon" });
    await setPlan(t, s.user.id, "business");
    const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Cy", phone }]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), smsOptIn: true })
      .where(eq(contacts.id, id as number));
    const res = await s.client.post("/api/campaigns", {
      name: "Later",
      channel: "sms",
      content: { message: "Big sale tomorrow" },
      recipients: { contactIds: [id] },
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const campaignId = res.json().campaign.id as number;
    await reply(phone, "STOP");
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, campaignId));
    await t.jobs.runDeferred();
    const [row] = await campaignRecipientRows(t, campaignId);
    expect(row?.status).toBe("skipped");
    expect(row?.reason).toBe("opted out: replied STOP");
    expect(textsTo(phone)).toBe(0);
  });
});

describe("the inbound webhook with the Twilio provider", () => {
  it("refuses an unsigned post (only the local provider's dev outbox may post unsigned)", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/twilio/inbound",
      payload: new URLSearchParams({ From: await freshPhone(), To: OUR_NUMBER, Body: "START" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.statusCode).toBe(403);
  });
});

describe("the shared sending number", () => {
  it("a STOP names every workspace that texted the number and stops texts from all of them", async () => {
    const phone = await freshPhone();
    const a = await textedContact(phone, `Alpha Dental ${process.pid}`);
    const b = await textedContact(phone, `Beta Gym ${process.pid}`);
    // HELP names the latest sender
    expect(messageOf(await reply(phone, "HELP"))).toContain(`Beta Gym ${process.pid}`);
    const confirmation = messageOf(await reply(phone, "Stop texting me"));
    expect(confirmation).toContain(`Alpha Dental ${process.pid}`);
    expect(confirmation).toContain(`Beta Gym ${process.pid}`);
    for (const w of [a, b])
      expect(
        (await w.client.post(`/api/contacts/${w.contactId}/send-sms`, { message: "Hi" })).statusCode,
      ).toBe(422);
    expect(textsTo(phone)).toBe(2);
  });
});
