import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns } from "../../src/server/db/schema";
import { pauseCampaignForPlan } from "../../src/server/features/campaigns/campaigns.queries";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import {
  type AuthedClient,
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// What paused a campaign is the campaign's own `pause_cause` (migration 0065), written by the pause
// that stopped it, not read back from the words of its reason: the screens used to call every
// reason starting "Paused because " a departure ("its launcher left"), so a plan's sentence worded
// that way read as a departure; a departure's pause of an SMS campaign on a plan with an SMS limit
// was offered "See plans" as if the plan had stopped it. The cause ends with the pause (resume,
// cancel), and only a paused campaign can hold one.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const DAY = 24 * 3600_000;

async function scheduleEmail(client: AuthedClient, name: string) {
  const res = await client.post("/api/campaigns/email/launch", {
    campaignName: name,
    subject: "Spring offer",
    body: "Hi there",
    contacts: [{ name: "R", email: uniqueEmail("pause-cause") }],
    scheduledAt: new Date(Date.now() + DAY).toISOString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaignId as number;
}

/** The campaign's stored cause (the column itself). */
async function storedCause(id: number) {
  const [c] = await t.db
    .select({ status: campaigns.status, pauseCause: campaigns.pauseCause })
    .from(campaigns)
    .where(eq(campaigns.id, id));
  return c;
}

/** The report as the owner's screen reads it. */
async function report(owner: AuthedClient, id: number) {
  const res = await owner.get(`/api/campaigns/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  return {
    status: body.campaign.status as string,
    pauseCause: body.campaign.pauseCause as string | null,
    pausedRefusal: body.pausedRefusal as unknown,
  };
}

describe("campaigns.pause_cause", () => {
  it("a plan's pause reads 'plan' even when its sentence begins 'Paused because '; resume clears the cause", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const id = await scheduleEmail(owner.client, "Spring promo");
    // its time came and it is sending when the send engine stops it for the plan
    await t.db
      .update(campaigns)
      .set({ status: "sending", startedAt: new Date() })
      .where(eq(campaigns.id, id));
    const reason =
      "Paused because your plan's emails for this month are used up. The campaign was paused with its remaining messages unsent: resume it after upgrading, or cancel it.";
    expect(await pauseCampaignForPlan(t.db, owner.user.id, id, reason)).toBe(true);

    expect((await report(owner.client, id)).pauseCause).toBe("plan");
    expect(await storedCause(id)).toEqual({ status: "paused", pauseCause: "plan" });
    const list = await trpcCall(owner.client, "campaigns.list", undefined, "query");
    expect(list.status, JSON.stringify(list.error)).toBe(200);
    const listed = (list.data as { id: number; pauseCause: string | null }[]).find((c) => c.id === id);
    expect(listed?.pauseCause).toBe("plan");

    // Business sends unlimited emails: resumed (its time is still ahead: scheduled again)
    const resumed = await owner.client.post(`/api/campaigns/${id}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(await storedCause(id)).toEqual({ status: "scheduled", pauseCause: null });
    expect((await report(owner.client, id)).pauseCause).toBeNull();
  });

  it("a departure's pause of an SMS campaign reads 'departure' with no plan refusal; cancel clears the cause", async () => {
    const owner = await signUp(t.app, { name: "Olga Owner", business_name: "Leafy Lawns" });
    await setPlan(t, owner.user.id, "business");
    const mel = await joinWorkspace(t, owner.client, "member", { name: "Mel Member" });
    const [contactId] = await findOrCreateContacts(t.ctx, owner.user.id, [
      { name: "P", phone: await uniquePhone("212") },
    ]);
    const sms = await createAndLaunchCampaign(
      t.ctx,
      owner.user.id,
      {
        name: "Mel's texts",
        channel: "sms",
        content: { message: "Hi" },
        recipients: { contactIds: [contactId!] },
        includeNotOptedIn: true,
        scheduledAt: new Date(Date.now() + DAY),
      },
      mel.user.id,
    );
    const id = sms.campaign.id;
    const left = await trpcCall(mel.client, "workspaces.leave", undefined);
    expect(left.status, JSON.stringify(left.error)).toBe(200);

    // Business has a monthly SMS limit, but the plan did not stop this campaign: no "See plans"
    expect(await report(owner.client, id)).toEqual({
      status: "paused",
      pauseCause: "departure",
      pausedRefusal: null,
    });
    expect(await storedCause(id)).toEqual({ status: "paused", pauseCause: "departure" });

    const cancelled = await owner.client.post(`/api/campaigns/${id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await storedCause(id)).toEqual({ status: "cancelled", pauseCause: null });
  });

  it("a person's pause has no cause; a cause on a campaign that is not paused is refused by the database", async () => {
    const owner = await signUp(t.app);
    await setPlan(t, owner.user.id, "business");
    const id = await scheduleEmail(owner.client, "Held by hand");
    const paused = await owner.client.post(`/api/campaigns/${id}/pause`);
    expect(paused.statusCode, paused.body).toBe(200);
    expect(await storedCause(id)).toEqual({ status: "paused", pauseCause: null });
    expect((await report(owner.client, id)).pauseCause).toBeNull();

    const resumed = await owner.client.post(`/api/campaigns/${id}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(200);
    await expect(
      t.db.execute(sql`update campaigns set pause_cause = 'plan' where id = ${id}`),
    ).rejects.toMatchObject({ cause: { constraint_name: "campaigns_pause_cause_ck" } });
    await expect(
      t.db.execute(sql`update campaigns set status = 'paused', pause_cause = 'boss' where id = ${id}`),
    ).rejects.toMatchObject({ cause: { constraint_name: "campaigns_pause_cause_ck" } });
  });
});
