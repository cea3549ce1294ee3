import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import { preflightAudience } from "../../src/server/features/campaigns/campaigns.audience";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { nighttimePhone } from "../daytime-phone";
import { campaignRecipientRows, createTestApp, setPlan, signUp, type TestApp } from "../helpers";
import { uniqueSuffix } from "../unique-phone";

// A recipient list's row naming a stored contact (matched by email) who has no number on file is
// texted or called at the row's own number. Quiet hours (08:00-21:00 where the person is) must be
// judged with that number: it was not, so a contact with no other place on file was judged in the
// continental US fallback (11:00-21:00 US Eastern) and a Honolulu or Tokyo number was texted at night.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("a list row's number for a stored contact without one", () => {
  it.each(["sms", "voice"] as const)(
    "%s: is judged by that number's place: at night there the message waits, the preflight says so",
    async (channel) => {
      const { user } = await signUp(t.app);
      await setPlan(t, user.id, "business");
      const email = `night-${channel}-${Date.now()}@example.com`;
      // a stored contact with an email only: no number, no time zone, no address
      await findOrCreateContacts(t.ctx, user.id, [{ name: "Kai Night", email }]);
      const phone = nighttimePhone(Number(await uniqueSuffix()));
      const rows = [{ name: "Kai Night", email, phone }];
      const content =
        channel === "sms" ? { message: "Hi {{first_name}}" } : { script: "Hello {{first_name}}" };

      const pre = await preflightAudience(t.ctx, user.id, {
        channel,
        recipients: { csv: rows },
        includeNotOptedIn: true,
      });
      expect(pre).toMatchObject({ audienceSize: 1, willSendNow: 0, deferred: { count: 1 } });

      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Night ${channel} ${Date.now()}`,
        channel,
        content,
        recipients: { csv: rows },
        includeNotOptedIn: true,
      });
      const [row] = await campaignRecipientRows(t, launched.campaign.id);
      expect(row).toMatchObject({ address: phone, status: "queued" });
      // judged in the number's own zone, not "time zone unknown" (the US fallback)
      expect(row?.reason).toMatch(/^quiet hours \((?!time zone unknown)/);
      expect(row?.notBefore?.getTime()).toBeGreaterThan(Date.now());
      expect(await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, phone))).toEqual([]);
    },
  );
});
