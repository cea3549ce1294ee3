import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, contacts, outboxMessages, suppressions } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, postTwilioWebhook, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

// An AI call and a ringless voicemail show Pitchwise's sending number as caller ID (TWILIO_FROM_NUMBER;
// DROPCOWBOY_CALLER_ID must be that number). A person who was only called or left a voicemail by a
// business and texts STOP to that number has opted out of that sender (CTIA; TCPA revocation by any
// reasonable means): the workspace's contact must record the SMS opt-out (sms_opt_in off, the number
// on its SMS suppression list, an `opted_out` activity), as a workspace that texted the number does,
// and START must reverse it the same way. Before, only the workspaces that had texted the number
// (campaign recipients, crm contactsTextedAt) were answered for.

const TOKEN = "sms-stop-called-token";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TWILIO_AUTH_TOKEN: TOKEN, CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("646");

let sid = 0;
async function reply(from: string, body: string): Promise<string> {
  sid += 1;
  const res = await postTwilioWebhook(t.app, TOKEN, "inbound", {
    MessageSid: `SMcalled${Date.now()}${sid}`,
    From: from,
    To: "+15005550006",
    Body: body,
  });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/**
 * A signed-in Business workspace named `business` with one contact at `phone`, call opt-in on, SMS
 * opt-in on unless `smsOptIn` is false, in daytime.
 */
async function workspaceWith(phone: string, business: string, smsOptIn = true) {
  const s = await signUp(t.app, { business_name: business });
  await setPlan(t, s.user.id, "business");
  const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Cal Lee", phone }]);
  await t.db
    .update(contacts)
    .set({ timezone: daytimeZone(), smsOptIn, callOptIn: true })
    .where(inArray(contacts.id, [id as number]));
  return { ...s, contactId: id as number };
}

function launch(workspaceId: string, channel: "sms" | "voice" | "voicemail", contactId: number) {
  return createAndLaunchCampaign(t.ctx, workspaceId, {
    name: channel,
    channel,
    content:
      channel === "sms"
        ? { message: "Spring offer" }
        : { script: "Hi {{first_name}}, this is a spring offer." },
    recipients: { contactIds: [contactId] },
  }).catch((e: { status: number; message: string; details: { expose: { skipped: unknown } } }) => e);
}

/** What the workspace's contact records about its SMS opt-out. */
async function smsOptOutOf(w: { user: { id: string }; contactId: number }, phone: string) {
  const [c] = await t.db.select().from(contacts).where(eq(contacts.id, w.contactId));
  const supp = await t.db
    .select({ reason: suppressions.reason })
    .from(suppressions)
    .where(
      and(
        eq(suppressions.workspaceId, w.user.id),
        eq(suppressions.channel, "sms"),
        eq(suppressions.value, phone),
      ),
    );
  const acts = await t.db
    .select({ type: activities.activityType, metadata: activities.metadata })
    .from(activities)
    .where(and(eq(activities.workspaceId, w.user.id), eq(activities.contactId, w.contactId)));
  const of = (type: string) =>
    acts.filter((a) => a.type === type && (a.metadata as { channel?: string }).channel === "sms").length;
  return {
    smsOptIn: c?.smsOptIn,
    suppressed: supp.map((r) => r.reason),
    optedOut: of("opted_out"),
    optedIn: of("opted_in"),
    replies: of("sms_received"),
  };
}

async function textsTo(phone: string) {
  return (
    await t.db
      .select()
      .from(outboxMessages)
      .where(and(eq(outboxMessages.to, phone), eq(outboxMessages.channel, "sms")))
  ).length;
}

describe("an SMS STOP from a number a workspace only called or left a voicemail for", () => {
  it("records the SMS opt-out on each such workspace's contact, names them, skips their SMS campaigns; START reverses it", async () => {
    const phone = await freshPhone();
    const tag = phone.slice(-4);
    const caller = await workspaceWith(phone, `Campaign Caller ${tag}`);
    const pageCaller = await workspaceWith(phone, `Page Caller ${tag}`);
    const dropper = await workspaceWith(phone, `Voicemail Dropper ${tag}`);
    // holds the number but never reached it: the STOP still holds for its texts, but its contact is
    // not told about an opt-out it never got
    const bystander = await workspaceWith(phone, `Bystander ${tag}`);

    const call = await launch(caller.user.id, "voice", caller.contactId);
    if (!("campaign" in call)) throw new Error(`voice launch refused: ${call.message}`);
    expect(call.campaign.status).toBe("completed");
    const made = await pageCaller.client.post(`/api/contacts/${pageCaller.contactId}/make-call`, {
      script: "Hello from the page",
    });
    expect(made.statusCode, made.body).toBe(200);
    const drop = await launch(dropper.user.id, "voicemail", dropper.contactId);
    if (!("campaign" in drop)) throw new Error(`voicemail launch refused: ${drop.message}`);
    expect(drop.campaign.status).toBe("completed");
    expect(await textsTo(phone)).toBe(0);

    const stop = await reply(phone, "STOP");
    expect(stop).toContain("You have been unsubscribed");
    // the confirmation names the businesses that reached the number, newest first (two, then "1 other")
    expect(stop).toContain(`from Voicemail Dropper ${tag}, Page Caller ${tag} and 1 other and`);
    expect(stop).not.toContain("Bystander");

    for (const w of [caller, pageCaller, dropper]) {
      expect(await smsOptOutOf(w, phone)).toEqual({
        smsOptIn: false,
        suppressed: ["stop_reply"],
        optedOut: 1,
        optedIn: 0,
        replies: 0,
      });
      const sms = await launch(w.user.id, "sms", w.contactId);
      expect("details" in sms && sms.details.expose.skipped).toEqual({ "opted out: replied STOP": 1 });
    }
    expect(await smsOptOutOf(bystander, phone)).toEqual({
      smsOptIn: true,
      suppressed: [],
      optedOut: 0,
      optedIn: 0,
      replies: 0,
    });
    expect(await textsTo(phone)).toBe(0);

    const start = await reply(phone, "START");
    expect(start).toContain("resubscribed");
    expect(start).toContain("Voicemail Dropper");
    for (const w of [caller, pageCaller, dropper]) {
      expect(await smsOptOutOf(w, phone)).toEqual({
        smsOptIn: true,
        suppressed: [],
        optedOut: 1,
        optedIn: 1,
        replies: 0,
      });
    }
    const sms = await launch(caller.user.id, "sms", caller.contactId);
    if (!("campaign" in sms)) throw new Error(`SMS launch refused after START: ${sms.message}`);
    expect(sms.campaign.status).toBe("completed");
    expect(await textsTo(phone)).toBe(1);
  });

  it("START gives back only the SMS opt-in the STOP took: a called contact that never agreed to texts stays not opted in", async () => {
    const phone = await freshPhone();
    const tag = phone.slice(-4);
    // called with call consent only: the SMS opt-in was never given
    const neverTexts = await workspaceWith(phone, `Calls Only ${tag}`, false);
    // called, and had agreed to texts too
    const agreed = await workspaceWith(phone, `Calls And Texts ${tag}`, true);
    for (const w of [neverTexts, agreed]) {
      const call = await launch(w.user.id, "voice", w.contactId);
      if (!("campaign" in call)) throw new Error(`voice launch refused: ${call.message}`);
    }

    // an explicit START with no STOP before it: nothing to give back, no flag changes
    expect(await reply(phone, "START")).toContain("resubscribed");
    expect(await smsOptOutOf(neverTexts, phone)).toEqual({
      smsOptIn: false,
      suppressed: [],
      optedOut: 0,
      optedIn: 0,
      replies: 1,
    });
    expect((await smsOptOutOf(agreed, phone)).smsOptIn).toBe(true);

    // STOP, and STOP again (the second finds the flags already off)
    await reply(phone, "STOP");
    await reply(phone, "STOP");
    const [stopped] = await t.db
      .select({ metadata: activities.metadata })
      .from(activities)
      .where(and(eq(activities.contactId, neverTexts.contactId), eq(activities.activityType, "opted_out")))
      .orderBy(activities.id);
    expect(stopped?.metadata).toMatchObject({ channel: "sms", opt_in_before: false });
    for (const w of [neverTexts, agreed]) {
      const now = await smsOptOutOf(w, phone);
      expect(now.smsOptIn).toBe(false);
      expect(now.suppressed).toEqual(["stop_reply"]);
      expect(now.optedOut).toBeGreaterThanOrEqual(1);
    }

    // START lifts the STOP (suppression gone) and gives back what the first STOP took: nothing to the
    // contact that never agreed to texts, the opt-in to the one that had
    await reply(phone, "START");
    expect(await smsOptOutOf(neverTexts, phone)).toMatchObject({
      smsOptIn: false,
      suppressed: [],
      optedIn: 0,
      replies: 2,
    });
    expect(await smsOptOutOf(agreed, phone)).toMatchObject({ smsOptIn: true, suppressed: [], optedIn: 1 });
    const sms = await launch(neverTexts.user.id, "sms", neverTexts.contactId);
    expect("details" in sms && sms.details.expose.skipped).toEqual({ "not opted in to SMS": 1 });
    const allowed = await launch(agreed.user.id, "sms", agreed.contactId);
    if (!("campaign" in allowed)) throw new Error(`SMS launch refused after START: ${allowed.message}`);
    expect(await textsTo(phone)).toBe(1);
  });
});
