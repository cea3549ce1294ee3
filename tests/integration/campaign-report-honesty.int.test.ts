import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { PERSON } from "../browser-ua";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  postPostmarkEvent,
  postTwilioWebhook,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// "Honest about what it did": the campaign report's figures against the recipients' rows after
// out-of-order, repeated and contradictory provider webhooks (Postmark and Twilio status callbacks,
// driven by hand against the local providers' message ids).

let t: TestApp;
const rowsOf = (campaignId: number) => campaignRecipientRows(t, campaignId);
const twToken = "twilio-auth-token";
beforeAll(async () => {
  t = await createTestApp({
    CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    POSTMARK_WEBHOOK_USER: "hook",
    POSTMARK_WEBHOOK_PASSWORD: "secret",
    TWILIO_AUTH_TOKEN: twToken,
  });
});
afterAll(async () => {
  await t?.close();
});

const postmark = (payload: object) => postPostmarkEvent(t.app, "hook", "secret", payload);
const twilioStatus = (params: Record<string, string>) => postTwilioWebhook(t.app, twToken, "status", params);

/** A verified user's email campaign to `n` fresh addresses, sent by the local provider (rows sent). */
async function emailCampaign(n: number) {
  const u = await signUp(t.app);
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
    name: "Honest",
    channel: "email",
    content: { subject: "Hi", body: "Hello https://example.com/x" },
    recipients: { csv: Array.from({ length: n }, (_, i) => ({ email: `r${i}-${stamp}@example.com` })) },
  });
  const rows = await rowsOf(launched.campaign.id);
  expect(rows.map((r) => r.status)).toEqual(Array(n).fill("sent"));
  return { u, id: launched.campaign.id, rows };
}

/** `n` New York numbers no other test of this run is given (unique-phone), so a second run on one database passes too. */
async function phonesOf(n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await uniquePhone("212"));
  return out;
}

/** A Business user's SMS campaign to `phones` (daytime zone, consent confirmed), sent by the local provider. */
async function smsCampaign(phones: string[]) {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const ids = await findOrCreateContacts(
    t.ctx,
    u.user.id,
    phones.map((phone, i) => ({ name: `P${i}`, phone })),
  );
  await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
  const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
    name: "Texts",
    channel: "sms",
    content: { message: "Hi https://example.com/y" },
    recipients: { contactIds: ids },
    includeNotOptedIn: true,
  });
  const rows = await rowsOf(launched.campaign.id);
  expect(rows.map((r) => r.status)).toEqual(phones.map(() => "sent"));
  return { u, id: launched.campaign.id, rows };
}

type Row = Awaited<ReturnType<typeof rowsOf>>[number];
let seq = 0;
const pmEvent = (type: string, r: Row, extra: object = {}) =>
  postmark({ RecordType: type, MessageID: r.providerMessageId, ID: `${type}-${r.id}-${++seq}`, ...extra });
const smsStatus = (r: Row, MessageStatus: string) =>
  twilioStatus({ MessageSid: r.providerMessageId as string, MessageStatus, To: r.address });
const shape = (r: Row) => ({
  status: r.status,
  delivered: !!r.deliveredAt,
  opened: !!r.openedAt,
  failed: !!r.failedAt,
});

