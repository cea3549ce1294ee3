import { eq, inArray } from "drizzle-orm";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, campaigns, contacts, suppressions } from "../../src/server/db/schema";
import { processRecipients } from "../../src/server/features/campaigns/campaigns.engine";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { voicemailAudioUrl } from "../../src/server/features/campaigns/campaigns.voicemail";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { startDropCowboyFake } from "../fakes/dropcowboy";
import { startPostmarkFake } from "../fakes/postmark";
import { startTwilioFake, twilioFakeEnv } from "../fakes/twilio";
import { campaignRecipientRows, createTestApp, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";
import { multipart, silentWav } from "./studio-helpers";

/** An Etc/GMT zone where the local time is now about 14:00 (inside the 8am-9pm window). */
function daytimeZone(): string {
  const offset = 14 - new Date().getUTCHours(); // local = utc + offset
  const o = ((offset + 12 + 24) % 24) - 12; // -12..11
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`; // POSIX sign is inverted
}
/** A zone where it is now about 03:00. */
function nightZone(): string {
  const offset = 3 - new Date().getUTCHours();
  const o = ((offset + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

async function makeContacts(
  t: TestApp,
  workspaceId: string,
  rows: { name: string; email?: string; phone?: string }[],
  timezone = daytimeZone(),
) {
  const ids = await findOrCreateContacts(t.ctx, workspaceId, rows);
  await t.db.update(contacts).set({ timezone }).where(inArray(contacts.id, ids));
  return ids;
}

describe("Postmark (real SDK against a fake Postmark API)", () => {
  let t: TestApp;
  let pm: Awaited<ReturnType<typeof startPostmarkFake>>;
  const auth = `Basic ${Buffer.from("hook:secret").toString("base64")}`;
  beforeAll(async () => {
    pm = await startPostmarkFake("pm-server-token");
    t = await createTestApp({
      EMAIL_PROVIDER: "postmark",
      POSTMARK_SERVER_TOKEN: "pm-server-token",
      POSTMARK_API_HOST: pm.url,
      POSTMARK_BROADCAST_STREAM: "broadcast",
      POSTMARK_WEBHOOK_USER: "hook",
      POSTMARK_WEBHOOK_PASSWORD: "secret",
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    });
  });
  afterAll(async () => {
    await t?.close();
    await pm?.close();
  });

  it("sends one batch on the broadcast stream with tracking, metadata and RFC 8058 headers; maps per-message rejections", async () => {
    const { client } = await signUp(t.app);
    const stamp = Date.now();
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "PM",
      subject: "Hello {{name|there}}",
      body: "Hi {{name|there}}",
      contacts: [
        { name: "Ann", email: `ann-${stamp}@example.com` },
        { name: "Ina", email: `ina-${stamp}@inactive.test` },
      ],
    });
    expect(res.statusCode).toBe(200);
    // the inline job client runs one job at a time, so each batch here holds one message (pg-boss fetches up to 500)
    const batches = pm.requests.filter((r) => r.path === "/email/batch" && r.body.includes(String(stamp)));
    expect(batches.every((b) => b.headers["x-postmark-server-token"] === "pm-server-token")).toBe(true);
    const sent = batches.flatMap((b) => JSON.parse(b.body) as Record<string, unknown>[]);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({ Subject: "Hello Ann", MessageStream: "broadcast", TrackOpens: true });
    expect((sent[0].Metadata as Record<string, string>).pw_key).toMatch(/^cr-\d+$/);
    const headers = Object.fromEntries(
      (sent[0].Headers as { Name: string; Value: string }[]).map((h) => [h.Name, h.Value]),
    );
    expect(headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    const rows = await campaignRecipientRows(t, res.json().campaignId);
    expect(rows.map((r) => r.status)).toEqual(["sent", "failed"]);
    expect(rows[1].reason).toMatch(/inactive.*code 406/);
    expect(rows[0].providerMessageId).toBe(
      pm.sent.find((m) => m.To === `ann-${stamp}@example.com`)?.MessageID,
    );
  });

  it("sends a batch in one POST /email/batch and refuses more than 500", async () => {
    const { PostmarkEmailProvider } = await import("../../src/server/providers/email/postmark");
    const p = new PostmarkEmailProvider({
      serverToken: "pm-server-token",
      defaultFrom: "a@b.co",
      broadcastStream: "broadcast",
      apiHost: pm.url,
    });
    const n = pm.requests.length;
    const res = await p.sendBatch([
      { to: "x1@example.com", subject: "s", text: "t" },
      { to: "x2@example.com", subject: "s", text: "t" },
    ]);
    expect(res.every((r) => r.providerMessageId)).toBe(true);
    expect(pm.requests.length).toBe(n + 1);
    await expect(
      p.sendBatch(
        Array.from({ length: 501 }, (_, i) => ({ to: `y${i}@example.com`, subject: "s", text: "t" })),
      ),
    ).rejects.toThrow(/500/);
    const bad = new PostmarkEmailProvider({
      serverToken: "wrong",
      defaultFrom: "a@b.co",
      broadcastStream: "broadcast",
      apiHost: pm.url,
    });
    await expect(bad.send({ to: "z@example.com", subject: "s", text: "t" })).rejects.toMatchObject({
      transient: false,
      httpStatus: 401,
    });
  });

  it("retries a 500 with backoff and sends exactly once", async () => {
    const { client } = await signUp(t.app);
    const to = `retry-${Date.now()}@example.com`;
    pm.failNext({ status: 500, json: { ErrorCode: 500, Message: "Internal Server Error" } });
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "R",
      subject: "S",
      body: "B",
      contacts: [{ name: "R", email: to }],
    });
    let [row] = await campaignRecipientRows(t, res.json().campaignId);
    expect(row.status).toBe("queued");
    expect(row.reason).toMatch(/Postmark/);
    expect(row.notBefore!.getTime()).toBeGreaterThan(Date.now());
    await t.db
      .update(campaignRecipients)
      .set({ notBefore: new Date(Date.now() - 1000) })
      .where(eq(campaignRecipients.id, row.id));
    await t.jobs.runDeferred();
    [row] = await campaignRecipientRows(t, res.json().campaignId);
    expect(row.status).toBe("sent");
    expect(row.attempts).toBe(2);
    expect(pm.sent.filter((m) => m.To === to)).toHaveLength(1);
  });

  it("after a crash, a re-claimed row already accepted by Postmark is found by metadata and not sent again", async () => {
    const { user } = await signUp(t.app);
    const to = `crash-${Date.now()}@example.com`;
    const [cid] = await makeContacts(t, user.id, [{ name: "C", email: to }]);
    // launch while pg-boss would be down: the send job is not run (we fake the crash manually below)
    const launched = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "Crash",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: [cid] },
    });
    const [row] = await campaignRecipientRows(t, launched.campaign.id);
    const before = pm.sent.filter((m) => m.To === to).length;
    expect(before).toBe(1);
    // the worker "died" after Postmark accepted but before recording: the row is back to sending with an expired lease
    await t.db
      .update(campaignRecipients)
      .set({ status: "sending", providerMessageId: null, leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(campaignRecipients.id, row.id));
    await t.db
      .update(campaigns)
      .set({ status: "sending", completedAt: null })
      .where(eq(campaigns.id, launched.campaign.id));
    await processRecipients({ ...t.ctx, log: t.ctx.log }, [row.id]);
    const [after] = await campaignRecipientRows(t, launched.campaign.id);
    expect(after.reason).toBeNull();
    expect(after.status).toBe("sent");
    expect(after.providerMessageId).toBe(pm.sent.find((m) => m.To === to)?.MessageID);
    expect(pm.sent.filter((m) => m.To === to)).toHaveLength(1);
    expect(
      pm.requests.some(
        (r) => r.path === "/messages/outbound" && r.query.get(`metadata_pw_key`) === `cr-${row.id}`,
      ),
    ).toBe(true);
  });

  it("webhooks: basic auth required, delivery/open/bounce applied once, replays change nothing, hard bounce suppresses", async () => {
    const { client, user } = await signUp(t.app);
    const to = `hook-${Date.now()}@example.com`;
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "H",
      subject: "S",
      body: "B",
      contacts: [{ name: "H", email: to }],
    });
    const [row] = await campaignRecipientRows(t, res.json().campaignId);
    const delivery = {
      RecordType: "Delivery",
      MessageID: row.providerMessageId,
      Recipient: to,
      DeliveredAt: "2026-11-21T10:00:00Z",
      Metadata: {},
    };
    const post = (payload: unknown, authorization?: string) =>
      t.app.inject({
        method: "POST",
        url: "/api/webhooks/postmark",
        payload: payload as object,
        headers: authorization ? { authorization } : {},
      });
    expect((await post(delivery)).statusCode).toBe(401);
    expect((await post(delivery, `Basic ${Buffer.from("hook:wrong").toString("base64")}`)).statusCode).toBe(
      401,
    );
    expect((await post(delivery, auth)).json().result).toBe("applied");
    expect((await post(delivery, auth)).json().result).toBe("replay");
    const open = {
      RecordType: "Open",
      MessageID: row.providerMessageId,
      ReceivedAt: "2026-11-21T10:01:00Z",
      Client: { Name: "Gmail" },
    };
    expect((await post(open, auth)).json().result).toBe("applied");
    let [r] = await campaignRecipientRows(t, res.json().campaignId);
    expect(r.status).toBe("opened");
    const bounce = {
      RecordType: "Bounce",
      ID: 42,
      Type: "HardBounce",
      MessageID: row.providerMessageId,
      Description: "The server was unable to deliver your message",
      BouncedAt: "2026-11-21T10:02:00Z",
    };
    // the recipient opened the message, so a bounce arriving after it does not undo the open
    // (engagement proves it arrived: campaign-report-honesty.int); the hard bounce still suppresses
    expect((await post(bounce, auth)).json().result).toBe("ignored");
    expect((await post(bounce, auth)).json().result).toBe("replay");
    [r] = await campaignRecipientRows(t, res.json().campaignId);
    expect(r.status).toBe("opened");
    expect(r.failedAt).toBeNull();
    const sup = await t.db.select().from(suppressions).where(eq(suppressions.workspaceId, user.id));
    expect(sup.map((s) => [s.channel, s.value, s.reason])).toEqual([["email", to, "hard_bounce"]]);
  });
});

describe("Twilio SMS and calls (real twilio SDK through a host-rewriting RequestClient)", () => {
  let t: TestApp;
  let tw: Awaited<ReturnType<typeof startTwilioFake>>;
  const sid = `AC${"1".repeat(32)}`;
  const token = "twilio-auth-token";
  beforeAll(async () => {
    tw = await startTwilioFake(sid, token);
    t = await createTestApp({
      ...twilioFakeEnv(sid, token, tw.url),
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    });
  });
  afterAll(async () => {
    await t?.close();
    await tw?.close();
  });

  const signed = (path: string, params: Record<string, string>, extra: Record<string, string> = {}) => {
    const url = `http://localhost:80${path}`;
    return t.app.inject({
      method: "POST",
      url: path,
      payload: new URLSearchParams(params).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": twilio.getExpectedTwilioSignature(token, url, params),
        ...extra,
      },
    });
  };

  it("sends SMS with basic auth, From, StatusCallback and the STOP notice once; maps 21610 to a permanent failure", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const sam = await uniquePhone("212");
    const blocked = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [
      { name: "Sam", phone: sam },
      { name: "Blocked", phone: blocked },
    ]);
    tw.blocked.add(blocked);
    const r = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "S",
      channel: "sms",
      content: { message: "Hi {{name}}" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const req = tw.requests.find(
      (q) => q.path.endsWith("/Messages.json") && q.method === "POST" && q.body.includes(sam.slice(2)),
    )!;
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${sid}:${token}`).toString("base64")}`);
    const form = Object.fromEntries(new URLSearchParams(req.body));
    expect(form).toMatchObject({
      To: sam,
      From: "+15005550006",
      Body: "Acme: Hi Sam\nReply STOP to opt out",
      StatusCallback: "http://localhost:80/api/webhooks/twilio/status",
    });
    const rows = await campaignRecipientRows(t, r.campaign.id);
    expect(rows.map((x) => x.status)).toEqual(["sent", "failed"]);
    expect(rows[1].reason).toMatch(/unsubscribed recipient.*21610/);
    // second campaign to Sam: no STOP notice again
    const r2 = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "S2",
      channel: "sms",
      content: { message: "Again {{name}}" },
      recipients: { contactIds: [ids[0]] },
      includeNotOptedIn: true,
    });
    expect(tw.messages.at(-1)?.Body).toBe("Again Sam");
    expect((await campaignRecipientRows(t, r2.campaign.id))[0].optOutNotice).toBe(false);
  });

  it("defers SMS outside 8am-9pm recipient local time", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const night = await uniquePhone("312");
    const ids = await makeContacts(t, user.id, [{ name: "Night", phone: night }], nightZone());
    const before = tw.messages.length;
    const r = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "N",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const [row] = await campaignRecipientRows(t, r.campaign.id);
    expect(row.status).toBe("queued");
    expect(row.reason).toMatch(/^quiet hours \(Etc\/GMT/);
    const hoursAway = (row.notBefore!.getTime() - Date.now()) / 3_600_000;
    expect(hoursAway).toBeGreaterThan(4);
    expect(hoursAway).toBeLessThan(6);
    expect(tw.messages.length).toBe(before);
  });

  it("retries a 429 and records the vendor code on permanent 4xx", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const rita = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Rita", phone: rita }]);
    tw.failNext({
      status: 429,
      json: { code: 20429, message: "Too Many Requests", more_info: "", status: 429 },
    });
    const r = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "R",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    let [row] = await campaignRecipientRows(t, r.campaign.id);
    expect(row.status).toBe("queued");
    expect(row.reason).toMatch(/20429/);
    await t.db
      .update(campaignRecipients)
      .set({ notBefore: new Date(Date.now() - 1000) })
      .where(eq(campaignRecipients.id, row.id));
    await t.jobs.runDeferred();
    [row] = await campaignRecipientRows(t, r.campaign.id);
    expect(row.status).toBe("sent");
    expect(tw.messages.filter((m) => m.To === rita)).toHaveLength(1);
  });

  it("status callbacks: valid signature applies, forged is refused, replay changes nothing", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const dee = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Dee", phone: dee }]);
    const r = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "D",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const [row] = await campaignRecipientRows(t, r.campaign.id);
    const params = {
      MessageSid: row.providerMessageId!,
      MessageStatus: "delivered",
      AccountSid: sid,
      To: dee,
    };
    const forged = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/twilio/status",
      payload: new URLSearchParams(params).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": twilio.getExpectedTwilioSignature(
          "wrong-token",
          "http://localhost:80/api/webhooks/twilio/status",
          params,
        ),
      },
    });
    expect(forged.statusCode).toBe(403);
    expect((await campaignRecipientRows(t, r.campaign.id))[0].status).toBe("sent");
    const ok = await signed("/api/webhooks/twilio/status", params, {
      "i-twilio-idempotency-token": `tok-${row.id}`,
    });
    expect(ok.json()).toEqual({ success: true, result: "applied" });
    expect((await campaignRecipientRows(t, r.campaign.id))[0].status).toBe("delivered");
    // a tampered body with the old signature is forged too
    const tampered = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/twilio/status",
      payload: new URLSearchParams({ ...params, MessageStatus: "undelivered" }).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": twilio.getExpectedTwilioSignature(
          token,
          "http://localhost:80/api/webhooks/twilio/status",
          params,
        ),
      },
    });
    expect(tampered.statusCode).toBe(403);
    const replay = await signed("/api/webhooks/twilio/status", params, {
      "i-twilio-idempotency-token": `tok-${row.id}`,
    });
    expect(replay.json().result).toBe("replay");
  });

  it("inbound STOP suppresses, START resubscribes, HELP is answered, OptOutType is honoured", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const phone = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Opt", phone }]);
    await createAndLaunchCampaign(t.ctx, user.id, {
      name: "O",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const inbound = (body: string, n: number, extra: Record<string, string> = {}) =>
      signed("/api/webhooks/twilio/inbound", {
        MessageSid: `SMin${n}${Date.now()}`,
        From: phone,
        To: "+15005550006",
        Body: body,
        ...extra,
      });
    const stop = await inbound("Stop", 1);
    expect(stop.body).toContain("You have been unsubscribed");
    let sup = await t.db.select().from(suppressions).where(eq(suppressions.workspaceId, user.id));
    expect(sup.map((s) => [s.channel, s.value, s.reason])).toEqual([["sms", phone, "stop_reply"]]);
    // the only contact replied STOP: the launch is refused with that reason (issue 14)
    const next = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "O2",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    }).catch((e: { status: number; details: { expose: { skipped: unknown } } }) => e);
    expect("status" in next && next.status).toBe(422);
    expect("details" in next && next.details.expose.skipped).toEqual({ "opted out: replied STOP": 1 });
    expect((await inbound("HELP", 2)).body).toContain("Reply STOP to unsubscribe");
    const start = await inbound("start", 3);
    expect(start.body).toContain("resubscribed");
    sup = await t.db.select().from(suppressions).where(eq(suppressions.workspaceId, user.id));
    expect(sup).toHaveLength(0);
    // Advanced Opt-Out: Twilio already replied, we stay silent but still suppress
    const adv = await inbound("arrêt", 4, { OptOutType: "STOP" });
    expect(adv.body).not.toContain("<Message>");
    sup = await t.db.select().from(suppressions).where(eq(suppressions.workspaceId, user.id));
    expect(sup).toHaveLength(1);
  });

  it("replays are keyed on signed content: a captured status callback with a new idempotency header changes nothing", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const rex = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Rex", phone: rex }]);
    const r = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "R",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const [row] = await campaignRecipientRows(t, r.campaign.id);
    const params = {
      MessageSid: row.providerMessageId!,
      MessageStatus: "undelivered",
      ErrorCode: "30003",
      AccountSid: sid,
    };
    const first = await signed("/api/webhooks/twilio/status", params, {
      "i-twilio-idempotency-token": "a-1",
    });
    expect(first.json().result).toBe("applied");
    const again = await signed("/api/webhooks/twilio/status", params, {
      "i-twilio-idempotency-token": "attacker-2",
    });
    expect(again.json().result).toBe("replay");
  });

  it("STOP/START follow Twilio's time: a replayed or late START cannot re-subscribe a number that sent STOP later", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const phone = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Ord", phone }]);
    await createAndLaunchCampaign(t.ctx, user.id, {
      name: "Ord",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const base = Date.now() - 60 * 60_000;
    const reply = (body: string, minutes: number, header?: string) => {
      const MessageSid = tw.receive({
        from: phone,
        to: "+15005550006",
        body,
        at: new Date(base + minutes * 60_000),
      });
      const params = {
        MessageSid,
        SmsSid: MessageSid,
        AccountSid: sid,
        From: phone,
        To: "+15005550006",
        Body: body,
      };
      return {
        params,
        send: (h = header) =>
          signed("/api/webhooks/twilio/inbound", params, h ? { "i-twilio-idempotency-token": h } : {}),
      };
    };
    const suppressed = async () =>
      (await t.db.select().from(suppressions).where(eq(suppressions.workspaceId, user.id))).length > 0;
    const start1 = reply("START", 1, "tok-start-1");
    await start1.send();
    const stop = reply("STOP", 5, "tok-stop");
    // Twilio received this STOP 55 minutes ago: past the five minutes in which the one confirmation
    // may be sent (47 CFR 64.1200(a)(11)), so none is; the opt-out itself holds
    expect((await stop.send()).body).not.toContain("<Message>");
    expect(await suppressed()).toBe(true);
    // the captured START replayed with a fresh header: same MessageSid, no effect
    await start1.send("tok-replayed");
    expect(await suppressed()).toBe(true);
    // a START Twilio received before the STOP but delivered to us after it: ignored
    const late = reply("START", 3);
    await late.send();
    expect(await suppressed()).toBe(true);
    // a START sent after the STOP re-subscribes
    const start2 = reply("START", 9);
    expect((await start2.send()).body).toContain("resubscribed");
    expect(await suppressed()).toBe(false);
  });

  it("places AI calls with TwiML <Say> and answering-machine detection", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const cal = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Cal", phone: cal }]);
    const r = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "Call",
      channel: "voice",
      content: { script: "Hello {{name}}, this is Acme." },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const call = tw.calls.at(-1)!;
    expect(call.To).toBe(cal);
    expect(call.MachineDetection).toBe("Enable");
    expect(call.Twiml).toContain("<Say");
    expect(call.Twiml).toContain("Hello Cal, this is Acme.");
    expect((await campaignRecipientRows(t, r.campaign.id))[0].status).toBe("sent");
  });
});

