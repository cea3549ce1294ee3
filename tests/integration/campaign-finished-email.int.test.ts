import { and, desc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, contacts, outboxMessages } from "../../src/server/db/schema";
import { notifyCampaignCompletedJob } from "../../src/server/features/campaigns/campaigns.jobs";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import {
  createTestApp,
  daytimeZone,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

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
  it("says what the channel records, as the report: an SMS's clicks and replies, a call's outcomes and talk time; no opens", async () => {
    const owner = await signUp(t.app, { business_name: "Lark Garage" });
    await setPlan(t, owner.user.id, "business"); // SMS and calls are paid features
    /** launches a `channel` campaign to `n` new contacts, waits for its first finished email, and gives its rows */
    const launched = async (channel: "sms" | "voice" | "voicemail", n: number, sent: number) => {
      const phones = await Promise.all(Array.from({ length: n }, () => uniquePhone("646")));
      const ids = await findOrCreateContacts(
        t.ctx,
        owner.user.id,
        phones.map((phone, i) => ({ name: `${channel} ${i}`, phone })),
      );
      await t.db
        .update(contacts)
        .set({ timezone: daytimeZone() })
        .where(inArray(contacts.id, ids as number[]));
      const r = await createAndLaunchCampaign(t.ctx, owner.user.id, {
        name: `Results by ${channel}`,
        channel,
        content: channel === "sms" ? { message: "Spring offer" } : { script: "Hello, this is Lark Garage." },
        recipients: { contactIds: ids as number[] },
        includeNotOptedIn: true,
      });
      const id = r.campaign.id;
      await expect
        .poll(async () => (await owner.client.get(`/api/campaigns/${id}`)).json().campaign.status, {
          timeout: 20_000,
        })
        .toBe("completed");
      await expect
        .poll(() => finishedEmails(owner.user.email).then((m) => m.length), { timeout: 10_000 })
        .toBe(sent);
      const rows = await t.db
        .select({ id: campaignRecipients.id })
        .from(campaignRecipients)
        .where(eq(campaignRecipients.campaignId, id))
        .orderBy(campaignRecipients.id);
      expect(rows).toHaveLength(n);
      return { id, rows: rows.map((x) => x.id) };
    };
    const set = (id: number, values: Partial<typeof campaignRecipients.$inferInsert>) =>
      t.db.update(campaignRecipients).set(values).where(eq(campaignRecipients.id, id));
    const now = new Date();

    // SMS: three delivered, one of them clicked its link, another replied
    const sms = await launched("sms", 3, 1);
    for (const id of sms.rows) await set(id, { status: "delivered", deliveredAt: now });
    await set(sms.rows[0]!, { status: "clicked", clickedAt: now });
    await set(sms.rows[1]!, { status: "replied", repliedAt: now, replyText: "Yes please" });
    await t.jobs.send(notifyCampaignCompletedJob, { campaignId: sms.id });
    await expect
      .poll(() => finishedEmails(owner.user.email).then((m) => m.length), { timeout: 10_000 })
      .toBe(2);
    const [text] = await finishedEmails(owner.user.email);
    expect((await owner.client.get(`/api/campaigns/${sms.id}`)).json().figures).toMatchObject({
      sent: 3,
      delivered: 3,
      clicked: 1,
      replied: 1,
    });
    expect(text!.body).toContain("recipients.\n\n- 3 sent\n- 3 delivered\n- 1 clicked\n- 1 replied\n\n");
    expect(text!.body).not.toMatch(/open/i);

    // calls, as Twilio's callbacks record them: a person 42 s, a machine 18 s, busy, no answer, failed
    const call = await launched("voice", 5, 3);
    const [human, machine, busy, noAnswer, failed] = call.rows as [number, number, number, number, number];
    await set(human, { status: "delivered", deliveredAt: now, answeredBy: "human", callSeconds: 42 });
    await set(machine, {
      status: "delivered",
      deliveredAt: now,
      answeredBy: "machine_start",
      callSeconds: 18,
    });
    await set(busy, { status: "failed", reason: "busy" });
    await set(noAnswer, { status: "failed", reason: "no-answer" });
    await set(failed, { status: "failed", reason: "failed" });
    await t.jobs.send(notifyCampaignCompletedJob, { campaignId: call.id });
    await expect
      .poll(() => finishedEmails(owner.user.email).then((m) => m.length), { timeout: 10_000 })
      .toBe(4);
    const [calls] = await finishedEmails(owner.user.email);
    expect((await owner.client.get(`/api/campaigns/${call.id}`)).json().figures).toMatchObject({
      sent: 5,
      answered: 1,
      voicemail: 1,
      noAnswer: 1,
      busy: 1,
      failed: 3,
      talkSeconds: 60,
    });
    expect(calls!.body).toContain(
      "recipients.\n\n- 5 called\n- 1 answered\n- 1 voicemail (answering machine)\n- 1 no answer\n" +
        "- 1 busy\n- 1 failed\n- 1m 00s talk time\n\n",
    );
    expect(calls!.body).not.toMatch(/open|delivered/i);

    // a ringless voicemail: sent, delivered, failed; no open, no "opens keep arriving"
    const drops = await launched("voicemail", 2, 5);
    await set(drops.rows[0]!, { status: "delivered", deliveredAt: now });
    await set(drops.rows[1]!, { status: "failed", reason: "Carrier refused the drop" });
    await t.jobs.send(notifyCampaignCompletedJob, { campaignId: drops.id });
    await expect
      .poll(() => finishedEmails(owner.user.email).then((m) => m.length), { timeout: 10_000 })
      .toBe(6);
    const [dropped] = await finishedEmails(owner.user.email);
    expect(dropped!.body).toContain("recipients.\n\n- 2 sent\n- 1 delivered\n- 1 failed\n\n");
    expect(dropped!.body).not.toMatch(/open/i);
  });
});
