import { and, eq, inArray } from "drizzle-orm";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages, suppressions, workspaces } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { startTwilioFake, twilioFakeEnv } from "../fakes/twilio";
import { createTestApp, daytimeZone, setPlan, signUp, TEST_ORIGIN, type TestApp } from "../helpers";
import { uniqueDaytimePhone, uniquePhone } from "../unique-phone";

// QA found two compliance defects:
// 1. An AI voice call said "To stop calls from us, press 9 at any time.\nHello Phillip, ...\nTo stop
//    calls from us, press 9 at any time.": it never said which business called nor a number to call
//    back. 47 CFR 64.1200(b)(1): an artificial or prerecorded voice message states the identity of the
//    business at the beginning; (b)(2): a telephone number during or after the message. A call now
//    begins "This is a message from <business>." (as a ringless voicemail does) and ends with the
//    callback number (the voicemail's sentence); press 9 still opts out, and Twilio says the same words.
// 2. A workspace's first text to a number read "Hi Nina, big deals today only!\nReply STOP to opt out"
//    from the number every workspace shares: nobody could tell who texted (CTIA: identify the sender).
//    The first text is now led by "<business>: " unless it already names the business.

/** The local voice provider's (fictional) number: the callback number outside production. */
const LOCAL_CALLBACK = "+12025550100";
const PROMPT = "To stop calls from us, press 9 at any time.";

type Keypad = { digit: string; prompt: string; closing?: string; actionUrl: string };

async function workspaceWith(app: TestApp, people: { name: string; phone: string }[], business: string) {
  const s = await signUp(app.app, { business_name: business });
  await setPlan(app, s.user.id, "business"); // calls are a paid feature
  const ids = await findOrCreateContacts(app.ctx, s.user.id, people);
  await app.db
    .update(contacts)
    .set({ timezone: daytimeZone(), callOptIn: true, smsOptIn: true })
    .where(inArray(contacts.id, ids));
  return { ...s, contactIds: ids as number[] };
}

async function outbox(app: TestApp, to: string, channel: string) {
  return app.db
    .select()
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, channel)))
    .orderBy(outboxMessages.id);
}

async function suppressionsOf(app: TestApp, workspaceId: string, phone: string) {
  return (
    await app.db
      .select({ channel: suppressions.channel, reason: suppressions.reason })
      .from(suppressions)
      .where(and(eq(suppressions.workspaceId, workspaceId), eq(suppressions.value, phone)))
  )
    .map((r) => `${r.channel}:${r.reason}`)
    .sort();
}

/** Posts a form to `url` (absolute, under TEST_ORIGIN), optionally with X-Twilio-Signature of `token`. */
function postForm(app: TestApp, url: string, params: Record<string, string>, token?: string) {
  const full = url.startsWith(TEST_ORIGIN) ? url : `${TEST_ORIGIN}${url}`;
  return app.app.inject({
    method: "POST",
    url: full.slice(TEST_ORIGIN.length),
    payload: new URLSearchParams(params).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(token ? { "x-twilio-signature": twilio.getExpectedTwilioSignature(token, full, params) } : {}),
    },
  });
}

/** The <Gather>'s action URL and the texts of its <Say>s, or null. */
function gatherOf(twiml: string) {
  const m = /<Gather input="dtmf" numDigits="1" action="([^"]+)" method="POST"[^>]*>(.*?)<\/Gather>/s.exec(
    twiml,
  );
  if (!m) return null;
  const says = [...(m[2] ?? "").matchAll(/<Say[^>]*>(.*?)<\/Say>/gs)].map((s) =>
    (s[1] ?? "").replaceAll("&apos;", "'").replaceAll("&amp;", "&"),
  );
  return { action: (m[1] ?? "").replaceAll("&amp;", "&"), says };
}

