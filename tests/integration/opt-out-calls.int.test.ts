import { and, eq, inArray } from "drizzle-orm";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contacts,
  outboundWebhookEvents,
  outboxMessages,
  suppressions,
  webhookEndpoints,
  workspaces,
} from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { startTwilioFake, twilioFakeEnv } from "../fakes/twilio";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  postTwilioWebhook,
  setPlan,
  signUp,
  TEST_ORIGIN,
  type TestApp,
  trpcCall,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// An AI call offers "press 9 to stop calls from us" (47 CFR 64.1200(b)(3)); the press puts the
// number on the workspace's suppression list for calls and ringless voicemail, so no later campaign
// call or drop and no contact-page call reaches it. An SMS STOP to the sending number stops calls and
// voicemail too (compliance findSuppressed's docstring says why).

const TOKEN = "opt-out-calls-twilio-token";
let t: TestApp;
beforeAll(async () => {
  // local providers (outbox); the auth token only so inbound SMS webhooks can be signed
  t = await createTestApp({ TWILIO_AUTH_TOKEN: TOKEN, CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("312");

async function workspaceWith(phones: string[], callOptIn = true) {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "business"); // calls and voicemail are paid features
  const ids = await findOrCreateContacts(
    t.ctx,
    s.user.id,
    phones.map((phone, i) => ({ name: `Pat ${i}`, phone })),
  );
  await t.db
    .update(contacts)
    .set({ timezone: daytimeZone(), callOptIn, smsOptIn: true })
    .where(inArray(contacts.id, ids));
  return { ...s, contactIds: ids as number[] };
}

function launch(workspaceId: string, channel: "voice" | "voicemail", contactIds: number[]) {
  return createAndLaunchCampaign(t.ctx, workspaceId, {
    name: channel === "voice" ? "Calls" : "Voicemails",
    channel,
    content: { script: "Hi {{first_name}}, this is Acme with a spring offer." },
    recipients: { contactIds },
  }).catch((e: { status: number; message: string; details: { expose: { skipped: unknown } } }) => e);
}

async function outbox(to: string, channel: string) {
  return t.db
    .select()
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, channel)))
    .orderBy(outboxMessages.id);
}

type Keypad = { digit: string; prompt: string; actionUrl: string };
/** The keypress offer the local voice provider recorded for the latest call to `to`. */
async function keypadOf(to: string): Promise<Keypad> {
  const call = (await outbox(to, "voice")).at(-1);
  const keypad = (call?.metadata as { keypad?: Keypad } | undefined)?.keypad;
  if (!keypad) throw new Error(`no keypress offer on the call to ${to}`);
  return keypad;
}

