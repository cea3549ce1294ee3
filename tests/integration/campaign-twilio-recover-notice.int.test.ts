import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, campaigns, contacts } from "../../src/server/db/schema";
import { processRecipients } from "../../src/server/features/campaigns/campaigns.engine";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { startTwilioFake, twilioFakeEnv } from "../fakes/twilio";
import { campaignRecipientRows, createTestApp, daytimeZone, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

// Twilio takes no idempotency key: a text whose outcome the engine did not record (the worker died
// after Twilio accepted it; a timeout) is found again by listing the number's messages and matching
// the body. A workspace's first text to a number ends "Reply STOP to opt out", so the lookup must
// match the body as it was sent, notice included, or the person gets the text twice.

let t: TestApp;
let tw: Awaited<ReturnType<typeof startTwilioFake>>;
const sid = `AC${"2".repeat(32)}`;
const token = "twilio-auth-token";
beforeAll(async () => {
  tw = await startTwilioFake(sid, token);
  t = await createTestApp({ ...twilioFakeEnv(sid, token, tw.url), CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
  await tw?.close();
});

describe("Twilio: a text accepted but not recorded", () => {
  it.each([
    ["a first text (with the STOP notice) is found by its body and not sent again", false],
    // Twilio gives a message its date_sent only once it leaves the queue: a lookup that filters on
    // DateSent misses a text accepted moments before and still queued, and sends it again
    ["a text still queued at Twilio (no date_sent yet) is found too", true],
  ])("%s", async (_title, holdQueued) => {
    tw.state.holdQueued = holdQueued;
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const phone = await uniquePhone("212");
    const ids = await findOrCreateContacts(t.ctx, user.id, [{ name: "Nora", phone }]);
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    const launched = await createAndLaunchCampaign(t.ctx, user.id, {
      name: `Recover ${phone}`,
      channel: "sms",
      content: { message: "Hi {{first_name}}, spring offer" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const texts = () => tw.messages.filter((m) => m.To === phone);
    expect(texts().map((m) => m.Body)).toEqual(["Acme: Hi Nora, spring offer\nReply STOP to opt out"]);
    const [row] = await campaignRecipientRows(t, launched.campaign.id);
    // the worker "died" after Twilio accepted the text, before recording it: the row is back to
    // sending with an expired lease, as a crash leaves it
    await t.db
      .update(campaignRecipients)
      .set({
        status: "sending",
        sentAt: null,
        providerMessageId: null,
        leaseUntil: new Date(Date.now() - 1000),
      })
      .where(eq(campaignRecipients.id, row!.id));
    await t.db
      .update(campaigns)
      .set({ status: "sending", completedAt: null })
      .where(eq(campaigns.id, launched.campaign.id));
    await processRecipients({ ...t.ctx, log: t.ctx.log }, [row!.id]);

    expect(texts()).toHaveLength(1);
    const [after] = await campaignRecipientRows(t, launched.campaign.id);
    expect(after).toMatchObject({ status: "sent", providerMessageId: texts()[0]?.sid });
    tw.state.holdQueued = false;
  });
});
