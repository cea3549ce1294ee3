import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
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

// A provider's status callback can arrive before the send that got its message id has recorded it
// (Twilio calls back within milliseconds of accepting a message). Here the provider calls back from
// inside its own send call, before returning the ids: before, the event matched no recipient, was
// recorded as seen (a retry was a replay) and lost, and the rows stayed 'sent' for good.

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

describe("status callbacks that arrive before the send is recorded", () => {
  it("email: Postmark's Delivery posted from inside sendBatch is applied once the send records the ids", async () => {
    const email = t.ctx.providers.email;
    const original = email.sendBatch.bind(email);
    const answers: string[] = [];
    email.sendBatch = async (messages) => {
      const results = await original(messages);
      for (const r of results) {
        const res = await postPostmarkEvent(t.app, "hook", "secret", {
          RecordType: "Delivery",
          MessageID: r.providerMessageId,
          ID: `early-${r.providerMessageId}`,
        });
        answers.push(String(res.statusCode));
      }
      return results;
    };
    try {
      const u = await signUp(t.app);
      const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
      const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
        name: "Early",
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        recipients: { csv: Array.from({ length: 3 }, (_, i) => ({ email: `e${i}-${stamp}@example.com` })) },
      });
      expect(answers).toEqual(["200", "200", "200"]);
      const rows = await rowsOf(launched.campaign.id);
      expect(rows.map((r) => [r.status, !!r.deliveredAt])).toEqual(Array(3).fill(["delivered", true]));
      // nothing left held for these ids
      const [held] = await t.sql<{ n: number }[]>`
        select count(*)::int as n from campaign_early_events
        where provider_message_id in ${t.sql(rows.map((r) => r.providerMessageId as string))}`;
      expect(held?.n).toBe(0);
    } finally {
      email.sendBatch = original;
    }
  });

  it("SMS: Twilio's 'delivered' posted from inside the send is applied once the send records the sids", async () => {
    const sms = t.ctx.providers.sms;
    const originalSend = sms.send.bind(sms);
    const originalBatch = sms.sendBatch?.bind(sms);
    const callBack = (sid: string) =>
      postTwilioWebhook(t.app, twToken, "status", { MessageSid: sid, MessageStatus: "delivered" });
    sms.send = async (m) => {
      const r = await originalSend(m);
      await callBack(r.providerMessageId);
      return r;
    };
    if (originalBatch)
      sms.sendBatch = async (ms) => {
        const rs = await originalBatch(ms);
        for (const r of rs) await callBack(r.providerMessageId);
        return rs;
      };
    try {
      const u = await signUp(t.app);
      await setPlan(t, u.user.id, "business");
      const ids = await findOrCreateContacts(
        t.ctx,
        u.user.id,
        ["(989) 555-3101", "(989) 555-3102"].map((phone, i) => ({ name: `P${i}`, phone })),
      );
      await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
      const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
        name: "Early texts",
        channel: "sms",
        content: { message: "Hi" },
        recipients: { contactIds: ids },
        includeNotOptedIn: true,
      });
      const rows = await rowsOf(launched.campaign.id);
      expect(rows.map((r) => [r.status, !!r.deliveredAt])).toEqual(Array(2).fill(["delivered", true]));
      // the held events were taken (applied), none is left to apply again
      const [held] = await t.sql<{ n: number }[]>`
        select count(*)::int as n from campaign_early_events
        where provider_message_id in ${t.sql(rows.map((r) => r.providerMessageId as string))}`;
      expect(held?.n).toBe(0);
    } finally {
      sms.send = originalSend;
      if (originalBatch) sms.sendBatch = originalBatch;
    }
  });
});