/** Presses `digit` on the call: posts what Twilio's <Gather> action posts to the offer's URL. */
function press(keypad: Keypad, digit: string, extra: Record<string, string> = {}) {
  const url = new URL(keypad.actionUrl);
  return t.app.inject({
    method: "POST",
    url: `${url.pathname}${url.search}`,
    payload: new URLSearchParams({ Digits: digit, CallSid: `CA${Date.now()}`, ...extra }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

async function suppressionsOf(workspaceId: string, phone: string) {
  return (
    await t.db
      .select({ channel: suppressions.channel, reason: suppressions.reason })
      .from(suppressions)
      .where(and(eq(suppressions.workspaceId, workspaceId), eq(suppressions.value, phone)))
  ).sort((a, b) => a.channel.localeCompare(b.channel));
}

describe("the keypress opt-out of AI calls (local voice provider)", () => {
  it("a campaign call offers 'press 9'; pressing it suppresses calls and voicemail and later campaigns skip the number", async () => {
    const phone = await freshPhone();
    const other = await freshPhone();
    const w = await workspaceWith([phone, other]);
    const [contactId, otherId] = w.contactIds as [number, number];
    const first = await launch(w.user.id, "voice", [contactId]);
    if (!("campaign" in first)) throw new Error(`launch refused: ${first.message}`);
    expect(first.campaign.status).toBe("completed");
    const call = (await outbox(phone, "voice")).at(-1);
    expect(call?.body).toContain("To stop calls from us, press 9 at any time.");
    expect(call?.body).toContain("this is Acme with a spring offer.");
    const keypad = await keypadOf(phone);
    expect(keypad.digit).toBe("9");

    // another key changes nothing
    const one = await press(keypad, "1");
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain("<Hangup/>");
    expect(await suppressionsOf(w.user.id, phone)).toEqual([]);

    const nine = await press(keypad, "9");
    expect(nine.statusCode).toBe(200);
    expect(nine.headers["content-type"]).toContain("text/xml");
    expect(nine.body).toContain("You will not receive any more calls or voicemails from us.");
    expect(nine.body).toContain("<Hangup/>");
    expect(await suppressionsOf(w.user.id, phone)).toEqual([
      { channel: "voice", reason: "keypress_opt_out" },
      { channel: "voicemail", reason: "keypress_opt_out" },
    ]);
    // shown on the contact (call opt-in off), the recipient and the timeline
    const detail = (await w.client.get(`/api/contacts/${contactId}`)).json();
    expect(detail.contact.call_opt_in).toBe(false);
    expect(detail.activities.map((a: { activity_type: string }) => a.activity_type)).toContain("opted_out");
    expect((await campaignRecipientRows(t, first.campaign.id))[0]?.reason).toBe("unsubscribed");
    // a second press (Twilio retry) records nothing twice
    expect((await press(keypad, "9")).statusCode).toBe(200);
    const again = (await w.client.get(`/api/contacts/${contactId}`)).json();
    expect(
      again.activities.filter((a: { activity_type: string }) => a.activity_type === "opted_out"),
    ).toHaveLength(1);

    // later campaigns: the number is skipped with the reason; the other contact is still called
    for (const channel of ["voice", "voicemail"] as const) {
      const later = await launch(w.user.id, channel, [contactId, otherId]);
      if (!("campaign" in later)) throw new Error(`launch refused: ${later.message}`);
      expect(later.skipped).toEqual({ "opted out: pressed 9 during a call": 1 });
      const report = (await w.client.get(`/api/campaigns/${later.campaign.id}`)).json();
      expect(report.figures.skippedReasons).toEqual([
        { reason: "opted out: pressed 9 during a call", count: 1 },
      ]);
      expect((await outbox(other, channel)).length).toBe(1);
    }
    expect((await outbox(phone, "voice")).length).toBe(1);
    expect((await outbox(phone, "voicemail")).length).toBe(0);
    // the contact page refuses to call the number
    const page = await w.client.post(`/api/contacts/${contactId}/make-call`, { script: "Hello?" });
    expect(page.statusCode).toBe(422);
    expect(page.json().error).toBe(
      "This number is on your suppression list (opted out of calls) and cannot be called",
    );
    expect((await outbox(phone, "voice")).length).toBe(1);
    // the opt-out is the workspace's: another workspace calling the number is not affected
    const b = await workspaceWith([phone]);
    expect(
      (await b.client.post(`/api/contacts/${b.contactIds[0]}/make-call`, { script: "Hi" })).statusCode,
    ).toBe(200);
  });

  it("a contact-page call offers it too: the press turns the contact's call opt-in off and stops later calls", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith([phone]);
    const id = w.contactIds[0] as number;
    // an endpoint listens for contact.unsubscribed: the press is reported like every other opt-out
    await t.db.insert(webhookEndpoints).values({
      workspaceId: w.user.id,
      url: "https://hooks.example.com/pitchwise",
      events: ["contact.unsubscribed"],
      secret: "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=",
    });
    const res = await w.client.post(`/api/contacts/${id}/make-call`, { script: "Hello from Acme" });
    expect(res.statusCode, res.body).toBe(200);
    expect((await press(await keypadOf(phone), "9")).statusCode).toBe(200);
    const events = await t.db
      .select()
      .from(outboundWebhookEvents)
      .where(eq(outboundWebhookEvents.workspaceId, w.user.id));
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        "contact.unsubscribed",
        expect.objectContaining({ contact_id: id, channel: "voice", address: phone, campaign_id: null }),
      ],
    ]);
    const detail = (await w.client.get(`/api/contacts/${id}`)).json();
    expect(detail.contact.call_opt_in).toBe(false);
    expect(detail.activities.map((a: { activity_type: string }) => a.activity_type).sort()).toEqual([
      "call_made",
      "opted_out",
    ]);
    // turning the flag back on (the owner's edit) does not re-subscribe the person: the suppression holds
    await t.db.update(contacts).set({ callOptIn: true }).where(eq(contacts.id, id));
    expect((await w.client.post(`/api/contacts/${id}/make-call`, { script: "Again" })).statusCode).toBe(422);
    const vm = await launch(w.user.id, "voicemail", [id]);
    expect("details" in vm && vm.details.expose.skipped).toEqual({ "opted out: pressed 9 during a call": 1 });
  });

  it("an altered or unsigned opt-out URL is refused and suppresses nothing", async () => {
    const phone = await freshPhone();
    const victim = await freshPhone();
    const w = await workspaceWith([phone]);
    await w.client.post(`/api/contacts/${w.contactIds[0]}/make-call`, { script: "Hello" });
    const keypad = await keypadOf(phone);
    const altered = keypad.actionUrl.replace(encodeURIComponent(phone), encodeURIComponent(victim));
    expect(altered).not.toBe(keypad.actionUrl);
    expect((await press({ ...keypad, actionUrl: altered }, "9")).statusCode).toBe(403);
    const unsigned = new URL(keypad.actionUrl);
    unsigned.searchParams.delete("s");
    expect((await press({ ...keypad, actionUrl: unsigned.toString() }, "9")).statusCode).toBe(403);
    expect(await suppressionsOf(w.user.id, victim)).toEqual([]);
    expect(await suppressionsOf(w.user.id, phone)).toEqual([]);
  });

  it("a press after the workspace was deleted still gets its confirmation, not a 500", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith([phone]);
    await w.client.post(`/api/contacts/${w.contactIds[0]}/make-call`, { script: "Hello" });
    const keypad = await keypadOf(phone);
    await t.db.delete(workspaces).where(eq(workspaces.id, w.user.id));
    const res = await press(keypad, "9");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("You will not receive any more calls or voicemails from us.");
  });
});