describe("AI calls name the business and give the callback number (local voice provider)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  });
  afterAll(async () => t?.close());

  const opening = (business: string) => `This is a message from ${business}. ${PROMPT}`;
  const closing = (business: string) =>
    `${PROMPT} To stop calls and voicemails from ${business}, call (202) 555-0100 and press 9.`;

  it("a campaign call begins with the business and ends with the callback number; press 9 still opts out", async () => {
    const phone = await uniquePhone("646");
    const w = await workspaceWith(t, [{ name: "Phillip Moss", phone }], "Harbor Plumbing");
    const r = await createAndLaunchCampaign(t.ctx, w.user.id, {
      name: "Calls",
      channel: "voice",
      content: { script: "Hello {{first_name}}, your spring tune-up is due." },
      recipients: { contactIds: w.contactIds },
    });
    expect(r.campaign.status).toBe("completed");
    const call = (await outbox(t, phone, "voice")).at(-1);
    expect(call?.body).toBe(
      [
        opening("Harbor Plumbing"),
        "Hello Phillip, your spring tune-up is due.",
        closing("Harbor Plumbing"),
      ].join("\n"),
    );
    const keypad = (call?.metadata as { keypad?: Keypad } | undefined)?.keypad;
    expect(keypad?.digit).toBe("9");
    const nine = await postForm(t, keypad?.actionUrl ?? "", { Digits: "9", CallSid: "CAid1" });
    expect(nine.statusCode).toBe(200);
    expect(await suppressionsOf(t, w.user.id, phone)).toEqual([
      "voice:keypress_opt_out",
      "voicemail:keypress_opt_out",
    ]);
  });

  it("a call from the contact page does the same, with the workspace's sender name", async () => {
    const phone = await uniquePhone("646");
    const w = await workspaceWith(t, [{ name: "Val Ruiz", phone }], "Harbor Holdings LLC");
    await t.db.update(workspaces).set({ senderName: "Harbor Plumbing" }).where(eq(workspaces.id, w.user.id));
    const res = await w.client.post(`/api/contacts/${w.contactIds[0]}/make-call`, { script: "Hi Val." });
    expect(res.statusCode, res.body).toBe(200);
    const call = (await outbox(t, phone, "voice")).at(-1);
    expect(call?.body).toBe([opening("Harbor Plumbing"), "Hi Val.", closing("Harbor Plumbing")].join("\n"));
    // the number it gives answers with the opt-out menu naming the business
    const menu = await postForm(t, "/api/webhooks/voice/inbound", { From: phone, To: LOCAL_CALLBACK });
    expect(menu.statusCode).toBe(200);
    expect(gatherOf(menu.body)?.says).toEqual(["To stop calls and voicemail from Harbor Plumbing, press 9."]);
  });

  it("the landing-page demo call names Pitchwise and gives the callback number, whose menu stops the demo", async () => {
    const phone = await uniqueDaytimePhone();
    const demo = () =>
      t.app.inject({ method: "POST", url: "/api/demo/send", payload: { name: "Dee", phone } });
    expect((await demo()).statusCode).toBe(200);
    const lines = (await outbox(t, phone, "voice")).at(-1)?.body.split("\n") ?? [];
    expect(lines[0]).toBe(opening("Pitchwise"));
    expect(lines.at(-1)).toBe(closing("Pitchwise"));
    // calling the number back: the menu offers the demo's opt-out, and 9 stops the demo's calls and texts
    const menu = await postForm(t, "/api/webhooks/voice/inbound", { From: phone, To: LOCAL_CALLBACK });
    const gather = gatherOf(menu.body);
    expect(gather?.says).toEqual(["To stop calls and voicemail from Pitchwise, press 9."]);
    const nine = await postForm(t, gather?.action ?? "", { Digits: "9", CallSid: "CAdemo-back" });
    expect(nine.statusCode).toBe(200);
    expect(nine.body).toContain("You will not receive any more demo calls or texts from Pitchwise.");
    expect((await demo()).statusCode).toBe(200);
    // no second call (the other voice row is the local provider's record of the call back)
    const placed = (await outbox(t, phone, "voice")).filter(
      (m) => (m.metadata as { direction?: string }).direction !== "inbound",
    );
    expect(placed.length).toBe(1);
  });
});

