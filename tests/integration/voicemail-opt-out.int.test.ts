import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { and, eq, inArray } from "drizzle-orm";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contacts,
  mediaItems,
  outboundWebhookEvents,
  outboxMessages,
  suppressions,
  webhookEndpoints,
  workspaces,
} from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { VOICEMAIL_AUDIO_FAILED_REASON } from "../../src/server/features/campaigns/campaigns.voicemail";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { probe, resolveFfmpegBinaries } from "../../src/server/lib/ffmpeg";
import { startTwilioFake, twilioFakeEnv } from "../fakes/twilio";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  setPlan,
  signUp,
  TEST_ORIGIN,
  type TestApp,
} from "../helpers";
import { uniqueDaytimePhone, uniquePhone } from "../unique-phone";
import { multipart, silentWav } from "./studio-helpers";

/** A number's suppressions after its "press 9": calls and voicemail (channel:reason, sorted). */
const KEYPRESS_OPT_OUT = ["voice:keypress_opt_out", "voicemail:keypress_opt_out"];

// A ringless voicemail cannot take a keypress, so it names the business first and ends with a number
// to call back to opt out (47 CFR 64.1200(b)); a call to that number answers "press 9 to stop calls
// and voicemail from <business>", and the key opts the caller out like a key pressed during a call.
// The public demo's call offers the keypress too. Long call scripts reach Twilio by URL, since the
// inline Twiml parameter takes at most 4,000 characters.

/** The local voice provider's (fictional) number, which local voicemails give as their callback number. */
const LOCAL_CALLBACK = "+12025550100";

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("415");

type Keypad = { digit: string; prompt: string; actionUrl: string };

async function workspaceWith(app: TestApp, phones: string[], business: string) {
  const s = await signUp(app.app);
  await setPlan(app, s.user.id, "business"); // calls and voicemail are paid features
  await app.db.update(workspaces).set({ senderName: business }).where(eq(workspaces.id, s.user.id));
  const ids = await findOrCreateContacts(
    app.ctx,
    s.user.id,
    phones.map((phone, i) => ({ name: `Val ${i}`, phone })),
  );
  await app.db
    .update(contacts)
    .set({ timezone: daytimeZone(), callOptIn: true })
    .where(inArray(contacts.id, ids));
  return { ...s, contactIds: ids as number[] };
}

function launchVoicemail(app: TestApp, workspaceId: string, contactIds: number[]) {
  return createAndLaunchCampaign(app.ctx, workspaceId, {
    name: "Voicemails",
    channel: "voicemail",
    content: { script: "Hi {{first_name}}, your spring tune-up is due." },
    recipients: { contactIds },
  }).catch((e: { status: number; message: string; details?: { expose?: { skipped?: unknown } } }) => e);
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
  return app.app.inject({
    method: "POST",
    url: url.startsWith(TEST_ORIGIN) ? url.slice(TEST_ORIGIN.length) : url,
    payload: new URLSearchParams(params).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(token
        ? {
            "x-twilio-signature": twilio.getExpectedTwilioSignature(
              token,
              url.startsWith(TEST_ORIGIN) ? url : `${TEST_ORIGIN}${url}`,
              params,
            ),
          }
        : {}),
    },
  });
}

/** The <Gather>'s action URL (as Twilio reads it) and inner TwiML, or null. */
function gatherOf(twiml: string) {
  const m = /<Gather input="dtmf" numDigits="1" action="([^"]+)" method="POST"[^>]*>(.*?)<\/Gather>/s.exec(
    twiml,
  );
  return m ? { action: (m[1] ?? "").replaceAll("&amp;", "&"), inner: m[2] ?? "" } : null;
}

/** Uploads a one-second silent WAV to the workspace's media library; returns its media id. */
async function uploadGreeting(client: Awaited<ReturnType<typeof signUp>>["client"], name: string) {
  const up = await client.inject({
    method: "POST",
    url: "/api/audio/upload",
    ...multipart(
      { name },
      { field: "audio", filename: "g.wav", content: silentWav(1), contentType: "audio/wav" },
    ),
  });
  expect(up.statusCode, up.body).toBe(200);
  return up.json().media.id as number;
}

