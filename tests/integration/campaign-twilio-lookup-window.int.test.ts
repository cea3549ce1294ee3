import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import {
  createAndLaunchCampaign,
  getCampaignReport,
} from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { ProviderError } from "../../src/server/providers/errors";
import { startTwilioFake, twilioFakeEnv } from "../fakes/twilio";
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

// Twilio keeps no idempotency key: a call whose attempt timed out is looked up before it is placed
// again by listing the calls to the number since a time, and any call found is taken as this one.
// That time was "a day before now", so a call to the person from before the campaign started (the
// contact page this morning, another campaign) was taken for the campaign's call: the row was
// recorded called, with the other call's id, and the person was never called.

let t: TestApp;
let tw: Awaited<ReturnType<typeof startTwilioFake>>;
const sid = `AC${"3".repeat(32)}`;
const token = "twilio-auth-token";
beforeAll(async () => {
  tw = await startTwilioFake(sid, token);
  t = await createTestApp({ ...twilioFakeEnv(sid, token, tw.url), CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
  await tw?.close();
});

describe("a campaign call retried after a timeout", () => {
  it("is not mistaken for a call to the number made before the campaign started: the person is called", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const phone = await uniquePhone("212");
    const ids = await findOrCreateContacts(t.ctx, user.id, [{ name: "Rita", phone }]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), callOptIn: true })
      .where(inArray(contacts.id, ids));
    // a call to the number five hours ago, before this campaign (the contact page, another campaign)
    tw.calls.push({
      sid: `CA${"e".repeat(32)}`,
      To: phone,
      From: "+15005550006",
      Twiml: "<Response><Say>Earlier</Say></Response>",
      date_created: new Date(Date.now() - 5 * 3_600_000).toUTCString(),
    });
    // the campaign's first attempt times out before Twilio creates the call
    const voice = t.providers.voice as { call: (c: never) => Promise<unknown> };
    const original = voice.call;
    let attempts = 0;
    voice.call = async (c) => {
      attempts += 1;
      if (attempts === 1) throw new ProviderError("Twilio: request timed out", { transient: true });
      return original.call(voice, c);
    };
    let id: number;
    try {
      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Call ${phone}`,
        channel: "voice",
        content: { script: "Hello {{first_name}}, a quick word about spring." },
        recipients: { contactIds: ids },
      });
      id = launched.campaign.id;
      expect((await campaignRecipientRows(t, id)).map((r) => [r.status, r.outcomeUnknown])).toEqual([
        ["queued", true],
      ]);
      await runCampaignRowsNow(t, id);
      expect(t.jobs.failures).toEqual([]);
    } finally {
      voice.call = original;
    }
    const calls = tw.calls.filter((c) => c.To === phone);
    expect(calls).toHaveLength(2);
    const [row] = await campaignRecipientRows(t, id);
    expect(row).toMatchObject({ status: "sent", providerMessageId: calls[1]?.sid });
    expect((await getCampaignReport(t.ctx, user.id, id)).figures).toMatchObject({ sent: 1 });
  });
});