describe("the contact page's Do Not Call", () => {
  it("shows why a contact may not be called; the owner's mark stops calls and voicemail and can be lifted, a person's opt-out cannot", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith([phone]);
    const id = w.contactIds[0] as number;
    const status = async () => (await trpcCall(w.client, "crm.doNotCall", { id }, "query")).data;
    expect(await status()).toEqual({
      do_not_call: false,
      marked_by_owner: false,
      opted_out_by_person: false,
      reasons: [],
    });
    const marked = await trpcCall(w.client, "crm.setDoNotCall", { id, do_not_call: true });
    expect(marked.status).toBe(200);
    expect(marked.data).toEqual({
      do_not_call: true,
      marked_by_owner: true,
      opted_out_by_person: false,
      reasons: ["You marked this contact do not call."],
    });
    expect((await w.client.get(`/api/contacts/${id}`)).json().contact.call_opt_in).toBe(false);
    expect((await w.client.post(`/api/contacts/${id}/make-call`, { script: "Hi" })).statusCode).toBe(422);
    await t.db.update(contacts).set({ callOptIn: true }).where(eq(contacts.id, id));
    const vm = await launch(w.user.id, "voicemail", [id]);
    expect("details" in vm && vm.details.expose.skipped).toEqual({ "opted out: Do Not Call mark": 1 });
    // lifted: calls may go again
    await trpcCall(w.client, "crm.setDoNotCall", { id, do_not_call: false });
    expect((await status()).do_not_call).toBe(false);
    expect((await w.client.post(`/api/contacts/${id}/make-call`, { script: "Hi" })).statusCode).toBe(200);
    // the person presses 9: the owner cannot lift that
    expect((await press(await keypadOf(phone), "9")).statusCode).toBe(200);
    await trpcCall(w.client, "crm.setDoNotCall", { id, do_not_call: false });
    expect(await status()).toEqual({
      do_not_call: true,
      marked_by_owner: false,
      opted_out_by_person: true,
      reasons: ["They pressed 9 during a call to stop calls from you."],
    });
    expect((await w.client.post(`/api/contacts/${id}/make-call`, { script: "Hi" })).statusCode).toBe(422);
    // another workspace's contact id is a 404
    const other = await signUp(t.app);
    expect((await trpcCall(other.client, "crm.doNotCall", { id }, "query")).status).toBe(404);
    expect((await trpcCall(other.client, "crm.setDoNotCall", { id, do_not_call: true })).status).toBe(404);
  });
});

