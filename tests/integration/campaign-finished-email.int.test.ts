import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, outboxMessages } from "../../src/server/db/schema";
import { notifyCampaignCompletedJob } from "../../src/server/features/campaigns/campaigns.jobs";
import { createTestApp, joinWorkspace, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";

// Settings > Preferences offers "Campaign Notifications" (spec: campaignNotifications, default on),
// but nothing read it: no email said a campaign had finished. The person who launched it now gets
// one with the campaign's results and a link to its report (the owner once that person has left),
// unless they turned it off.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

/** The campaign-finished emails sent to `to`, newest first. */
const finishedEmails = (to: string) =>
  t.db
    .select({ subject: outboxMessages.subject, body: outboxMessages.body })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")))
    .orderBy(desc(outboxMessages.id))
    .then((rows) => rows.filter((r) => r.subject?.includes("has finished")));

describe("the campaign-finished email", () => {
  it("goes to whoever launched the campaign with its results; not with the preference off; to the owner once they left", async () => {
    const owner = await signUp(t.app, { business_name: "Finch Bakery" });
    await setPlan(t, owner.user.id, "business"); // room for a team member
    const launch = async (client: typeof owner.client, name: string) => {
      const r = await client.post("/api/campaigns/email/launch", {
        campaignName: name,
        subject: "Hello",
        body: "Our news",
        contacts: [
          { name: "A", email: uniqueEmail("fin") },
          { name: "B", email: uniqueEmail("fin") },
        ],
      });
      expect(r.statusCode, r.body).toBe(200);
      const id = r.json().campaignId as number;
      await expect
        .poll(async () => (await client.get(`/api/campaigns/${id}`)).json().campaign.status, {
          timeout: 20_000,
        })
        .toBe("completed");
      return id;
    };

    const first = await launch(owner.client, "Spring news");
    await expect
      .poll(() => finishedEmails(owner.user.email).then((m) => m.length), { timeout: 10_000 })
      .toBe(1);
    const [mail] = await finishedEmails(owner.user.email);
    expect(mail!.subject).toBe('Your campaign "Spring news" has finished');
    expect(mail!.body).toContain("in Finch Bakery has finished: 2 recipients.");
    expect(mail!.body).toContain("- 2 sent");
    expect(mail!.body).toContain(`/campaigns/${first}`);

    // a member's campaign: the member is told, not the owner
    const member = await joinWorkspace(t, owner.client, "admin");
    await launch(member.client, "Member news");
    await expect
      .poll(() => finishedEmails(member.user.email).then((m) => m.length), { timeout: 10_000 })
      .toBe(1);
    expect(await finishedEmails(owner.user.email)).toHaveLength(1);

    // the preference off: no email
    const off = await owner.client.put("/api/user/settings", {
      preferences: { campaignNotifications: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    await launch(owner.client, "Quiet news");
    await new Promise((r) => setTimeout(r, 1500));
    expect(await finishedEmails(owner.user.email)).toHaveLength(1);

    // the member left: their campaign's email (sent again here) goes to the owner, if the owner wants it
    const memberCampaign = (await owner.client.get("/api/campaigns"))
      .json()
      .campaigns.find((c: { name: string }) => c.name === "Member news").id as number;
    expect((await member.client.post("/api/workspaces/current/leave")).statusCode).toBe(200);
    await owner.client.put("/api/user/settings", { preferences: { campaignNotifications: true } });
    await t.jobs.send(notifyCampaignCompletedJob, { campaignId: memberCampaign });
    const ownerMails = await finishedEmails(owner.user.email);
    expect(ownerMails).toHaveLength(2);
    expect(ownerMails[0]!.subject).toBe('Your campaign "Member news" has finished');
    expect(await finishedEmails(member.user.email)).toHaveLength(1);
  });

  it("says what the report says: a recipient who opened was delivered too", async () => {
    const owner = await signUp(t.app, { business_name: "Wren Florist" });
    const r = await owner.client.post("/api/campaigns/email/launch", {
      campaignName: "Figures",
      subject: "Hello",
      body: "Our news",
      contacts: [1, 2, 3].map((i) => ({ name: `R${i}`, email: uniqueEmail(`fig${i}`) })),
    });
    expect(r.statusCode, r.body).toBe(200);
    const id = r.json().campaignId as number;
    await expect
      .poll(async () => (await owner.client.get(`/api/campaigns/${id}`)).json().campaign.status, {
        timeout: 20_000,
      })
      .toBe("completed");
    await expect
      .poll(() => finishedEmails(owner.user.email).then((m) => m.length), { timeout: 10_000 })
      .toBe(1);
    // what the provider reports afterwards: all three delivered, two of them opened (their latest
    // status "opened"), one of those clicked
    const rows = await t.db
      .select({ id: campaignRecipients.id })
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, id))
      .orderBy(campaignRecipients.id);
    expect(rows).toHaveLength(3);
    const now = new Date();
    await t.db
      .update(campaignRecipients)
      .set({ deliveredAt: now, status: "delivered" })
      .where(eq(campaignRecipients.campaignId, id));
    for (const [i, row] of rows.slice(0, 2).entries())
      await t.db
        .update(campaignRecipients)
        .set({
          openedAt: now,
          status: i === 0 ? "clicked" : "opened",
          ...(i === 0 ? { clickedAt: now } : {}),
        })
        .where(eq(campaignRecipients.id, row.id));
    await t.jobs.send(notifyCampaignCompletedJob, { campaignId: id });
    await expect
      .poll(() => finishedEmails(owner.user.email).then((m) => m.length), { timeout: 10_000 })
      .toBe(2);
    const [mail] = await finishedEmails(owner.user.email);
    const report = (await owner.client.get(`/api/campaigns/${id}`)).json().figures;
    expect(report).toMatchObject({ sent: 3, delivered: 3, opened: 2, clicked: 1 });
    expect(mail!.body).toContain("- 3 sent\n- 3 delivered\n- 2 opened\n- 1 clicked\n");
  });
});
