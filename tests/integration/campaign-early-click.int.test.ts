import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAndLaunchCampaign,
  getCampaignReport,
} from "../../src/server/features/campaigns/campaigns.service";
import { PERSON } from "../browser-ua";
import { campaignRecipientRows, createTestApp, signUp, type TestApp } from "../helpers";

// A tracked link clicked before the send that handed its message over has recorded it: a quick
// reader, or a link scanner with a browser's User-Agent (those that name themselves record nothing:
// campaign-bot-clicks.int), opens links within moments of delivery, while the send is still handing
// the rest of its batch to the provider. The click must not cost the message
// its record: it stays sent (sent_at, the provider's id, the sent activity), and the report never
// counts more clicks than messages sent.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("a click that arrives before the send is recorded", () => {
  it("email: the row is clicked and sent, with its provider id; report sent 3, clicked 3", async () => {
    const email = t.ctx.providers.email;
    const original = email.sendBatch.bind(email);
    const clicks: number[] = [];
    email.sendBatch = async (messages) => {
      const results = await original(messages);
      // the recipients click the tracked link as soon as the provider accepted the message
      for (const m of messages) {
        const link = /https?:\/\/[^"'\s]+\/c\/[a-z0-9]+\/0\/[A-Za-z0-9_-]+/.exec(m.html ?? "")?.[0];
        expect(link).toBeTruthy();
        const res = await t.app.inject({
          method: "GET",
          url: new URL(link as string).pathname,
          headers: PERSON,
        });
        clicks.push(res.statusCode);
      }
      return results;
    };
    try {
      const u = await signUp(t.app);
      const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
      const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
        name: "Early click",
        channel: "email",
        content: { subject: "Hi", body: "See https://example.com/offer" },
        recipients: { csv: Array.from({ length: 3 }, (_, i) => ({ email: `c${i}-${stamp}@example.com` })) },
      });
      expect(clicks).toEqual([302, 302, 302]);
      const rows = await campaignRecipientRows(t, launched.campaign.id);
      expect(
        rows.map((r) => ({
          status: r.status,
          sent: !!r.sentAt,
          clicked: !!r.clickedAt,
          providerId: !!r.providerMessageId,
        })),
      ).toEqual(Array(3).fill({ status: "clicked", sent: true, clicked: true, providerId: true }));
      const report = await getCampaignReport(t.ctx, u.user.id, launched.campaign.id);
      expect(report.figures).toMatchObject({ sent: 3, clicked: 3, pending: 0 });
      const [acts] = await t.sql<{ n: number }[]>`
        select count(*)::int as n from activities
        where workspace_id = ${u.user.id} and activity_type = 'email_sent'`;
      expect(acts?.n).toBe(3);
    } finally {
      email.sendBatch = original;
    }
  });
});
