import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, outboxMessages } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp } from "../helpers";

// The person's own unsubscribe (the page or RFC 8058 one-click) is theirs to undo: a reactivation
// in Postmark (SubscriptionChange with SuppressSending=false: someone reactivated a bounced or
// suppressed address in the Postmark account) lifts only what Postmark's own webhooks suppressed.

let t: TestApp;
const auth = `Basic ${Buffer.from("hook:secret").toString("base64")}`;
beforeAll(async () => {
  t = await createTestApp({
    POSTMARK_WEBHOOK_USER: "hook",
    POSTMARK_WEBHOOK_PASSWORD: "secret",
    CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
  });
});
afterAll(async () => t?.close());

const postmark = (body: Record<string, unknown>) =>
  t.app.inject({
    method: "POST",
    url: "/api/webhooks/postmark",
    payload: body,
    headers: { authorization: auth },
  });
const sentTo = async (to: string) =>
  (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to))).length;

describe("a Postmark reactivation and the person's own unsubscribe", () => {
  it("does not undo an unsubscribe made through the link; still lifts a hard bounce Postmark reported", async () => {
    const { client } = await signUp(t.app);
    const stamp = Date.now();
    const unsub = `own-unsub-${stamp}@example.com`;
    const bounced = `bounced-${stamp}@example.com`;
    const launch = (name: string) =>
      client.post("/api/campaigns/email/launch", {
        campaignName: name,
        subject: "S",
        body: "B",
        contacts: [
          { name: "U", email: unsub },
          { name: "B", email: bounced },
        ],
      });
    const first = await launch("First");
    expect(first.statusCode).toBe(200);
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, first.json().campaignId));
    const row = (address: string) => rows.find((r) => r.address === address)!;
    // the person unsubscribes with the one-click POST; later the address also hard-bounces
    const post = await t.app.inject({
      method: "POST",
      url: `/u/${row(unsub).token}`,
      payload: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.statusCode).toBe(200);
    for (const [i, address] of [unsub, bounced].entries()) {
      const r = row(address);
      const bounce = {
        RecordType: "Bounce",
        MessageID: r.providerMessageId,
        Type: "HardBounce",
        ID: stamp + i,
      };
      expect((await postmark(bounce)).statusCode).toBe(200);
      // the address is reactivated in Postmark
      const reactivated = {
        RecordType: "SubscriptionChange",
        MessageID: r.providerMessageId,
        Recipient: address,
        SuppressSending: false,
        SuppressionReason: null,
        ChangedAt: new Date(stamp + 60_000 + i).toISOString(),
      };
      expect((await postmark(reactivated)).json().result).toBe("applied");
    }
    const second = await launch("Second");
    expect(second.statusCode).toBe(200);
    expect(second.json().skipped).toEqual({ "opted out: unsubscribed": 1 });
    expect([await sentTo(unsub), await sentTo(bounced)]).toEqual([1, 2]);
  });

  it("keeps an unsubscribe made after Postmark had already suppressed the address (bounce first)", async () => {
    const { client } = await signUp(t.app);
    const stamp = Date.now();
    const to = `bounce-then-unsub-${stamp}@example.com`;
    const launch = (name: string) =>
      client.post("/api/campaigns/email/launch", {
        campaignName: name,
        subject: "S",
        body: "B",
        contacts: [{ name: "U", email: to }],
      });
    const first = await launch("First");
    const [r] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, first.json().campaignId));
    await postmark({ RecordType: "Bounce", MessageID: r.providerMessageId, Type: "HardBounce", ID: stamp });
    // the person then unsubscribes through the link in the message they did get
    expect((await t.app.inject({ method: "POST", url: `/u/${r.token}` })).statusCode).toBe(200);
    await postmark({
      RecordType: "SubscriptionChange",
      MessageID: r.providerMessageId,
      Recipient: to,
      SuppressSending: false,
      SuppressionReason: null,
      ChangedAt: new Date(stamp + 60_000).toISOString(),
    });
    const second = await launch("Second");
    expect(second.statusCode).toBe(422);
    expect(second.json().skipped).toEqual({ "opted out: unsubscribed": 1 });
    expect(await sentTo(to)).toBe(1);
  });

  it("an unsubscribe shows on the contact (email_opt_in false); setting it back to true does not re-subscribe", async () => {
    const { client } = await signUp(t.app);
    const to = `flag-${Date.now()}@example.com`;
    const first = await client.post("/api/campaigns/email/launch", {
      campaignName: "First",
      subject: "S",
      body: "B",
      contacts: [{ name: "F", email: to }],
    });
    const [r] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, first.json().campaignId));
    const post = await t.app.inject({
      method: "POST",
      url: `/u/${r.token}`,
      payload: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.statusCode).toBe(200);
    // the CRM, the API and the export read the flag: it must say the person opted out
    const contact = (await client.get(`/api/contacts/${r.contactId}`)).json().contact;
    expect(contact.email_opt_in).toBe(false);
    // a user (or an API client) cannot set the flag again: only the person can opt back in (409, the
    // flag stays false); the suppression list holds either way
    const put = await client.put(`/api/contacts/${r.contactId}`, { email_opt_in: true });
    expect(put.statusCode).toBe(409);
    expect((await client.get(`/api/contacts/${r.contactId}`)).json().contact.email_opt_in).toBe(false);
    const single = await client.post(`/api/contacts/${r.contactId}/send-email`, { subject: "S", body: "B" });
    expect(single.statusCode).toBe(422);
    expect(await sentTo(to)).toBe(1);
  });
});
