import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import {
  createAndLaunchCampaign,
  getCampaignReport,
} from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { ProviderError } from "../../src/server/providers/errors";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  runCampaignRowsNow,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// A provider call that times out (or answers 5xx) after the vendor accepted the message: the engine
// cannot tell "not sent" from "sent, answer lost", retries it after a back-off, and the retry must
// first ask the provider whether the message with the row's idempotency key went (findSent), as a
// re-claimed row does, instead of sending the person a second copy.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** Makes the provider's next `sendBatch` hand the messages over and then fail as a timeout does. */
function acceptThenTimeOut(provider: { sendBatch?: (m: never[]) => Promise<unknown> }) {
  const original = provider.sendBatch as NonNullable<typeof provider.sendBatch>;
  let calls = 0;
  provider.sendBatch = async (messages) => {
    calls += 1;
    const res = await original.call(provider, messages);
    if (calls === 1) throw new ProviderError("The provider did not answer within 15 s", { transient: true });
    return res;
  };
  return () => {
    provider.sendBatch = original;
  };
}

/** Lets the rows' back-off end and runs their waiting send jobs. */
async function runRetries(campaignId: number) {
  await runCampaignRowsNow(t, campaignId);
  expect(t.jobs.failures).toEqual([]);
}

describe("a send that timed out after the provider accepted it", () => {
  it("email: the retry finds the accepted message and sends no second copy", async () => {
    const { user } = await signUp(t.app);
    const stamp = `timeout-${Date.now()}`;
    const to = [`${stamp}-a@example.com`, `${stamp}-b@example.com`];
    const restore = acceptThenTimeOut(t.providers.email as never);
    let id: number;
    try {
      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Timeout ${stamp}`,
        channel: "email",
        content: { subject: `Offer ${stamp}`, body: "Hello {{first_name}}" },
        recipients: { csv: to.map((email) => ({ email })) },
      });
      id = launched.campaign.id;
      // the first attempt "failed": both rows wait for their retry
      expect((await campaignRecipientRows(t, id)).map((r) => r.status)).toEqual(["queued", "queued"]);
      await runRetries(id);
    } finally {
      restore();
    }
    for (const address of to) {
      const sent = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, address));
      expect(sent).toHaveLength(1);
      const row = (await campaignRecipientRows(t, id)).find((r) => r.address === address);
      expect(row).toMatchObject({ status: "sent", providerMessageId: sent[0]?.providerMessageId });
    }
    const { figures } = await getCampaignReport(t.ctx, user.id, id);
    expect(figures).toMatchObject({ sent: 2, failed: 0, pending: 0 });
  });

  it("sms: the retry finds the accepted text and sends no second copy", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const phones = [await uniquePhone("212"), await uniquePhone("646")];
    const ids = await findOrCreateContacts(
      t.ctx,
      user.id,
      phones.map((phone, i) => ({ name: `P${i}`, phone })),
    );
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    const restore = acceptThenTimeOut(t.providers.sms as never);
    let id: number;
    try {
      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Timeout texts ${Date.now()}`,
        channel: "sms",
        content: { message: "Hi {{first_name}}, spring offer" },
        recipients: { contactIds: ids },
        includeNotOptedIn: true,
      });
      id = launched.campaign.id;
      expect((await campaignRecipientRows(t, id)).map((r) => r.status)).toEqual(["queued", "queued"]);
      await runRetries(id);
    } finally {
      restore();
    }
    for (const address of phones) {
      const sent = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, address));
      expect(sent).toHaveLength(1);
      const row = (await campaignRecipientRows(t, id)).find((r) => r.address === address);
      expect(row).toMatchObject({ status: "sent", providerMessageId: sent[0]?.providerMessageId });
    }
  });

  it("a refusal (HTTP 429: the vendor did not take the messages) is retried without asking the vendor first", async () => {
    // only an answer that may have come after the vendor took the message (a timeout, a 5xx) calls for
    // a lookup before the retry; a 429 says it did not, and looking every refused row up would double
    // the calls to a vendor that is already limiting them
    const email = t.providers.email as {
      sendBatch: (m: never[]) => Promise<unknown>;
      findSent: (...a: never[]) => Promise<string | null>;
    };
    const original = { sendBatch: email.sendBatch, findSent: email.findSent };
    let sends = 0;
    let lookups = 0;
    email.sendBatch = async (messages) => {
      sends += 1;
      if (sends === 1)
        throw new ProviderError("Postmark: Rate limit exceeded", {
          transient: true,
          httpStatus: 429,
          vendorCode: 429,
        });
      return original.sendBatch.call(email, messages);
    };
    email.findSent = async (...a) => {
      lookups += 1;
      return original.findSent.apply(email, a);
    };
    const { user } = await signUp(t.app);
    const stamp = `refused-${Date.now()}`;
    const to = [`${stamp}-a@example.com`, `${stamp}-b@example.com`];
    let id: number;
    try {
      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Refused ${stamp}`,
        channel: "email",
        content: { subject: `Offer ${stamp}`, body: "Hello {{first_name}}" },
        recipients: { csv: to.map((address) => ({ email: address })) },
      });
      id = launched.campaign.id;
      expect((await campaignRecipientRows(t, id)).map((r) => r.status)).toEqual(["queued", "queued"]);
      await runRetries(id);
    } finally {
      Object.assign(email, original);
    }
    expect(lookups).toBe(0);
    for (const address of to) {
      const sent = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, address));
      expect(sent).toHaveLength(1);
    }
    const { figures } = await getCampaignReport(t.ctx, user.id, id);
    expect(figures).toMatchObject({ sent: 2, failed: 0, pending: 0 });
  });
});
