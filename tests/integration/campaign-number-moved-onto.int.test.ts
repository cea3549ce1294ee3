import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, campaigns, contacts, outboxMessages } from "../../src/server/db/schema";
import {
  createAndLaunchCampaign,
  getCampaignReport,
} from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { campaignRecipientRows, createTestApp, daytimeZone, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

// Numbers are not unique among contacts: two contacts may share one (a household, a front desk). The
// launch sends one message per number ("duplicate address"). A contact whose number was changed after
// the launch to a number another recipient of the same campaign holds is sent at the new number when
// its row comes first, and then the other recipient's row, still waiting (a retry's back-off, a
// quiet-hours deferral, a later part), must not text that number a second time.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const textsTo = async (to: string, marker: string) =>
  (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to))).filter(
    (m) => m.channel === "sms" && (m.body ?? "").includes(marker),
  );

describe("a number moved onto another waiting recipient's number after the launch", () => {
  it("is texted once: the waiting recipient at that number is skipped 'duplicate address'", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const shared = await uniquePhone("212");
    const bobsOld = await uniquePhone("646");
    const marker = `moved-onto-${Date.now()}`;
    const [bob, ann] = (await findOrCreateContacts(t.ctx, user.id, [
      { name: "Bob Mover", phone: bobsOld },
      { name: "Ann Waiting", phone: shared },
    ])) as [number, number];
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone() })
      .where(inArray(contacts.id, [bob, ann]));
    const launched = await createAndLaunchCampaign(t.ctx, user.id, {
      name: `Moved onto ${marker}`,
      channel: "sms",
      content: { message: `Spring offer ${marker}` },
      recipients: { contactIds: [bob, ann] },
      includeNotOptedIn: true,
      scheduledAt: new Date(Date.now() + 3_600_000),
    });
    const id = launched.campaign.id;
    expect(launched.queued).toBe(2);
    // Ann's row waits (as after a transient failure's back-off); Bob's number is corrected to Ann's
    await t.db
      .update(campaignRecipients)
      .set({ notBefore: new Date(Date.now() + 600_000) })
      .where(and(eq(campaignRecipients.campaignId, id), eq(campaignRecipients.contactId, ann)));
    const res = await client.put(`/api/contacts/${bob}`, { phone: shared });
    expect(res.statusCode, res.body).toBe(200);
    // the schedule comes due: Bob's row goes (to the shared number), Ann's keeps waiting
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, id));
    await t.jobs.runDeferred();
    expect(await textsTo(shared, marker)).toHaveLength(1);
    // Ann's time comes
    await t.db
      .update(campaignRecipients)
      .set({ notBefore: new Date(Date.now() - 1000) })
      .where(and(eq(campaignRecipients.campaignId, id), eq(campaignRecipients.contactId, ann)));
    await t.jobs.runDeferred();
    expect(t.jobs.failures).toEqual([]);

    expect(await textsTo(shared, marker)).toHaveLength(1);
    expect(await textsTo(bobsOld, marker)).toHaveLength(0);
    const rows = await campaignRecipientRows(t, id);
    const by = (cid: number) => rows.find((r) => r.contactId === cid);
    expect(by(bob)).toMatchObject({ status: "sent", address: shared });
    expect(by(ann)).toMatchObject({ status: "skipped", reason: "duplicate address" });
    // the report counts one sent, one skipped for the duplicate
    const { figures } = await getCampaignReport(t.ctx, user.id, id);
    expect(figures).toMatchObject({
      sent: 1,
      skipped: 1,
      pending: 0,
      skippedReasons: [{ reason: "duplicate address", count: 1 }],
    });
  });
});