describe("contradicting provider events end the same in either arrival order", () => {
  it("email: a bounce beats a delivery, an open beats a bounce; the report's timeline agrees", async () => {
    const { u, id, rows } = await emailCampaign(4);
    const [r0, r1, r2, r3] = rows as [Row, Row, Row, Row];
    const bounce = { Type: "HardBounce", Description: "mailbox unavailable" };
    await pmEvent("Delivery", r0);
    await pmEvent("Bounce", r0, bounce);
    await pmEvent("Bounce", r1, bounce);
    await pmEvent("Delivery", r1);
    await pmEvent("Open", r2);
    await pmEvent("Bounce", r2, bounce);
    await pmEvent("Bounce", r3, bounce);
    await pmEvent("Open", r3);
    const after = await rowsOf(id);
    const bounced = { status: "bounced", delivered: false, opened: false, failed: true };
    const opened = { status: "opened", delivered: true, opened: true, failed: false };
    expect(after.map(shape)).toEqual([bounced, bounced, opened, opened]);
    const report = (await u.client.get(`/api/campaigns/${id}`)).json();
    const sum = (k: string) => report.timeline.reduce((n: number, b: Record<string, number>) => n + b[k], 0);
    expect({
      sent: sum("sent"),
      delivered: sum("delivered"),
      failed: sum("failed"),
      opened: sum("opened"),
    }).toEqual({ sent: 4, delivered: 2, failed: 2, opened: 2 });
  });

  it("sms: 'undelivered' after 'delivered' and 'delivered' after 'failed' both end failed, never delivered and failed at once", async () => {
    const { u, id, rows } = await smsCampaign(await phonesOf(3));
    const [x, y, z] = rows as [Row, Row, Row];
    expect((await smsStatus(x, "delivered")).json().result).toBe("applied");
    expect((await smsStatus(x, "undelivered")).json().result).toBe("applied");
    expect((await smsStatus(y, "failed")).json().result).toBe("applied");
    expect((await smsStatus(y, "delivered")).json().result).toBe("ignored");
    expect((await smsStatus(z, "delivered")).json().result).toBe("applied");
    expect((await smsStatus(z, "delivered")).json().result).toBe("replay");
    const after = await rowsOf(id);
    const failed = { status: "failed", delivered: false, opened: false, failed: true };
    expect(after.map(shape)).toEqual([
      failed,
      failed,
      { status: "delivered", delivered: true, opened: false, failed: false },
    ]);
    const report = (await u.client.get(`/api/campaigns/${id}`)).json();
    const sum = (k: string) => report.timeline.reduce((n: number, b: Record<string, number>) => n + b[k], 0);
    expect({ sent: sum("sent"), delivered: sum("delivered"), failed: sum("failed") }).toEqual({
      sent: 3,
      delivered: 1,
      failed: 2,
    });
  });
});

describe("resend to failed", () => {
  it("a late status callback of the failed first attempt does not land on the resent message", async () => {
    const { u, id, rows } = await smsCampaign(await phonesOf(2));
    const [x] = rows as [Row, Row];
    const firstSid = x.providerMessageId as string;
    expect((await smsStatus(x, "undelivered")).json().result).toBe("applied");
    // the first attempt's 'delivered' (out of order) arrives while the resend is being handed over
    const sms = t.providers.sms as { sendBatch?: (m: never[]) => Promise<{ providerMessageId: string }[]> };
    const original = sms.sendBatch as NonNullable<typeof sms.sendBatch>;
    let late: string | undefined;
    sms.sendBatch = async (messages) => {
      late = (await twilioStatus({ MessageSid: firstSid, MessageStatus: "delivered", To: x.address })).json()
        .result;
      return original.call(t.providers.sms, messages);
    };
    try {
      const res = await u.client.post(`/api/campaigns/${id}/resend-failed`);
      expect(res.json()).toMatchObject({ success: true, requeued: 1 });
    } finally {
      sms.sendBatch = original;
    }
    expect(late).toBe("unknown");
    const [again] = await rowsOf(id);
    const sent = await t.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.to, x.address))
      .orderBy(outboxMessages.id);
    expect(sent).toHaveLength(2);
    expect(again).toMatchObject({
      status: "sent",
      providerMessageId: sent[1]?.providerMessageId,
      deliveredAt: null,
    });
    // the resent message's own receipt is applied to it
    expect((await smsStatus(again as Row, "delivered")).json().result).toBe("applied");
    expect((await rowsOf(id))[0]?.status).toBe("delivered");
  });
});

