import { eq, inArray } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, workspaces } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { isSuppressed } from "../../src/server/features/compliance/compliance.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { PERSON } from "../browser-ua";
import { startPostmarkFake } from "../fakes/postmark";
import { startTwilioFake } from "../fakes/twilio";
import { campaignRecipientRows, createTestApp, daytimeZone, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";
import { type ReceivedWebhook, webhookReceiver as receiver } from "./webhook-receiver";

// Issue 15's engagement and opt-out events on the real paths: the app's own unsubscribe page and
// RFC 8058 one-click POST, an inbound STOP SMS, the signed /c/ click redirect, the Postmark and
// Twilio webhooks, campaign completion, the contacts API, and the local providers' simulated
// engagement. Each delivered payload is verified with the standardwebhooks package; each real
// occurrence is one event, a replayed or repeated one none.

const EVENTS = [
  "contact.updated",
  "contact.deleted",
  "contact.unsubscribed",
  "campaign.completed",
  "message.delivered",
  "message.opened",
  "message.clicked",
  "message.replied",
  "message.bounced",
];

type Got = ReceivedWebhook;
type Event = { type: string; data: Record<string, unknown> };

/** A Business workspace with an endpoint subscribed to EVENTS at `url`. */
async function subscribed(t: TestApp, url: string) {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const { key } = (
    await u.client.post("/api/api-keys", {
      name: "hooks",
      scopes: ["webhooks:write", "contacts:read", "campaigns:read"],
    })
  ).json();
  const ep = await t.app.inject({
    method: "POST",
    url: "/api/v1/webhook_endpoints",
    headers: { authorization: `Bearer ${key}` },
    payload: { url, events: EVENTS },
  });
  expect(ep.statusCode, ep.body).toBe(201);
  return { ...u, secret: ep.json().secret as string };
}

/** Every delivered event, verified with the endpoint's secret (throws on a bad signature). */
function verified(got: Got[], secret: string): Event[] {
  return got.map(
    (g) =>
      new Webhook(secret).verify(g.body, {
        "webhook-id": String(g.headers["webhook-id"]),
        "webhook-timestamp": String(g.headers["webhook-timestamp"]),
        "webhook-signature": String(g.headers["webhook-signature"]),
      }) as Event,
  );
}

/** The verified events of `type`. */
function ofType(got: Got[], secret: string, type: string): Event[] {
  return verified(got, secret).filter((e) => e.type === type);
}

describe("campaign engagement webhook events (Postmark and Twilio)", () => {
  let t: TestApp;
  let pm: Awaited<ReturnType<typeof startPostmarkFake>>;
  let tw: Awaited<ReturnType<typeof startTwilioFake>>;
  const pmAuth = `Basic ${Buffer.from("hook:secret").toString("base64")}`;
  const sid = `AC${"2".repeat(32)}`;
  const twToken = "twilio-auth-token";
  beforeAll(async () => {
    pm = await startPostmarkFake("pm-server-token");
    tw = await startTwilioFake(sid, twToken);
    t = await createTestApp({
      OUTBOUND_ALLOWED_HOSTS: "127.0.0.1",
      EMAIL_PROVIDER: "postmark",
      POSTMARK_SERVER_TOKEN: "pm-server-token",
      POSTMARK_API_HOST: pm.url,
      POSTMARK_BROADCAST_STREAM: "broadcast",
      POSTMARK_WEBHOOK_USER: "hook",
      POSTMARK_WEBHOOK_PASSWORD: "secret",
      SMS_PROVIDER: "twilio",
      TWILIO_ACCOUNT_SID: sid,
      TWILIO_AUTH_TOKEN: twToken,
      TWILIO_FROM_NUMBER: "+15005550006",
      TWILIO_API_HOST: tw.url,
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    });
  });
  afterAll(async () => {
    await t?.close();
    await pm?.close();
    await tw?.close();
  });

  const postmark = (payload: object) =>
    t.app.inject({
      method: "POST",
      url: "/api/webhooks/postmark",
      payload,
      headers: { authorization: pmAuth },
    });
  const twilioPost = (path: string, params: Record<string, string>) =>
    t.app.inject({
      method: "POST",
      url: path,
      payload: new URLSearchParams(params).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": twilio.getExpectedTwilioSignature(
          twToken,
          `http://localhost:80${path}`,
          params,
        ),
      },
    });

  it("email: delivered/opened/bounced from Postmark, clicked via /c/, unsubscribed via the page and one-click, completed: once each", async () => {
    const rx = await receiver();
    try {
      const k = await subscribed(t, rx.url);
      const stamp = Date.now();
      const [a, b, c] = ["a", "b", "c"].map((n) => `${n}-${stamp}@example.com`);
      const launch = await k.client.post("/api/campaigns/email/launch", {
        campaignName: "Hooks",
        subject: "S",
        body: "Go https://example.com/x",
        contacts: [
          { name: "A", email: a },
          { name: "B", email: b },
          { name: "C", email: c },
        ],
      });
      expect(launch.statusCode, launch.body).toBe(200);
      const campaignId = launch.json().campaignId as number;
      const rows = await campaignRecipientRows(t, campaignId);
      const row = (to: string) => rows.find((r) => r.address === to)!;
      const ids = (to: string) => ({
        campaign_id: campaignId,
        recipient_id: row(to).id,
        contact_id: row(to).contactId,
        address: to,
      });

      // the campaign finished sending (inline jobs): campaign.completed once
      const completed = ofType(rx.got, k.secret, "campaign.completed");
      expect(completed).toHaveLength(1);
      expect(completed[0].data).toMatchObject({ id: campaignId, status: "completed", recipient_count: 3 });

      // Postmark Delivery and Open for A; the replay and a second open emit nothing
      const delivery = {
        RecordType: "Delivery",
        MessageID: row(a).providerMessageId,
        Recipient: a,
        DeliveredAt: "2026-11-21T10:00:00Z",
      };
      expect((await postmark(delivery)).json().result).toBe("applied");
      expect((await postmark(delivery)).json().result).toBe("replay");
      const open = (at: string) => ({
        RecordType: "Open",
        MessageID: row(a).providerMessageId,
        ReceivedAt: at,
        Client: { Name: "Gmail" },
      });
      expect((await postmark(open("2026-11-21T10:01:00Z"))).json().result).toBe("applied");
      expect((await postmark(open("2026-11-21T10:01:00Z"))).json().result).toBe("replay");
      expect((await postmark(open("2026-11-21T10:05:00Z"))).json().result).toBe("ignored");

      // a hard bounce for B, then its replay
      const bounce = {
        RecordType: "Bounce",
        ID: 4242,
        Type: "HardBounce",
        MessageID: row(b).providerMessageId,
        Description: "The server was unable to deliver your message",
        BouncedAt: "2026-11-21T10:02:00Z",
      };
      expect((await postmark(bounce)).json().result).toBe("applied");
      expect((await postmark(bounce)).json().result).toBe("replay");

      // A clicks the signed tracked link twice; C's link is opened by two requests at once (a link scanner)
      const linkOf = (to: string) => {
        const m = pm.sent.find((s) => s.To === to);
        return JSON.stringify(m).match(/http:\/\/localhost:80(\/c\/[a-z0-9]+\/0\/[A-Za-z0-9_-]{22})/)?.[1];
      };
      const linkA = linkOf(a);
      const linkC = linkOf(c);
      expect(linkA).toBeTruthy();
      expect(linkC).toBeTruthy();
      for (let i = 0; i < 2; i++) {
        const click = await t.app.inject({ method: "GET", url: linkA!, headers: PERSON });
        expect(click.statusCode).toBe(302);
        expect(click.headers.location).toBe("https://example.com/x");
      }
      const both = await Promise.all(
        [0, 1].map(() => t.app.inject({ method: "GET", url: linkC!, headers: PERSON })),
      );
      expect(both.map((r) => r.statusCode)).toEqual([302, 302]);

      // A unsubscribes on the page (twice); C with the mail client's one-click POST
      for (let i = 0; i < 2; i++) {
        const page = await t.app.inject({ method: "POST", url: `/u/${row(a).token}` });
        expect(page.statusCode).toBe(200);
      }
      const oneClick = await t.app.inject({
        method: "POST",
        url: `/u/${row(c).token}`,
        payload: "List-Unsubscribe=One-Click",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(oneClick.statusCode).toBe(200);

      const types = verified(rx.got, k.secret).map((e) => e.type);
      expect(types.filter((x) => x !== "campaign.completed").sort()).toEqual(
        [
          "message.delivered",
          "message.opened",
          // C's click without an open records the open first (once, though two requests clicked at once)
          "message.opened",
          "message.bounced",
          "message.clicked",
          "message.clicked",
          "contact.unsubscribed",
          "contact.unsubscribed",
        ].sort(),
      );
      const one = (type: string, to: string) => {
        const list = ofType(rx.got, k.secret, type).filter((e) => e.data.address === to);
        expect(list, `${type} for ${to}`).toHaveLength(1);
        expect(list[0].data).toMatchObject({ ...ids(to), channel: "email" });
        expect(Date.parse(String(list[0].data.occurred_at))).not.toBeNaN();
        return list[0].data;
      };
      expect(one("message.delivered", a).status).toBe("delivered");
      expect(one("message.opened", a).status).toBe("opened");
      expect(one("message.bounced", b)).toMatchObject({
        status: "bounced",
        reason: expect.stringMatching(/HardBounce/),
      });
      expect(one("message.clicked", a).status).toBe("clicked");
      expect(one("message.clicked", c).status).toBe("clicked");
      expect(one("message.opened", c)).toMatchObject({ status: "opened" });
      one("contact.unsubscribed", a);
      one("contact.unsubscribed", c);
    } finally {
      await rx.close();
    }
  });

  it("email: Postmark SubscriptionChange unsubscribes once; after a reactivation a new unsubscribe is a new event", async () => {
    const rx = await receiver();
    try {
      const k = await subscribed(t, rx.url);
      const to = `sub-${Date.now()}@example.com`;
      const launch = await k.client.post("/api/campaigns/email/launch", {
        campaignName: "Sub",
        subject: "S",
        body: "B",
        contacts: [{ name: "Sub", email: to }],
      });
      const [row] = await campaignRecipientRows(t, launch.json().campaignId);
      const change = (suppress: boolean, at: string) => ({
        RecordType: "SubscriptionChange",
        MessageID: row.providerMessageId,
        Recipient: to,
        SuppressSending: suppress,
        SuppressionReason: suppress ? "ManualSuppression" : null,
        ChangedAt: at,
      });
      expect((await postmark(change(true, "2026-11-21T10:00:00Z"))).json().result).toBe("applied");
      expect((await postmark(change(true, "2026-11-21T10:00:00Z"))).json().result).toBe("replay");
      expect(ofType(rx.got, k.secret, "contact.unsubscribed")).toHaveLength(1);
      expect((await postmark(change(false, "2026-11-21T11:00:00Z"))).json().result).toBe("applied");
      expect((await postmark(change(true, "2026-11-21T12:00:00Z"))).json().result).toBe("applied");
      // the page after Postmark's unsubscribe: already unsubscribed, no third event
      expect((await t.app.inject({ method: "POST", url: `/u/${row.token}` })).statusCode).toBe(200);
      const events = ofType(rx.got, k.secret, "contact.unsubscribed");
      expect(events).toHaveLength(2);
      // the page made the opt-out the person's own: a Postmark reactivation no longer lifts it
      await postmark(change(false, "2026-11-21T13:00:00Z"));
      expect(await isSuppressed(t.db, k.user.id, "email", to)).toBe(true);
      for (const e of events)
        expect(e.data).toMatchObject({ recipient_id: row.id, contact_id: row.contactId, address: to });
    } finally {
      await rx.close();
    }
  });

  it("sms: delivered status callback, a reply, and a STOP emit once each (replays none); STOP after START is a new opt-out", async () => {
    const rx = await receiver();
    try {
      const k = await subscribed(t, rx.url);
      // a number no other test of this run is given: a STOP suppresses it in every workspace
      const phone = await uniquePhone("212");
      const ids = await findOrCreateContacts(t.ctx, k.user.id, [{ name: "Sue", phone }]);
      await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
      const launched = await createAndLaunchCampaign(t.ctx, k.user.id, {
        name: "Texts",
        channel: "sms",
        content: { message: "Hi" },
        recipients: { contactIds: ids },
        includeNotOptedIn: true,
      });
      const campaignId = launched.campaign.id;
      const [row] = await campaignRecipientRows(t, campaignId);
      expect(row.status).toBe("sent");
      const expected = { campaign_id: campaignId, recipient_id: row.id, contact_id: ids[0], channel: "sms" };

      const status = {
        MessageSid: row.providerMessageId!,
        MessageStatus: "delivered",
        AccountSid: sid,
        To: phone,
      };
      expect((await twilioPost("/api/webhooks/twilio/status", status)).json().result).toBe("applied");
      expect((await twilioPost("/api/webhooks/twilio/status", status)).json().result).toBe("replay");

      const inbound = (body: string, n: string) => ({
        MessageSid: `SMhook${n}${Date.now()}`,
        From: phone,
        To: "+15005550006",
        Body: body,
        AccountSid: sid,
      });
      const reply = inbound("Sounds good", "r");
      expect((await twilioPost("/api/webhooks/twilio/inbound", reply)).statusCode).toBe(200);
      expect((await twilioPost("/api/webhooks/twilio/inbound", reply)).statusCode).toBe(200); // replay

      const stop = inbound("STOP", "s1");
      expect((await twilioPost("/api/webhooks/twilio/inbound", stop)).body).toContain(
        "You have been unsubscribed",
      );
      await twilioPost("/api/webhooks/twilio/inbound", stop); // replay
      expect(ofType(rx.got, k.secret, "contact.unsubscribed")).toHaveLength(1);

      // START re-subscribes; a later STOP is a new opt-out and a new event
      expect((await twilioPost("/api/webhooks/twilio/inbound", inbound("START", "st"))).body).toContain(
        "resubscribed",
      );
      await twilioPost("/api/webhooks/twilio/inbound", inbound("STOP", "s2"));

      expect(verified(rx.got, k.secret).map((e) => e.type)).toEqual([
        "campaign.completed",
        "message.delivered",
        "message.replied",
        "contact.unsubscribed",
        "contact.unsubscribed",
      ]);
      expect(ofType(rx.got, k.secret, "message.delivered")[0].data).toMatchObject({
        ...expected,
        status: "delivered",
        // a text is not a call: no answerer, no length
        answered_by: null,
        call_seconds: null,
      });
      expect(ofType(rx.got, k.secret, "message.replied")[0].data).toMatchObject({
        ...expected,
        status: "replied",
        reply_text: "Sounds good",
      });
      for (const e of ofType(rx.got, k.secret, "contact.unsubscribed"))
        expect(e.data).toMatchObject({ ...expected, address: phone });
    } finally {
      await rx.close();
    }
  });

  it("call: a completed call's message.delivered says who answered and how long it lasted (Twilio AnsweredBy, CallDuration)", async () => {
    const rx = await receiver();
    try {
      const k = await subscribed(t, rx.url);
      const phone = await uniquePhone("212");
      const ids = await findOrCreateContacts(t.ctx, k.user.id, [{ name: "Cal", phone }]);
      await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
      const launched = await createAndLaunchCampaign(t.ctx, k.user.id, {
        name: "Calls",
        channel: "voice",
        content: { script: "Hello, this is a test call." },
        recipients: { contactIds: ids },
        includeNotOptedIn: true,
      });
      const [row] = await campaignRecipientRows(t, launched.campaign.id);
      expect(row.providerMessageId).toBeTruthy();
      const completed = {
        CallSid: row.providerMessageId!,
        CallStatus: "completed",
        AnsweredBy: "human",
        CallDuration: "42",
        AccountSid: sid,
        To: phone,
      };
      expect((await twilioPost("/api/webhooks/twilio/status", completed)).json().result).toBe("applied");
      await expect
        .poll(() => ofType(rx.got, k.secret, "message.delivered").length, { timeout: 10_000 })
        .toBe(1);
      expect(ofType(rx.got, k.secret, "message.delivered")[0].data).toMatchObject({
        campaign_id: launched.campaign.id,
        recipient_id: row.id,
        channel: "voice",
        status: "delivered",
        answered_by: "human",
        call_seconds: 42,
      });
    } finally {
      await rx.close();
    }
  });

  it("contacts API: PUT emits contact.updated and DELETE contact.deleted, once each with the contact id", async () => {
    const rx = await receiver();
    try {
      const k = await subscribed(t, rx.url);
      const created = await k.client.post("/api/contacts", {
        first_name: "Carl",
        email: `carl-${Date.now()}@example.com`,
      });
      expect(created.statusCode, created.body).toBe(200);
      const id = created.json().contact.id as number;
      const put = await k.client.put(`/api/contacts/${id}`, { company: "Acme" });
      expect(put.statusCode, put.body).toBe(200);
      expect((await k.client.del(`/api/contacts/${id}`)).statusCode).toBe(200);
      expect((await k.client.del(`/api/contacts/${id}`)).statusCode).toBe(404);
      const events = verified(rx.got, k.secret);
      expect(events.map((e) => e.type)).toEqual(["contact.updated", "contact.deleted"]);
      expect(events[0].data).toMatchObject({ id, company: "Acme" });
      expect(events[1].data).toEqual({ id, deleted: true });
    } finally {
      await rx.close();
    }
  });
});

describe("simulated engagement (local providers)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "true" });
  });
  afterAll(async () => t?.close());

  it("each simulated delivery, open and click emits its event once, for the recipient it changed", async () => {
    const rx = await receiver();
    try {
      const k = await subscribed(t, rx.url);
      const stamp = Date.now();
      const launch = await k.client.post("/api/campaigns/email/launch", {
        campaignName: "Simulated",
        subject: "S",
        body: "Go https://example.com/x",
        contacts: Array.from({ length: 12 }, (_, i) => ({
          name: `S${i}`,
          email: `sim${i}-${stamp}@example.com`,
        })),
      });
      expect(launch.statusCode, launch.body).toBe(200);
      const campaignId = launch.json().campaignId as number;
      const rows = await campaignRecipientRows(t, campaignId);
      const events = verified(rx.got, k.secret);
      const idsOf = (type: string) =>
        events
          .filter((e) => e.type === type)
          .map((e) => e.data.recipient_id)
          .sort();
      const sorted = (xs: number[]) => [...xs].sort();
      expect(idsOf("message.delivered")).toEqual(sorted(rows.map((r) => r.id)));
      expect(idsOf("message.opened")).toEqual(sorted(rows.filter((r) => r.openedAt).map((r) => r.id)));
      expect(idsOf("message.clicked")).toEqual(sorted(rows.filter((r) => r.clickedAt).map((r) => r.id)));
      expect(rows.some((r) => r.openedAt)).toBe(true);
      for (const e of events.filter((x) => x.type.startsWith("message.")))
        expect(e.data.campaign_id).toBe(campaignId);
    } finally {
      await rx.close();
    }
  });
});
