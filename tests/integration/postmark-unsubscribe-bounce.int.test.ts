import { and, eq, inArray } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, contacts, suppressions, workspaces } from "../../src/server/db/schema";
import {
  POSTMARK_UNSUBSCRIBE_SOURCE,
  postmarkBounceKind,
} from "../../src/server/features/campaigns/campaigns.webhooks";
import { isSuppressed } from "../../src/server/features/compliance/compliance.service";
import {
  campaignRecipientRows,
  createTestApp,
  outboxCountsTo,
  postPostmarkEvent,
  signUp,
  type TestApp,
} from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// Postmark files a recipient's unsubscribe request as a bounce of Type "Unsubscribe" (TypeCode 16;
// https://postmarkapp.com/developer/api/bounce-api#bounce-types, the SDK's BounceType.Unsubscribe):
// e.g. the person pressed their mailbox provider's unsubscribe button (List-Unsubscribe). It is the
// person's email opt-out, taken like the unsubscribe page's: the address goes on the workspace's
// suppression list (reason "unsubscribed", its own source, which a Postmark reactivation never lifts),
// the recipient is marked unsubscribed, `contact.unsubscribed` is emitted once, and the workspace never
// emails the address again.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    POSTMARK_WEBHOOK_USER: "hook",
    POSTMARK_WEBHOOK_PASSWORD: "secret",
    OUTBOUND_ALLOWED_HOSTS: "127.0.0.1",
  });
});
afterAll(async () => {
  await t?.close();
});

const postmark = (payload: object) => postPostmarkEvent(t.app, "hook", "secret", payload);