describe("a workspace's first text names the business (local SMS provider)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  });
  afterAll(async () => t?.close());

  it("from the contact page: the first text is led by the business's name, later ones are not", async () => {
    const phone = await uniquePhone("628");
    const w = await workspaceWith(t, [{ name: "Nina Park", phone }], "Gull Bakery");
    const send = (message: string) => w.client.post(`/api/contacts/${w.contactIds[0]}/send-sms`, { message });
    expect((await send("Hi Nina, big deals today only!")).statusCode).toBe(200);
    expect((await send("See you soon!")).statusCode).toBe(200);
    expect((await outbox(t, phone, "sms")).map((m) => m.body)).toEqual([
      "Gull Bakery: Hi Nina, big deals today only!\nReply STOP to opt out",
      "See you soon!",
    ]);
  });

  it("a first text that names the business is not prefixed", async () => {
    const phone = await uniquePhone("628");
    const w = await workspaceWith(t, [{ name: "Nina Park", phone }], "Gull Bakery");
    const res = await w.client.post(`/api/contacts/${w.contactIds[0]}/send-sms`, {
      message: "Hi Nina, gull bakery has fresh bread today!",
    });
    expect(res.statusCode).toBe(200);
    expect((await outbox(t, phone, "sms")).at(-1)?.body).toBe(
      "Hi Nina, gull bakery has fresh bread today!\nReply STOP to opt out",
    );
  });

  it("a campaign's first text to a number is led by the business's name and counted with it", async () => {
    const phone = await uniquePhone("628");
    const w = await workspaceWith(t, [{ name: "Nina Park", phone }], "Gull Bakery");
    const r = await createAndLaunchCampaign(t.ctx, w.user.id, {
      name: "Deals",
      channel: "sms",
      content: { message: "Hi {{first_name}}, big deals today only!" },
      recipients: { contactIds: w.contactIds },
    });
    expect(r.campaign.status).toBe("completed");
    expect((await outbox(t, phone, "sms")).map((m) => m.body)).toEqual([
      "Gull Bakery: Hi Nina, big deals today only!\nReply STOP to opt out",
    ]);
  });
});

describe("through Twilio (real SDK against the Twilio fake): the same words as the local provider", () => {
  let tt: TestApp;
  let tw: Awaited<ReturnType<typeof startTwilioFake>>;
  const sid = `AC${"5".repeat(32)}`;
  const token = "caller-identity-twilio-token";
  beforeAll(async () => {
    tw = await startTwilioFake(sid, token);
    tt = await createTestApp({ ...twilioFakeEnv(sid, token, tw.url), CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  });
  afterAll(async () => {
    await tt?.close();
    await tw?.close();
  });

  it("the call's TwiML says the business first and TWILIO_FROM_NUMBER last, inside the press-9 <Gather>", async () => {
    const phone = await uniquePhone("646");
    const w = await workspaceWith(tt, [{ name: "Phillip Moss", phone }], "Harbor Plumbing");
    await createAndLaunchCampaign(tt.ctx, w.user.id, {
      name: "Calls",
      channel: "voice",
      content: { script: "Hello {{first_name}}, your spring tune-up is due." },
      recipients: { contactIds: w.contactIds },
    });
    const call = tw.calls.find((c) => c.To === phone);
    const gather = gatherOf(call?.Twiml ?? "");
    expect(gather?.says).toEqual([
      `This is a message from Harbor Plumbing. ${PROMPT}`,
      "Hello Phillip, your spring tune-up is due.",
      `${PROMPT} To stop calls and voicemails from Harbor Plumbing, call (500) 555-0006 and press 9.`,
    ]);
    expect(call?.From).toBe("+15005550006");
    // the key still opts out (Twilio's signed post to the <Gather> action)
    const params = { AccountSid: sid, CallSid: call?.sid ?? "", To: phone, Digits: "9" };
    expect((await postForm(tt, gather?.action ?? "", params, token)).statusCode).toBe(200);
    expect(await suppressionsOf(tt, w.user.id, phone)).toEqual([
      "voice:keypress_opt_out",
      "voicemail:keypress_opt_out",
    ]);
  });

  it("a first text through Twilio is led by the business's name", async () => {
    const phone = await uniquePhone("628");
    const w = await workspaceWith(tt, [{ name: "Nina Park", phone }], "Gull Bakery");
    const res = await w.client.post(`/api/contacts/${w.contactIds[0]}/send-sms`, {
      message: "Hi Nina, big deals today only!",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(tw.messages.filter((m) => m.To === phone).map((m) => m.Body)).toEqual([
      "Gull Bakery: Hi Nina, big deals today only!\nReply STOP to opt out",
    ]);
  });
});
