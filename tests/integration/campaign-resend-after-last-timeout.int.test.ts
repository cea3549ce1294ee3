import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import { MAX_ATTEMPTS } from "../../src/server/features/campaigns/campaigns.delivery";
import {
  createAndLaunchCampaign,
  getCampaignReport,
  resendFailed,
} from "../../src/server/features/campaigns/campaigns.service";
import { ProviderError } from "../../src/server/providers/errors";
import { campaignRecipientRows, createTestApp, runCampaignRowsNow, signUp, type TestApp } from "../helpers";

// A message whose last allowed attempt timed out after the provider accepted it ends `failed` (the
// engine cannot tell), and "Resend to failed only" sent it again without asking the provider first:
// the person got the email twice. The retries before it were refusals (HTTP 429: not taken), so the
// row did not carry "outcome unknown" into the resend.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("resend to failed after a last attempt that timed out", () => {
  it("asks the provider first: the message it accepted is recorded sent, never sent twice", async () => {
    const email = t.providers.email as { sendBatch: (m: never[]) => Promise<unknown> };
    const original = email.sendBatch;
    let calls = 0;
    email.sendBatch = async (messages) => {
      calls += 1;
      // every attempt but the last is refused (the vendor did not take it)
      if (calls < MAX_ATTEMPTS)
        throw new ProviderError("Postmark: Rate limit exceeded", { transient: true, httpStatus: 429 });
      const res = await original.call(email, messages);
      // the last one is taken, and its answer lost
      if (calls === MAX_ATTEMPTS)
        throw new ProviderError("The provider did not answer within 15 s", { transient: true });
      return res;
    };
    const { user } = await signUp(t.app);
    const to = `last-timeout-${Date.now()}@example.com`;
    let id: number;
    try {
      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Last timeout ${Date.now()}`,
        channel: "email",
        content: { subject: "Offer", body: "Hello {{first_name}}" },
        recipients: { csv: [{ email: to }] },
      });
      id = launched.campaign.id;
      for (let i = 1; i < MAX_ATTEMPTS; i++) {
        await runCampaignRowsNow(t, id);
      }
      expect(calls).toBe(MAX_ATTEMPTS);
      expect((await campaignRecipientRows(t, id)).map((r) => r.status)).toEqual(["failed"]);

      await resendFailed(t.ctx, user.id, id);
      await t.jobs.runDeferred();
      expect(t.jobs.failures).toEqual([]);
    } finally {
      email.sendBatch = original;
    }
    const sent = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
    expect(sent).toHaveLength(1);
    const [row] = await campaignRecipientRows(t, id);
    expect(row).toMatchObject({ status: "sent", providerMessageId: sent[0]?.providerMessageId });
    expect((await getCampaignReport(t.ctx, user.id, id)).figures).toMatchObject({ sent: 1, failed: 0 });
  });
});