describe("Drop Cowboy ringless voicemail (fetch against a fake RVM API)", () => {
  let t: TestApp;
  let dc: Awaited<ReturnType<typeof startDropCowboyFake>>;
  beforeAll(async () => {
    dc = await startDropCowboyFake("team-1", "dc-secret");
    t = await createTestApp({
      VOICEMAIL_PROVIDER: "dropcowboy",
      DROPCOWBOY_TEAM_ID: "team-1",
      DROPCOWBOY_SECRET: "dc-secret",
      DROPCOWBOY_API_URL: dc.apiUrl,
      DROPCOWBOY_CALLER_ID: "+15005550006",
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    });
  });
  afterAll(async () => {
    await t?.close();
    await dc?.close();
  });

  it("drops a TTS voicemail with our idempotency key as foreign_id", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // SMS and voice campaigns are paid features
    const val = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Val", phone: val }]);
    const r = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "VM",
      channel: "voicemail",
      content: { script: "Hi {{name}}, call us back." },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const [row] = await campaignRecipientRows(t, r.campaign.id);
    expect(row.status).toBe("sent");
    expect(dc.drops.at(-1)).toMatchObject({
      team_id: "team-1",
      phone_number: val,
      foreign_id: `cr-${row.id}`,
      caller_id: "+15005550006",
    });
    // the script between the business's name and the number to call back to opt out (47 CFR 64.1200(b))
    expect((dc.drops.at(-1) as { tts_body?: string }).tts_body).toMatch(
      /^This is a message from .+\. Hi Val, call us back\. To stop calls and voicemails from .+, call \(202\) 555-0100 and press 9\.$/,
    );
    expect(row.providerMessageId).toBe(dc.drops.at(-1)?.drop_id);
  });

  it("plays one of the workspace's recordings from a signed URL; another workspace's media or any other URL is refused", async () => {
    const { client, user } = await signUp(t.app);
    const other = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const uploadAudio = async (c: typeof client, name: string) => {
      const res = await c.inject({
        method: "POST",
        url: "/api/audio/upload",
        ...multipart({ name }, { field: "audio", filename: `${name}.wav`, content: silentWav(0.3) }),
      });
      expect(res.statusCode, res.body).toBe(200);
      const media = (await c.get("/api/media/list")).json().media as {
        id: number;
        name: string;
        url: string;
      }[];
      const m = media.find((x) => x.name === name);
      expect(m).toBeDefined();
      return m as { id: number; url: string };
    };
    const mine = await uploadAudio(client, "greeting");
    const theirs = await uploadAudio(other.client, "their-greeting");
    const vic = await uniquePhone("212");
    const ids = await makeContacts(t, user.id, [{ name: "Vic", phone: vic }]);
    const launch = (content: Record<string, unknown>) =>
      client.post("/api/campaigns", {
        name: "VM audio",
        channel: "voicemail",
        content,
        recipients: { contactIds: ids },
        includeNotOptedIn: true,
      });

    // another workspace's recording, by id or by its library URL: 404 with a sentence
    for (const content of [{ audioMediaId: theirs.id }, { audioUrl: theirs.url }]) {
      const res = await launch(content);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().error).toBe("Recording not found in your media library");
    }
    // any address outside the library: 400
    const ext = await launch({ audioUrl: "https://evil.example/message.mp3" });
    expect(ext.statusCode).toBe(400);
    expect(ext.json().error).toMatch(/^Choose the recording from your media library/);
    const junk = await launch({ audioMediaId: "abc" });
    expect(junk.statusCode).toBe(400);
    expect(await t.db.select().from(campaigns).where(eq(campaigns.workspaceId, user.id))).toEqual([]);

    // its own recording: the provider gets a signed public URL that serves the MP3 without a session
    const ok = await launch({ audioMediaId: mine.id, script: "" });
    expect(ok.statusCode, ok.body).toBe(200);
    const campaignId = ok.json().campaign.id as number;
    const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, campaignId));
    expect(c.content).toMatchObject({ audioMediaId: mine.id, audioUrl: null });
    const [row] = await campaignRecipientRows(t, campaignId);
    expect(row.status).toBe("sent");
    const drop = dc.drops.at(-1) as { audio_url: string; audio_type: string; tts_body?: string };
    // one signed URL per drop, naming its recipient (a failed download marks that drop failed)
    expect(drop.audio_url).toMatch(
      new RegExp(`^${t.env.APP_URL}/va/${campaignId}/${row.id}/[A-Za-z0-9_-]{22}\\.mp3$`),
    );
    expect(drop.audio_type).toBe("mp3");
    expect(drop.tts_body).toBeUndefined();
    const path = drop.audio_url.slice(t.env.APP_URL.length);
    const file = await t.app.inject({ method: "GET", url: path });
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("audio/mpeg");
    expect(file.rawPayload.length).toBeGreaterThan(100);
    // an altered signature, or the signature moved to another campaign or recipient: not found
    const tampered = path.replace(
      /\/([A-Za-z0-9_-])([A-Za-z0-9_-]{21})\.mp3$/,
      (_m, a, rest) => `/${a === "A" ? "B" : "A"}${rest}.mp3`,
    );
    expect((await t.app.inject({ method: "GET", url: tampered })).statusCode).toBe(404);
    expect(
      (
        await t.app.inject({
          method: "GET",
          url: path.replace(`/va/${campaignId}/`, `/va/${campaignId + 1}/`),
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ method: "GET", url: path.replace(`/${row.id}/`, `/${row.id + 1}/`) })).statusCode,
    ).toBe(404);
    // the per-campaign URL handed out before drops named their recipient still serves the file
    const legacy = voicemailAudioUrl(t.env, campaignId, mine.id).slice(t.env.APP_URL.length);
    expect(legacy).toMatch(new RegExp(`^/va/${campaignId}/[A-Za-z0-9_-]{22}\\.mp3$`));
    const legacyFile = await t.app.inject({ method: "GET", url: legacy });
    expect(legacyFile.statusCode).toBe(200);
    expect(legacyFile.rawPayload.equals(file.rawPayload)).toBe(true);
    // the library URL is accepted too (the builder's picker may send either)
    const byUrl = await launch({ audioUrl: `${t.env.APP_URL}${mine.url}` });
    expect(byUrl.statusCode, byUrl.body).toBe(200);
  });
});