/** Overwrites a media item's stored file with bytes no decoder reads (a damaged recording). */
async function damageRecording(app: TestApp, mediaId: number) {
  const [m] = await app.db.select().from(mediaItems).where(eq(mediaItems.id, mediaId));
  if (!m?.currentKey) throw new Error(`media ${mediaId} has no stored file`);
  await app.providers.storage.put(
    m.currentKey,
    Readable.from([Buffer.from("not audio at all ".repeat(64))]),
    {
      contentType: "audio/wav",
    },
  );
}

describe("ringless voicemail: business identity, callback number and the callback menu (local providers)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  });
  afterAll(async () => t?.close());

  it("a drop names the business and gives the callback number; calling it and pressing 9 opts out; a later drop is skipped", async () => {
    const phone = await freshPhone();
    const other = await freshPhone();
    const w = await workspaceWith(t, [phone, other], "Harbor Plumbing");
    const first = await launchVoicemail(t, w.user.id, [w.contactIds[0] as number]);
    if (!("campaign" in first)) throw new Error(`launch refused: ${first.message}`);
    const drop = (await outbox(t, phone, "voicemail")).at(-1);
    expect(drop?.body).toBe(
      "This is a message from Harbor Plumbing. Hi Val, your spring tune-up is due. To stop calls and voicemails from Harbor Plumbing, call (202) 555-0100 and press 9.",
    );
    expect((drop?.metadata as { callbackNumber?: string } | undefined)?.callbackNumber).toBe(LOCAL_CALLBACK);

    // the person calls the number back (what Twilio posts to the number's voice webhook)
    const menu = await postForm(t, "/api/webhooks/voice/inbound", {
      From: phone,
      To: LOCAL_CALLBACK,
      CallSid: `CAcb${Date.now()}`,
    });
    expect(menu.statusCode, menu.body).toBe(200);
    expect(menu.headers["content-type"]).toContain("text/xml");
    const gather = gatherOf(menu.body);
    expect(gather, menu.body).not.toBeNull();
    expect(gather?.inner).toContain("To stop calls and voicemail from Harbor Plumbing, press 9.");
    // the local provider shows the menu in the dev outbox, with its keypad
    const answered = (await outbox(t, phone, "voice")).at(-1);
    expect(answered?.body).toBe("To stop calls and voicemail from Harbor Plumbing, press 9.");
    const keypad = (answered?.metadata as { keypad?: Keypad } | undefined)?.keypad;
    expect(keypad?.actionUrl).toBe(gather?.action);

    // another key changes nothing; 9 suppresses calls and voicemail in the workspace
    expect((await postForm(t, gather?.action ?? "", { Digits: "1", CallSid: "CAx1" })).body).toContain(
      "<Hangup/>",
    );
    expect(await suppressionsOf(t, w.user.id, phone)).toEqual([]);
    const nine = await postForm(t, gather?.action ?? "", { Digits: "9", CallSid: "CAx2" });
    expect(nine.statusCode).toBe(200);
    expect(nine.body).toContain("You will not receive any more calls or voicemails from us.");
    expect(await suppressionsOf(t, w.user.id, phone)).toEqual(KEYPRESS_OPT_OUT);
    expect((await campaignRecipientRows(t, first.campaign.id))[0]?.reason).toBe("unsubscribed");
    expect((await w.client.get(`/api/contacts/${w.contactIds[0]}`)).json().contact.call_opt_in).toBe(false);

    // a later drop skips the number; the other contact still gets theirs
    const later = await launchVoicemail(t, w.user.id, w.contactIds);
    if (!("campaign" in later)) throw new Error(`launch refused: ${later.message}`);
    expect(later.skipped).toEqual({ "opted out: pressed 9 during a call": 1 });
    expect((await outbox(t, phone, "voicemail")).length).toBe(1);
    expect((await outbox(t, other, "voicemail")).length).toBe(1);
  });

  it("a recorded voicemail's file speaks the business's name before the recording and the opt-out sentence after it", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith(t, [phone], "Gull Bakery");
    const up = await w.client.inject({
      method: "POST",
      url: "/api/audio/upload",
      ...multipart(
        { name: "Greeting" },
        { field: "audio", filename: "g.wav", content: silentWav(1), contentType: "audio/wav" },
      ),
    });
    expect(up.statusCode, up.body).toBe(200);
    const audioMediaId = up.json().media.id as number;
    const r = await createAndLaunchCampaign(t.ctx, w.user.id, {
      name: "Recorded",
      channel: "voicemail",
      content: { audioMediaId },
      recipients: { contactIds: w.contactIds },
    });
    expect(r.campaign.status).toBe("completed");
    const drop = (await outbox(t, phone, "voicemail")).at(-1);
    const audioUrl = (drop?.metadata as { audioUrl?: string } | undefined)?.audioUrl ?? "";
    expect(drop?.body).toBe(
      `This is a message from Gull Bakery.\nAudio: ${audioUrl}\nTo stop calls and voicemails from Gull Bakery, call (202) 555-0100 and press 9.`,
    );
    // what the voicemail provider downloads: the one-second (silent) recording with both sentences spoken around it
    const file = await t.app.inject({ method: "GET", url: audioUrl.slice(TEST_ORIGIN.length) });
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("audio/mpeg");
    const local = path.join(t.env.DATA_DIR, `vm-${Date.now()}.mp3`);
    fs.writeFileSync(local, file.rawPayload);
    const probed = await probe(resolveFfmpegBinaries(t.env), local, { format: "mp3" });
    // eSpeak says the two sentences in about 7 s; the recording alone is 1 s
    expect(probed.durationSeconds).toBeGreaterThan(5);
    // served again from storage, the same file
    const again = await t.app.inject({ method: "GET", url: audioUrl.slice(TEST_ORIGIN.length) });
    expect(again.rawPayload.equals(file.rawPayload)).toBe(true);
  }, 60_000);

  it("a recording ffmpeg cannot make into the voicemail's audio fails the drops with a reason the report shows, leaving no voicemail", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith(t, [phone], "Hazel Hardware");
    const audioMediaId = await uploadGreeting(w.client, "Broken greeting");
    // the stored recording is damaged: ffmpeg cannot decode it
    await damageRecording(t, audioMediaId);
    const r = await createAndLaunchCampaign(t.ctx, w.user.id, {
      name: "Recorded",
      channel: "voicemail",
      content: { audioMediaId },
      recipients: { contactIds: w.contactIds },
    });
    const [row] = await campaignRecipientRows(t, r.campaign.id);
    expect(row?.status).toBe("failed");
    expect(row?.reason).toBe(VOICEMAIL_AUDIO_FAILED_REASON);
    expect(row?.reason).toMatch(/^The recording could not be prepared for voicemail/);
    expect(await outbox(t, phone, "voicemail")).toEqual([]);
    // the campaign report shows it as it is
    const report = await w.client.get(`/api/campaigns/${r.campaign.id}/recipients`);
    expect(report.statusCode, report.body).toBe(200);
    expect(report.body).toContain("The recording could not be prepared for voicemail");
  }, 60_000);

  it("when ffmpeg fails as the provider downloads a drop's audio, the download gets a 410 (no 500) and that drop is marked failed once", async () => {
    const phones = [await freshPhone(), await freshPhone()];
    const w = await workspaceWith(t, phones, "Ivy Interiors");
    const audioMediaId = await uploadGreeting(w.client, "Greeting");
    const r = await createAndLaunchCampaign(t.ctx, w.user.id, {
      name: "Recorded",
      channel: "voicemail",
      content: { audioMediaId },
      recipients: { contactIds: w.contactIds },
    });
    const rows = await campaignRecipientRows(t, r.campaign.id);
    expect(rows.map((x) => x.status)).toEqual(["sent", "sent"]);
    const urls = await Promise.all(
      phones.map(async (p) => {
        const meta = (await outbox(t, p, "voicemail")).at(-1)?.metadata as { audioUrl?: string } | undefined;
        return (meta?.audioUrl ?? "").slice(TEST_ORIGIN.length);
      }),
    );
    // one URL per drop, naming its recipient
    expect(urls[0]).toMatch(new RegExp(`^/va/${r.campaign.id}/${rows[0]?.id}/[A-Za-z0-9_-]{22}\\.mp3$`));
    expect(urls[1]).toMatch(new RegExp(`^/va/${r.campaign.id}/${rows[1]?.id}/[A-Za-z0-9_-]{22}\\.mp3$`));
    // after the send the business is renamed (the notice's audio is made again) and the recording is damaged
    await t.db
      .update(workspaces)
      .set({ senderName: "Ivy Interiors Ltd" })
      .where(eq(workspaces.id, w.user.id));
    await damageRecording(t, audioMediaId);

    const first = await t.app.inject({ method: "GET", url: urls[0] ?? "" });
    expect(first.statusCode, first.body).toBe(410);
    expect(first.json().error).toBe(VOICEMAIL_AUDIO_FAILED_REASON);
    let after = await campaignRecipientRows(t, r.campaign.id);
    expect(after.map((x) => [x.status, x.reason])).toEqual([
      ["failed", VOICEMAIL_AUDIO_FAILED_REASON],
      ["sent", null],
    ]);
    // the provider's retry of the same download: the same answer, nothing changes
    const retry = await t.app.inject({ method: "GET", url: urls[0] ?? "" });
    expect(retry.statusCode).toBe(410);
    // the other drop's download fails the same way and marks that drop only
    const second = await t.app.inject({ method: "GET", url: urls[1] ?? "" });
    expect(second.statusCode).toBe(410);
    after = await campaignRecipientRows(t, r.campaign.id);
    expect(after.map((x) => [x.status, x.reason])).toEqual([
      ["failed", VOICEMAIL_AUDIO_FAILED_REASON],
      ["failed", VOICEMAIL_AUDIO_FAILED_REASON],
    ]);
    // another campaign's id or another recipient's id in the URL: not found
    const moved = (urls[0] ?? "").replace(`/${rows[0]?.id}/`, `/${rows[1]?.id}/`);
    expect((await t.app.inject({ method: "GET", url: moved })).statusCode).toBe(404);
  }, 60_000);

  it("concurrent downloads of audio not made yet share one build: eSpeak and ffmpeg run once, every download gets the file", async () => {
    const phones = [await freshPhone(), await freshPhone(), await freshPhone()];
    const w = await workspaceWith(t, phones, "Juniper Joinery");
    const audioMediaId = await uploadGreeting(w.client, "Greeting");
    const r = await createAndLaunchCampaign(t.ctx, w.user.id, {
      name: "Recorded",
      channel: "voicemail",
      content: { audioMediaId },
      recipients: { contactIds: w.contactIds },
    });
    const urls = await Promise.all(
      phones.map(async (p) => {
        const meta = (await outbox(t, p, "voicemail")).at(-1)?.metadata as { audioUrl?: string } | undefined;
        return (meta?.audioUrl ?? "").slice(TEST_ORIGIN.length);
      }),
    );
    expect(urls.every((u) => u.startsWith(`/va/${r.campaign.id}/`))).toBe(true);
    // renamed after the send: the audio with the new name is not made yet when the provider fetches
    await t.db
      .update(workspaces)
      .set({ senderName: "Juniper Joinery Co" })
      .where(eq(workspaces.id, w.user.id));
    const [m] = await t.db.select().from(mediaItems).where(eq(mediaItems.id, audioMediaId));
    const storage = t.ctx.providers.storage;
    const toLocalFile = storage.toLocalFile;
    let builds = 0;
    storage.toLocalFile = (key: string, dir: string) => {
      if (key === m?.currentKey) builds += 1;
      return toLocalFile.call(storage, key, dir);
    };
    try {
      // the provider fetches the campaign's drops in parallel (and retries): six at once
      const answers = await Promise.all(
        [...urls, ...urls].map((url) => t.app.inject({ method: "GET", url })),
      );
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(answers.every((a) => a.rawPayload.equals(answers[0]!.rawPayload))).toBe(true);
      expect(builds).toBe(1);
    } finally {
      storage.toLocalFile = toLocalFile;
    }
  }, 60_000);

  it("the menu names every business that called or left a voicemail, and 9 opts out of each", async () => {
    const phone = await freshPhone();
    const a = await workspaceWith(t, [phone], "Aster Dental");
    const b = await workspaceWith(t, [phone], "Birch Roofing");
    for (const w of [a, b]) {
      const r = await launchVoicemail(t, w.user.id, w.contactIds);
      if (!("campaign" in r)) throw new Error(`launch refused: ${r.message}`);
    }
    const menu = await postForm(t, "/api/webhooks/voice/inbound", { From: phone, To: LOCAL_CALLBACK });
    const gather = gatherOf(menu.body);
    expect(gather?.inner).toContain(
      "To stop calls and voicemail from Birch Roofing and Aster Dental, press 9.",
    );
    expect((await postForm(t, gather?.action ?? "", { Digits: "9" })).statusCode).toBe(200);
    for (const w of [a, b]) expect(await suppressionsOf(t, w.user.id, phone)).toEqual(KEYPRESS_OPT_OUT);
  });

  it("a workspace that called the number hundreds of times does not push another workspace out of the menu or its opt-out", async () => {
    const phone = await freshPhone();
    const quiet = await workspaceWith(t, [phone], "Olive Optics");
    const loud = await workspaceWith(t, [phone], "Loud Leads");
    for (const w of [quiet, loud]) {
      const r = await launchVoicemail(t, w.user.id, w.contactIds);
      if (!("campaign" in r)) throw new Error(`launch refused: ${r.message}`);
    }
    // 250 more voicemails from the loud workspace since (each its own campaign), all newer
    await t.sql`
      with c as (
        insert into campaigns (workspace_id, name, channel, status)
        select ${loud.user.id}::uuid, 'Again ' || g, 'voicemail', 'completed' from generate_series(1, 250) g
        returning id
      )
      insert into campaign_recipients (campaign_id, workspace_id, contact_id, channel, address, status, token, sent_at)
      select c.id, ${loud.user.id}::uuid, ${loud.contactIds[0] as number}::bigint, 'voicemail', ${phone}::text, 'sent',
             md5(random()::text || c.id::text), now() + interval '1 minute'
      from c`;
    const menu = await postForm(t, "/api/webhooks/voice/inbound", { From: phone, To: LOCAL_CALLBACK });
    const gather = gatherOf(menu.body);
    expect(gather?.inner).toContain("To stop calls and voicemail from Loud Leads and Olive Optics, press 9.");
    expect((await postForm(t, gather?.action ?? "", { Digits: "9" })).statusCode).toBe(200);
    for (const w of [quiet, loud])
      expect(await suppressionsOf(t, w.user.id, phone)).toEqual(KEYPRESS_OPT_OUT);
  });

  it("a contact called from the contact page is in the menu under its own workspace's name; 9 turns its call opt-in off and emits contact.unsubscribed", async () => {
    const phone = await freshPhone();
    const campaignWs = await workspaceWith(t, [phone], "Iris Insurance");
    const page = await workspaceWith(t, [phone], "Juniper Gardens");
    // a third workspace has the number as a contact but never called it: not named, not opted out
    const bystander = await workspaceWith(t, [phone], "Quartz Pools");
    await t.db.insert(webhookEndpoints).values({
      workspaceId: page.user.id,
      url: "https://hooks.example.com/pitchwise",
      events: ["contact.unsubscribed"],
      secret: "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=",
    });
    const vm = await launchVoicemail(t, campaignWs.user.id, campaignWs.contactIds);
    if (!("campaign" in vm)) throw new Error(`launch refused: ${vm.message}`);
    const id = page.contactIds[0] as number;
    // the contact page's single AI call; the person does not press during it, and calls back later
    const call = await page.client.post(`/api/contacts/${id}/make-call`, { script: "Hello from Juniper" });
    expect(call.statusCode, call.body).toBe(200);

    const menu = await postForm(t, "/api/webhooks/voice/inbound", {
      From: phone,
      To: LOCAL_CALLBACK,
      CallSid: `CApage${Date.now()}`,
    });
    expect(menu.statusCode, menu.body).toBe(200);
    const gather = gatherOf(menu.body);
    expect(gather?.inner).toContain(
      "To stop calls and voicemail from Juniper Gardens and Iris Insurance, press 9.",
    );
    expect(menu.body).not.toContain("Quartz Pools");

    const nine = await postForm(t, gather?.action ?? "", { Digits: "9", CallSid: `CApage9${Date.now()}` });
    expect(nine.statusCode).toBe(200);
    expect(nine.body).toContain("You will not receive any more calls or voicemails from us.");
    for (const w of [campaignWs, page])
      expect(await suppressionsOf(t, w.user.id, phone)).toEqual(KEYPRESS_OPT_OUT);
    expect(await suppressionsOf(t, bystander.user.id, phone)).toEqual([]);
    const detail = (await page.client.get(`/api/contacts/${id}`)).json();
    expect(detail.contact.call_opt_in).toBe(false);
    expect(detail.activities.map((a: { activity_type: string }) => a.activity_type).sort()).toEqual([
      "call_made",
      "opted_out",
    ]);
    const events = await t.db
      .select()
      .from(outboundWebhookEvents)
      .where(eq(outboundWebhookEvents.workspaceId, page.user.id));
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        "contact.unsubscribed",
        expect.objectContaining({ contact_id: id, channel: "voice", address: phone, campaign_id: null }),
      ],
    ]);
    const other = (await bystander.client.get(`/api/contacts/${bystander.contactIds[0]}`)).json();
    expect(other.contact.call_opt_in).toBe(true);
    // the campaign's recipient is opted out as before
    expect((await campaignRecipientRows(t, vm.campaign.id))[0]?.reason).toBe("unsubscribed");
    // the contact page now refuses to call the number
    expect((await page.client.post(`/api/contacts/${id}/make-call`, { script: "Again" })).statusCode).toBe(
      422,
    );
  });

  it("a caller no one called hears that nothing is on record; an altered menu URL is refused", async () => {
    const stranger = await freshPhone();
    const menu = await postForm(t, "/api/webhooks/voice/inbound", { From: stranger, To: LOCAL_CALLBACK });
    expect(menu.statusCode).toBe(200);
    expect(gatherOf(menu.body)).toBeNull();
    expect(menu.body).toContain("We have no call or voicemail to your number on record.");

    const phone = await freshPhone();
    const victim = await freshPhone();
    const w = await workspaceWith(t, [phone, victim], "Cedar Cafe");
    await launchVoicemail(t, w.user.id, w.contactIds);
    const gather = gatherOf(
      (await postForm(t, "/api/webhooks/voice/inbound", { From: phone, To: LOCAL_CALLBACK })).body,
    );
    const altered = (gather?.action ?? "").replace(encodeURIComponent(phone), encodeURIComponent(victim));
    expect(altered).not.toBe(gather?.action);
    expect((await postForm(t, altered, { Digits: "9" })).statusCode).toBe(403);
    expect(await suppressionsOf(t, w.user.id, victim)).toEqual([]);
  });

  it("the public demo call offers 'press 9'; pressing it stops the demo's calls and texts to that number", async () => {
    // a number where it is day now: the demo keeps quiet hours (demo-quiet-hours.int)
    const phone = await uniqueDaytimePhone();
    const demo = () =>
      t.app.inject({ method: "POST", url: "/api/demo/send", payload: { name: "Dee", phone } });
    expect((await demo()).statusCode).toBe(200);
    const call = (await outbox(t, phone, "voice")).at(-1);
    expect(call?.body).toContain("To stop calls from us, press 9 at any time.");
    const keypad = (call?.metadata as { keypad?: Keypad } | undefined)?.keypad;
    expect(keypad?.digit).toBe("9");
    expect(keypad?.actionUrl.startsWith(`${TEST_ORIGIN}/api/webhooks/voice/demo-opt-out?`)).toBe(true);
    // an altered URL is refused
    const altered = (keypad?.actionUrl ?? "").replace(
      encodeURIComponent(phone),
      encodeURIComponent(await freshPhone()),
    );
    expect((await postForm(t, altered, { Digits: "9" })).statusCode).toBe(403);
    const nine = await postForm(t, keypad?.actionUrl ?? "", { Digits: "9", CallSid: "CAdemo" });
    expect(nine.statusCode).toBe(200);
    expect(nine.body).toContain("You will not receive any more demo calls or texts from Pitchwise.");
    // anyone can type the number into the demo form again: no call, no text
    expect((await demo()).statusCode).toBe(200);
    expect((await outbox(t, phone, "voice")).length).toBe(1);
    expect((await outbox(t, phone, "sms")).length).toBe(1);
  });
});

