import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, contacts, outboxMessages } from "../../src/server/db/schema";
import { processRecipients } from "../../src/server/features/campaigns/campaigns.engine";
import {
  createAndLaunchCampaign,
  getCampaignReport,
} from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import type { JobDeps } from "../../src/server/jobs/define";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  deferred,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// Two recipients of one campaign whose contacts were both moved, after the launch, onto one number
// nobody in the campaign had (a household's shared line typed into both records), sent by two parts
// at once (a worker sends two chunks of 500 side by side; two workers): each part checked whether
// another row had reached the number, saw the other row still at its launch number, and both texted
// the shared line. One part reserves the number before it sends; the other skips 'duplicate address'.

let t: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
});
afterAll(async () => t?.close());

describe("two recipients moved onto one number, sent by two parts at once", () => {
  it("the number is texted once; the other recipient is skipped 'duplicate address'", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const shared = await uniquePhone("212");
    const marker = `moved-both-${Date.now()}`;
    const ids = (await findOrCreateContacts(t.ctx, user.id, [
      { name: "Bo One", phone: await uniquePhone("646") },
      { name: "Cy Two", phone: await uniquePhone("646") },
    ])) as [number, number];
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    const launched = await createAndLaunchCampaign(t.ctx, user.id, {
      name: `Moved both ${marker}`,
      channel: "sms",
      content: { message: `Spring offer ${marker}` },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
      scheduledAt: new Date(Date.now() + 3_600_000),
    });
    const id = launched.campaign.id;
    for (const c of ids) {
      const res = await client.put(`/api/contacts/${c}`, { phone: shared });
      expect(res.statusCode, res.body).toBe(200);
    }
    // the campaign starts; its two rows are sent by two parts at once
    await t.db
      .update(campaigns)
      .set({ status: "sending", startedAt: new Date() })
      .where(eq(campaigns.id, id));
    const [first, second] = await campaignRecipientRows(t, id);

    const sms = t.providers.sms as { sendBatch: (m: never[]) => Promise<unknown> };
    const original = sms.sendBatch;
    const firstInProvider = deferred();
    const letFirstGo = deferred();
    let calls = 0;
    sms.sendBatch = async (messages) => {
      calls += 1;
      if (calls === 1) {
        // the first part is with the provider while the second part screens and sends
        firstInProvider.resolve();
        await letFirstGo.promise;
      }
      return original.call(sms, messages);
    };
    try {
      const one = processRecipients(deps, [first!.id]);
      await firstInProvider.promise;
      await processRecipients(deps, [second!.id]);
      letFirstGo.resolve();
      await one;
    } finally {
      letFirstGo.resolve();
      sms.sendBatch = original;
    }

    const texts = (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, shared))).filter(
      (m) => (m.body ?? "").includes(marker),
    );
    expect(texts).toHaveLength(1);
    const rows = await campaignRecipientRows(t, id);
    expect(rows.map((r) => [r.status, r.address, r.reason])).toEqual([
      ["sent", shared, null],
      ["skipped", shared, "duplicate address"],
    ]);
    const { figures } = await getCampaignReport(t.ctx, user.id, id);
    expect(figures).toMatchObject({ sent: 1, skipped: 1, pending: 0 });
  });
});