describe("report figures", () => {
  const inbound = (params: Record<string, string>) => postTwilioWebhook(t.app, twToken, "inbound", params);

  it("count every stage a recipient reached: clicked then replied is clicked, sent then undelivered is sent; skipped per reason", async () => {
    const phones = await phonesOf(3);
    const { u, id, rows } = await smsCampaign(phones);
    const [p0, p1, p2] = rows as [Row, Row, Row];
    expect((await smsStatus(p0, "delivered")).json().result).toBe("applied");
    const [msg] = await t.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.providerMessageId, p0.providerMessageId as string));
    const link = msg?.body.match(/http:\/\/localhost:80(\/c\/[^\s]+)/)?.[1];
    expect(link).toBeTruthy();
    expect((await t.app.inject({ method: "GET", url: link as string, headers: PERSON })).statusCode).toBe(
      302,
    );
    await inbound({
      MessageSid: `SMreply${Date.now()}`,
      From: p0.address,
      To: "+15005550006",
      Body: "Tell me more",
    });
    expect((await smsStatus(p1, "undelivered")).json().result).toBe("applied");
    expect((await smsStatus(p2, "delivered")).json().result).toBe("applied");
    const after = await rowsOf(id);
    expect(after.map((r) => r.status)).toEqual(["replied", "failed", "delivered"]);

    const report = (await u.client.get(`/api/campaigns/${id}`)).json();
    expect(report.figures).toEqual({
      sent: 3,
      delivered: 2,
      opened: 1,
      clicked: 1,
      replied: 1,
      bounced: 0,
      failed: 1,
      softBounced: 0,
      skipped: 0,
      skippedReasons: [],
      cancelled: 0,
      pending: 0,
      optedOut: 0,
      answered: 0,
      voicemail: 0,
      noAnswer: 0,
      busy: 0,
      talkSeconds: 0,
    });
    // the figures agree with the timeline, which counts the same timestamps
    const sum = (k: string) => report.timeline.reduce((n: number, b: Record<string, number>) => n + b[k], 0);
    for (const k of ["sent", "delivered", "clicked", "replied", "failed"])
      expect(sum(k)).toBe(report.figures[k]);

    // a second campaign: a fourth contact with no phone is skipped at launch
    const noPhone = await findOrCreateContacts(t.ctx, u.user.id, [
      { name: "No Phone", email: `np-${Date.now()}@example.com` },
    ]);
    const second = await createAndLaunchCampaign(t.ctx, u.user.id, {
      name: "Texts 2",
      channel: "sms",
      content: { message: "Hi again" },
      recipients: { contactIds: [...rows.map((r) => r.contactId as number), ...noPhone] },
      includeNotOptedIn: true,
    });
    expect(Object.values(second.skipped).reduce((a, b) => a + b, 0)).toBe(1);

    const report2 = (await u.client.get(`/api/campaigns/${second.campaign.id}`)).json();
    const [skippedRow] = (await rowsOf(second.campaign.id)).filter((r) => r.status === "skipped");
    expect(report2.figures).toMatchObject({
      sent: 3,
      skipped: 1,
      skippedReasons: [{ reason: skippedRow?.reason, count: 1 }],
    });
    // no receipt came for the second campaign yet: nothing counted delivered
    expect(report2.figures.delivered).toBe(0);
  });
});

describe("call campaign report", () => {
  it("tells calls a person answered from calls that reached voicemail (Twilio AnsweredBy)", async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const phones = await phonesOf(4);
    const ids = await findOrCreateContacts(
      t.ctx,
      u.user.id,
      phones.map((phone, i) => ({ name: `V${i}`, phone })),
    );
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
      name: "Calls",
      channel: "voice",
      content: { script: "Hello {{first_name|there}}" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const id = launched.campaign.id;
    const rows = await rowsOf(id);
    expect(rows.map((r) => r.status)).toEqual(phones.map(() => "sent"));
    const call = (r: Row, CallStatus: string, AnsweredBy?: string, CallDuration = "12") =>
      twilioStatus({
        CallSid: r.providerMessageId as string,
        CallStatus,
        To: r.address,
        CallDuration,
        ...(AnsweredBy ? { AnsweredBy } : {}),
      });
    const [h, m, b, n] = rows as [Row, Row, Row, Row];
    expect((await call(h, "completed", "human", "95")).json().result).toBe("applied");
    expect((await call(m, "completed", "machine_end_beep", "21")).json().result).toBe("applied");
    expect((await call(b, "busy", undefined, "0")).json().result).toBe("applied");
    expect((await call(n, "no-answer", undefined, "0")).json().result).toBe("applied");
    // a repeated completed callback does not count its call twice
    await call(h, "completed", "human", "95");
    const report = (await u.client.get(`/api/campaigns/${id}`)).json();
    // the phone outcomes the call report shows instead of opens and clicks: who answered, no answer,
    // busy, and the completed calls' talk time (Twilio CallDuration, seconds)
    expect(report.figures).toMatchObject({
      sent: 4,
      delivered: 2,
      answered: 1,
      voicemail: 1,
      failed: 2,
      noAnswer: 1,
      busy: 1,
      talkSeconds: 116,
    });
    expect(report.timeline.length).toBeGreaterThan(0);
  });
});