describe("through Twilio (real SDK against the Twilio fake)", () => {
  let tt: TestApp;
  let tw: Awaited<ReturnType<typeof startTwilioFake>>;
  const sid = `AC${"7".repeat(32)}`;
  const token = "voicemail-opt-out-twilio-token";
  const FROM = "+15005550006";
  beforeAll(async () => {
    tw = await startTwilioFake(sid, token);
    tt = await createTestApp({ ...twilioFakeEnv(sid, token, tw.url), CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  });
  afterAll(async () => {
    await tt?.close();
    await tw?.close();
  });

  it("voicemails give the Twilio number; its signed inbound webhook answers the menu and a signed 9 opts out", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith(tt, [phone], "Dune Landscaping");
    const r = await launchVoicemail(tt, w.user.id, w.contactIds);
    if (!("campaign" in r)) throw new Error(`launch refused: ${r.message}`);
    expect((await outbox(tt, phone, "voicemail")).at(-1)?.body).toContain(
      "To stop calls and voicemails from Dune Landscaping, call (500) 555-0006 and press 9.",
    );
    const params = {
      AccountSid: sid,
      CallSid: `CAin${Date.now()}`,
      From: phone,
      To: FROM,
      Direction: "inbound",
    };
    // unsigned: refused
    expect((await postForm(tt, "/api/webhooks/voice/inbound", params)).statusCode).toBe(403);
    const menu = await postForm(tt, "/api/webhooks/voice/inbound", params, token);
    expect(menu.statusCode, menu.body).toBe(200);
    const gather = gatherOf(menu.body);
    expect(gather?.inner).toContain("To stop calls and voicemail from Dune Landscaping, press 9.");
    const press = { ...params, Digits: "9" };
    expect((await postForm(tt, gather?.action ?? "", press)).statusCode).toBe(403);
    const nine = await postForm(tt, gather?.action ?? "", press, token);
    expect(nine.statusCode).toBe(200);
    expect(await suppressionsOf(tt, w.user.id, phone)).toEqual(KEYPRESS_OPT_OUT);
  });

  it("a 5,000-character script reaches Twilio by a Url serving the full TwiML to Twilio's signed fetch; a short one stays inline", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith(tt, [phone], "Elm Electric");
    const sentence = "Our electricians can inspect your panel, wiring and outlets this week. ";
    const script = sentence.repeat(Math.ceil(5000 / sentence.length)).slice(0, 5000);
    const res = await w.client.post(`/api/contacts/${w.contactIds[0]}/make-call`, { script });
    expect(res.statusCode, res.body).toBe(200);
    const call = tw.calls.filter((c) => c.To === phone).at(-1);
    expect(call?.Twiml).toBeUndefined();
    const url = call?.Url ?? "";
    expect(url.startsWith(`${TEST_ORIGIN}/api/webhooks/voice/twiml/`)).toBe(true);
    expect(call?.Method).toBe("GET");
    const fetchTwiml = (signature?: string) =>
      tt.app.inject({
        method: "GET",
        url: url.slice(TEST_ORIGIN.length),
        headers: signature ? { "x-twilio-signature": signature } : {},
      });
    expect((await fetchTwiml()).statusCode).toBe(403);
    expect((await fetchTwiml("bm90LXR3aWxpbw==")).statusCode).toBe(403);
    const doc = await fetchTwiml(twilio.getExpectedTwilioSignature(token, url, {}));
    expect(doc.statusCode).toBe(200);
    expect(doc.headers["content-type"]).toContain("text/xml");
    const gather = gatherOf(doc.body);
    expect(gather).not.toBeNull();
    const says = [...(gather?.inner ?? "").matchAll(/<Say[^>]*>(.*?)<\/Say>/gs)].map((m) => m[1] ?? "");
    // one Polly <Say> speaks at most 3,000 bytes (Twilio warning 13521): the script is split, nothing lost
    for (const s of says) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(3000);
    // the business first and the callback number last (47 CFR 64.1200(b)(1), (2)), with the offer
    expect(says[0]).toBe("This is a message from Elm Electric. To stop calls from us, press 9 at any time.");
    expect(says.at(-1)).toBe(
      "To stop calls from us, press 9 at any time. To stop calls and voicemails from Elm Electric, call (500) 555-0006 and press 9.",
    );
    expect(says.slice(1, -1).join(" ")).toBe(script.trim());

    // a short script: inline TwiML within Twilio's 4,000 characters
    const short = await w.client.post(`/api/contacts/${w.contactIds[0]}/make-call`, {
      script: "Hi, Elm here.",
    });
    expect(short.statusCode, short.body).toBe(200);
    const inline = tw.calls.filter((c) => c.To === phone).at(-1);
    expect(inline?.Url).toBeUndefined();
    expect(inline?.Twiml?.length).toBeLessThanOrEqual(4000);
    expect(inline?.Twiml).toContain("Hi, Elm here.");
  });
});