describe("an SMS STOP also stops AI calls and ringless voicemail", () => {
  it("after STOP no campaign call or drop and no contact-page call goes to the number; START lifts it", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith([phone]);
    const id = w.contactIds[0] as number;
    const stop = await postTwilioWebhook(t.app, TOKEN, "inbound", {
      MessageSid: `SMcall${Date.now()}`,
      From: phone,
      To: "+15005550006",
      Body: "STOP",
    });
    expect(stop.statusCode).toBe(200);
    for (const channel of ["voice", "voicemail"] as const) {
      const c = await launch(w.user.id, channel, [id]);
      expect("details" in c && c.details.expose.skipped).toEqual({ "opted out: replied STOP": 1 });
    }
    const call = await w.client.post(`/api/contacts/${id}/make-call`, { script: "Hello" });
    expect(call.statusCode).toBe(422);
    expect([(await outbox(phone, "voice")).length, (await outbox(phone, "voicemail")).length]).toEqual([
      0, 0,
    ]);
    await postTwilioWebhook(t.app, TOKEN, "inbound", {
      MessageSid: `SMcall${Date.now()}b`,
      From: phone,
      To: "+15005550006",
      Body: "START",
    });
    expect((await w.client.post(`/api/contacts/${id}/make-call`, { script: "Hello" })).statusCode).toBe(200);
  });
});

describe("the keypress opt-out through Twilio (real SDK against the Twilio fake)", () => {
  let tt: TestApp;
  let tw: Awaited<ReturnType<typeof startTwilioFake>>;
  const sid = `AC${"3".repeat(32)}`;
  const token = "twilio-voice-optout-token";
  beforeAll(async () => {
    tw = await startTwilioFake(sid, token);
    tt = await createTestApp({
      ...twilioFakeEnv(sid, token, tw.url),
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    });
  });
  afterAll(async () => {
    await tt?.close();
    await tw?.close();
  });

  it("the call's TwiML gathers one DTMF digit around the script; Twilio's signed Digits=9 suppresses the number", async () => {
    const phone = await freshPhone();
    const s = await signUp(tt.app);
    await setPlan(tt, s.user.id, "business");
    const ids = await findOrCreateContacts(tt.ctx, s.user.id, [{ name: "Tess", phone }]);
    await tt.db
      .update(contacts)
      .set({ timezone: daytimeZone(), callOptIn: true })
      .where(inArray(contacts.id, ids));
    const launched = await createAndLaunchCampaign(tt.ctx, s.user.id, {
      name: "Calls",
      channel: "voice",
      content: { script: "Hello {{first_name}}, this is Acme." },
      recipients: { contactIds: ids },
    });
    const call = tw.calls.find((c) => c.To === phone);
    const twiml = call?.Twiml ?? "";
    const gather =
      /<Gather input="dtmf" numDigits="1" action="([^"]+)" method="POST"[^>]*>(.*)<\/Gather>/.exec(twiml);
    expect(gather, twiml).not.toBeNull();
    expect(gather?.[2]).toContain("To stop calls from us, press 9 at any time.");
    expect(gather?.[2]).toContain("Hello Tess, this is Acme.");
    // the URL exactly as the TwiML gives it: Twilio signs that string
    const action = (gather?.[1] ?? "").replaceAll("&amp;", "&");
    expect(action.startsWith(`${TEST_ORIGIN}/api/webhooks/voice/opt-out?`)).toBe(true);
    // what Twilio posts to the action URL, signed over that URL and the form
    const params = {
      AccountSid: sid,
      CallSid: call?.sid ?? "",
      From: "+15005550006",
      To: phone,
      Digits: "9",
      Direction: "outbound-api",
      CallStatus: "in-progress",
    };
    const post = (signature: string) =>
      tt.app.inject({
        method: "POST",
        url: action.slice(TEST_ORIGIN.length),
        payload: new URLSearchParams(params).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
      });
    // the signed URL alone is not enough with the Twilio provider: Twilio's signature is required
    expect((await post("bm90LXR3aWxpbw==")).statusCode).toBe(403);
    const res = await post(twilio.getExpectedTwilioSignature(token, action, params));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("<Say");
    expect(res.body).toContain("<Hangup/>");
    const rows = await tt.db
      .select({ channel: suppressions.channel, reason: suppressions.reason })
      .from(suppressions)
      .where(and(eq(suppressions.workspaceId, s.user.id), eq(suppressions.value, phone)));
    expect(rows.map((r) => `${r.channel}:${r.reason}`).sort()).toEqual([
      "voice:keypress_opt_out",
      "voicemail:keypress_opt_out",
    ]);
    expect((await campaignRecipientRows(tt, launched.campaign.id))[0]?.reason).toBe("unsubscribed");
  });
});
