import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, workspaces } from "../../src/server/db/schema";
import { DROP_REPORT_WAIT_MS } from "../../src/server/features/campaigns/campaigns.send";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { ProviderError } from "../../src/server/providers/errors";
import { dropCowboyCallback, startDropCowboyFake } from "../fakes/dropcowboy";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  runCampaignRowsNow,
  signUp,
  type TestApp,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// Drop Cowboy keeps no idempotency key and has no API to look a drop up. A drop it took whose answer
// was lost (a timeout) was dropped again at the next attempt's back-off (seconds later): two
// voicemails. Its status callback names the drop's foreign_id (our recipient key) and comes within
// minutes, so a drop whose outcome is unknown now waits for it (DROP_REPORT_WAIT_MS): a callback held
// meanwhile records the row sent with that drop and applies it; only with no report after the wait is
// it dropped again. The real provider class drives a fake of Drop Cowboy's RVM API.

let t: TestApp;
let dc: Awaited<ReturnType<typeof startDropCowboyFake>>;
beforeAll(async () => {
  dc = await startDropCowboyFake("team-lost", "lost-secret");
  t = await createTestApp({
    OUTBOUND_ALLOWED_HOSTS: "127.0.0.1",
    VOICEMAIL_PROVIDER: "dropcowboy",
    DROPCOWBOY_TEAM_ID: "team-lost",
    DROPCOWBOY_SECRET: "lost-secret",
    DROPCOWBOY_API_URL: dc.apiUrl,
    CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
  });
});
afterAll(async () => {
  await t?.close();
  await dc?.close();
});

/** Launches a voicemail campaign to one new contact while the first drop's answer is lost. */
async function launchLosingFirstAnswer() {
  const provider = t.providers.voicemail as { drop: (d: never) => Promise<{ providerMessageId: string }> };
  const original = provider.drop;
  let lost = false;
  provider.drop = async (d) => {
    const res = await original.call(provider, d);
    if (lost) return res;
    lost = true;
    // Drop Cowboy took it; its answer never arrived
    throw new ProviderError("Drop Cowboy: The operation was aborted due to timeout", { transient: true });
  };
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const phone = await uniquePhone("646");
  const ids = await findOrCreateContacts(t.ctx, u.user.id, [{ name: "Lou", phone }]);
  await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
  try {
    const res = await u.client.post("/api/campaigns", {
      name: "Lost answer",
      channel: "voicemail",
      content: { script: "Hi {{name}}, call us back." },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const campaignId = res.json().campaignId as number;
    const [row] = await campaignRecipientRows(t, campaignId);
    return { campaignId, row: row!, restore: () => (provider.drop = original) };
  } catch (e) {
    provider.drop = original;
    throw e;
  }
}

const dropsOf = (recipientId: number) => dc.drops.filter((d) => d.foreign_id === `cr-${recipientId}`);

describe("a Drop Cowboy drop whose answer was lost", () => {
  it("waits for the drop's report; the report held meanwhile records it sent and delivered, never a second drop", async () => {
    const { campaignId, row, restore } = await launchLosingFirstAnswer();
    try {
      expect(row).toMatchObject({ status: "queued", outcomeUnknown: true });
      // not the usual back-off of seconds: the wait for Drop Cowboy's report
      expect(row.notBefore!.getTime()).toBeGreaterThanOrEqual(Date.now() + DROP_REPORT_WAIT_MS - 60_000);
      const [first] = dropsOf(row.id);
      expect(dropsOf(row.id)).toHaveLength(1);
      // Drop Cowboy reports the drop; its id matches no recipient yet, so it is held
      const c = dropCowboyCallback(first!, { status: "success" });
      const res = await t.app.inject({
        method: "POST",
        url: c.path,
        payload: JSON.stringify(c.body),
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().result).toBe("unknown");
      await runCampaignRowsNow(t, campaignId);
      expect(t.jobs.failures).toEqual([]);
    } finally {
      restore();
    }
    expect(dropsOf(row.id)).toHaveLength(1);
    const [after] = await campaignRecipientRows(t, campaignId);
    expect(after).toMatchObject({ status: "delivered", providerMessageId: dropsOf(row.id)[0]!.drop_id });
  });

  it("with no report after the wait, it is dropped again (once)", async () => {
    const { campaignId, row, restore } = await launchLosingFirstAnswer();
    try {
      expect(row).toMatchObject({ status: "queued", outcomeUnknown: true });
      await runCampaignRowsNow(t, campaignId);
      expect(t.jobs.failures).toEqual([]);
    } finally {
      restore();
    }
    const drops = dropsOf(row.id);
    expect(drops).toHaveLength(2);
    const [after] = await campaignRecipientRows(t, campaignId);
    expect(after).toMatchObject({ status: "sent", providerMessageId: drops[1]!.drop_id });
  });
});
