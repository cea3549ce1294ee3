import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import {
  createAndLaunchCampaign,
  getCampaignReport,
} from "../../src/server/features/campaigns/campaigns.service";
import { ProviderError } from "../../src/server/providers/errors";
import { campaignRecipientRows, createTestApp, runCampaignRowsNow, signUp, type TestApp } from "../helpers";

// A message whose attempt timed out after the provider took it carries "outcome unknown", so the next
// attempt asks the provider first. When that lookup did not see it yet (Postmark's message search lags
// behind its sends) and the attempt after it was refused (429: not taken), the refusal cleared the
// flag, and the third attempt sent the message again without asking: the person got it twice. Once
// unknown, a row's outcome stays unknown until a lookup finds it or it is sent.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("an attempt's unknown outcome survives a later refusal", () => {
  it("timeout (taken) -> lookup lags, 429 -> the third attempt looks up again and records it sent, never a second copy", async () => {
    const email = t.providers.email as {
      sendBatch: (m: never[]) => Promise<unknown>;
      findSent: (key: string, hint: { to: string; since: Date }) => Promise<string | null>;
    };
    const original = { sendBatch: email.sendBatch, findSent: email.findSent };
    let sends = 0;
    let lookups = 0;
    email.sendBatch = async (messages) => {
      sends += 1;
      if (sends === 1) {
        // taken, and the answer lost
        await original.sendBatch.call(email, messages);
        throw new ProviderError("The provider did not answer within 15 s", { transient: true });
      }
      if (sends === 2)
        throw new ProviderError("Postmark: Rate limit exceeded", { transient: true, httpStatus: 429 });
      return original.sendBatch.call(email, messages);
    };
    email.findSent = async (key, hint) => {
      lookups += 1;
      // the first lookup comes before the vendor's search shows the message
      if (lookups === 1) return null;
      return original.findSent.call(email, key, hint);
    };
    const { user } = await signUp(t.app);
    const to = `sticky-unknown-${Date.now()}@example.com`;
    let id: number;
    try {
      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Sticky unknown ${Date.now()}`,
        channel: "email",
        content: { subject: "Offer", body: "Hello {{first_name}}" },
        recipients: { csv: [{ email: to }] },
      });
      id = launched.campaign.id;
      for (let i = 0; i < 3; i++) {
        await runCampaignRowsNow(t, id);
        const [row] = await campaignRecipientRows(t, id);
        if (row?.status === "sent") break;
      }
      expect(t.jobs.failures).toEqual([]);
    } finally {
      email.sendBatch = original.sendBatch;
      email.findSent = original.findSent;
    }
    const sent = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
    expect(sent).toHaveLength(1);
    expect(sends).toBe(2);
    expect(lookups).toBe(2);
    const [row] = await campaignRecipientRows(t, id);
    expect(row).toMatchObject({ status: "sent", providerMessageId: sent[0]?.providerMessageId });
    expect((await getCampaignReport(t.ctx, user.id, id)).figures).toMatchObject({ sent: 1, failed: 0 });
  });
});