describe("Postmark Unsubscribe bounce (TypeCode 16)", () => {
  it("classifies Type Unsubscribe (or TypeCode 16 alone) as an unsubscribe, also when Postmark deactivated the address", () => {
    expect(postmarkBounceKind({ Type: "Unsubscribe", TypeCode: 16, Inactive: false })).toBe("unsubscribe");
    expect(postmarkBounceKind({ Type: "Unsubscribe", TypeCode: 16, Inactive: true })).toBe("unsubscribe");
    expect(postmarkBounceKind({ TypeCode: 16 })).toBe("unsubscribe");
    expect(postmarkBounceKind({ Type: "Subscribe", TypeCode: 32 })).toBe("informational");
  });

  it("suppresses the address as the person's opt-out, marks the recipient unsubscribed, emits contact.unsubscribed once, and no later campaign emails it", async () => {
    const rx = await webhookReceiver();
    try {
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
        payload: { url: rx.url, events: ["contact.unsubscribed"] },
      });
      expect(ep.statusCode, ep.body).toBe(201);
      const secret = ep.json().secret as string;
      const unsubscribedEvents = () =>
        rx.got
          .map(
            (g) =>
              new Webhook(secret).verify(g.body, {
                "webhook-id": String(g.headers["webhook-id"]),
                "webhook-timestamp": String(g.headers["webhook-timestamp"]),
                "webhook-signature": String(g.headers["webhook-signature"]),
              }) as { type: string; data: Record<string, unknown> },
          )
          .filter((e) => e.type === "contact.unsubscribed");

      const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
      // a: only the Unsubscribe bounce; b: Postmark suppressed it first (SubscriptionChange), then the
      // Unsubscribe bounce with the address deactivated; c: never opts out
      const [a, b, c] = ["a", "b", "c"].map((n) => `unsub-bounce-${n}-${stamp}@example.com`);
      const launch = (name: string, to: string[]) =>
        u.client.post("/api/campaigns/email/launch", {
          campaignName: name,
          subject: "Hi",
          body: "Hello",
          contacts: to.map((email) => ({ name: "P", email })),
        });
      const first = await launch("First", [a, b]);
      expect(first.statusCode, first.body).toBe(200);
      const campaignId = first.json().campaignId as number;
      const rows = await campaignRecipientRows(t, campaignId);
      const row = (to: string) => rows.find((r) => r.address === to)!;
      expect(rows.map((r) => r.status)).toEqual(["sent", "sent"]);

      const unsubscribeBounce = (to: string, id: number, inactive: boolean) => ({
        RecordType: "Bounce",
        ID: id,
        Type: "Unsubscribe",
        TypeCode: 16,
        Name: "Unsubscribe request",
        MessageID: row(to).providerMessageId,
        Email: to,
        Description: "Unsubscribe request",
        Details: "The recipient asked to unsubscribe",
        Inactive: inactive,
        BouncedAt: "2026-11-25T10:00:00Z",
      });
      const res = await postmark(unsubscribeBounce(a, 16_001, false));
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toBe("applied");
      // a replayed delivery of the same bounce changes nothing
      expect((await postmark(unsubscribeBounce(a, 16_001, false))).json().result).toBe("replay");

      // b: Postmark's own suppression first, then the person's unsubscribe request
      const change = (suppress: boolean, at: string) => ({
        RecordType: "SubscriptionChange",
        MessageID: row(b).providerMessageId,
        Recipient: b,
        SuppressSending: suppress,
        SuppressionReason: suppress ? "ManualSuppression" : null,
        ChangedAt: at,
      });
      expect((await postmark(change(true, "2026-11-25T09:00:00Z"))).json().result).toBe("applied");
      expect((await postmark(unsubscribeBounce(b, 16_002, true))).statusCode).toBe(200);

      // the recipients: unsubscribed, not bounced (the message arrived)
      const after = await campaignRecipientRows(t, campaignId);
      for (const r of after) {
        expect(r.status, r.address).toBe("sent");
        expect(r.reason, r.address).toBe("unsubscribed");
      }
      // the suppression list: the person's opt-out, with the unsubscribe request as its source
      const listed = await t.db
        .select({ value: suppressions.value, reason: suppressions.reason, source: suppressions.source })
        .from(suppressions)
        .where(and(eq(suppressions.workspaceId, u.user.id), eq(suppressions.channel, "email")))
        .orderBy(suppressions.value);
      expect(listed).toEqual([
        { value: a, reason: "unsubscribed", source: POSTMARK_UNSUBSCRIBE_SOURCE },
        { value: b, reason: "unsubscribed", source: POSTMARK_UNSUBSCRIBE_SOURCE },
      ]);
      // the contacts show the opt-out: email opt-in off, an opted_out activity
      const people = await t.db
        .select({ id: contacts.id, emailOptIn: contacts.emailOptIn })
        .from(contacts)
        .where(inArray(contacts.id, [row(a).contactId as number, row(b).contactId as number]));
      expect(people.map((p) => p.emailOptIn)).toEqual([false, false]);
      const optedOut = await t.db
        .select()
        .from(activities)
        .where(
          and(eq(activities.contactId, row(a).contactId as number), eq(activities.activityType, "opted_out")),
        );
      expect(optedOut).toHaveLength(1);
      // one contact.unsubscribed per person (b's came with Postmark's SubscriptionChange)
      await expect.poll(() => unsubscribedEvents().length, { timeout: 10_000 }).toBe(2);
      const events = unsubscribedEvents();
      expect(events.find((e) => e.data.address === a)?.data).toMatchObject({
        campaign_id: campaignId,
        recipient_id: row(a).id,
        contact_id: row(a).contactId,
        channel: "email",
      });

      // someone reactivates the addresses in Postmark: the person's opt-out stays
      expect((await postmark(change(false, "2026-11-25T11:00:00Z"))).json().result).toBe("applied");
      await postmark({
        RecordType: "SubscriptionChange",
        MessageID: row(a).providerMessageId,
        Recipient: a,
        SuppressSending: false,
        SuppressionReason: null,
        ChangedAt: "2026-11-25T11:00:00Z",
      });
      expect(await isSuppressed(t.db, u.user.id, "email", a)).toBe(true);
      expect(await isSuppressed(t.db, u.user.id, "email", b)).toBe(true);

      // the workspace never emails them again: a later campaign skips both, sends to c
      const later = await launch("Later", [a, b, c]);
      expect(later.statusCode, later.body).toBe(200);
      expect(later.json()).toMatchObject({ recipients: 1, skipped: { "opted out: unsubscribed": 2 } });
      expect(Object.fromEntries(await outboxCountsTo(t, [a, b, c]))).toEqual({ [a]: 1, [b]: 1, [c]: 1 });
      expect(unsubscribedEvents()).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });
});