describe("no callback number", () => {
  let tn: TestApp;
  let tw: Awaited<ReturnType<typeof startTwilioFake>>;
  const sid = `AC${"8".repeat(32)}`;
  const token = "voicemail-no-callback-token";
  beforeAll(async () => {
    tw = await startTwilioFake(sid, token);
    // Twilio sends through a messaging service only: no number to call back
    tn = await createTestApp({
      ...twilioFakeEnv(sid, token, tw.url),
      TWILIO_FROM_NUMBER: "",
      TWILIO_MESSAGING_SERVICE_SID: `MG${"8".repeat(32)}`,
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    });
  });
  afterAll(async () => {
    await tn?.close();
    await tw?.close();
  });

  it("a voicemail launch is refused with a 422 sentence, and nothing is dropped", async () => {
    const phone = await freshPhone();
    const w = await workspaceWith(tn, [phone], "Fern Florist");
    const res = await w.client.post("/api/campaigns", {
      name: "Voicemails",
      channel: "voicemail",
      content: { script: "Hi there" },
      recipients: { contactIds: w.contactIds },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toBe(
      "Ringless voicemail cannot be sent yet: every voicemail must give a number people can call back to opt out, and no calling number is set up for this server (TWILIO_FROM_NUMBER with the Twilio voice provider).",
    );
    expect((await outbox(tn, phone, "voicemail")).length).toBe(0);
  });
});
