import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { beginScheduledCampaign } from "../../src/server/features/campaigns/campaigns.queries";
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

// A QA pass of a small team's week: an admin scheduled a campaign for the next day and was removed
// that afternoon; the campaign still went out at its time, in the workspace's name, with nobody
// there who had chosen to send it (their API keys and sessions had ended at once). A departure
// (removal or leave) now pauses the campaigns the person launched that are still scheduled, with the
// reason on the campaign, until an owner or admin resumes or cancels them. Other people's scheduled
// campaigns are not touched.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const DAY = 24 * 3600_000;

async function schedule(client: AuthedClient, name: string) {
  const res = await client.post("/api/campaigns/email/launch", {
    campaignName: name,
    subject: "Spring offer",
    body: "Hi there",
    contacts: [{ name: "R", email: uniqueEmail("departure") }],
    scheduledAt: new Date(Date.now() + DAY).toISOString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaignId as number;
}

/** The campaign as the owner's campaigns screen reads it (status and the paused reason). */
async function shown(owner: AuthedClient, id: number) {
  const res = await owner.get(`/api/campaigns/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  const c = res.json().campaign;
  // what paused it, for the screens' wording ("Paused: its launcher left the workspace", not "by your plan")
  const cause = c.pauseCause as "plan" | "departure" | null;
  expect(cause).toBe(c.pausedReason ? "departure" : null);
  return { status: c.status as string, pausedReason: c.pausedReason as string | null };
}

/** Its scheduled time comes: the fan-out's start (beginScheduledCampaign) is asked now. */
async function timeComes(id: number) {
  await t.db.execute(sql`update campaigns set scheduled_at = now() where id = ${id}`);
  return beginScheduledCampaign(t.db, id);
}

describe("a departing member's scheduled campaigns", () => {
  it("a removal pauses the removed admin's scheduled campaigns with the reason; they do not start at their time; the owner's and a member's stay scheduled; the owner can resume", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const bens = await schedule(ben.client, "Ben's Monday blast");
    const bensOther = await schedule(ben.client, "Ben's Tuesday blast");
    const caras = await schedule(cara.client, "Cara's follow-up");
    const owners = await schedule(owner.client, "Ana's newsletter");

    const removed = await owner.client.del(`/api/workspaces/current/members/${ben.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);

    const reason =
      "Paused because Ben Admin, who scheduled it, was removed from the workspace. Resume it to send it as scheduled (at once if that time has passed), or cancel it.";
    expect(await shown(owner.client, bens)).toEqual({ status: "paused", pausedReason: reason });
    expect(await shown(owner.client, bensOther)).toEqual({ status: "paused", pausedReason: reason });
    expect(await shown(owner.client, caras)).toEqual({ status: "scheduled", pausedReason: null });
    expect(await shown(owner.client, owners)).toEqual({ status: "scheduled", pausedReason: null });
    // the time comes: the departed admin's campaign does not start, the member's does
    expect(await timeComes(bens)).toBe(false);
    expect(await timeComes(caras)).toBe(true);

    // an owner who wants it sent resumes it (its time has passed now: it sends at once)
    const resumed = await trpcCall(owner.client, "campaigns.resume", { id: bensOther });
    expect(resumed.status, JSON.stringify(resumed.error)).toBe(200);
    expect((await shown(owner.client, bensOther)).pausedReason).toBeNull();
  });

  it("leaving pauses the scheduled campaigns of the one who left, over tRPC too", async () => {
    const owner = await signUp(t.app, { name: "Olga Owner", business_name: "Leafy Lawns" });
    await setPlan(t, owner.user.id, "business");
    const mel = await joinWorkspace(t, owner.client, "member", { name: "Mel Member" });
    const mels = await schedule(mel.client, "Mel's promo");
    const left = await trpcCall(mel.client, "workspaces.leave", undefined);
    expect(left.status, JSON.stringify(left.error)).toBe(200);
    expect(await shown(owner.client, mels)).toEqual({
      status: "paused",
      pausedReason:
        "Paused because Mel Member, who scheduled it, left the workspace. Resume it to send it as scheduled (at once if that time has passed), or cancel it.",
    });
    expect(await timeComes(mels)).toBe(false);
  });
});
