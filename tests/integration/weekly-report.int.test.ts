import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import { weeklyReportJob, weeklyReportsJob } from "../../src/server/features/dashboard/dashboard.jobs";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// Settings > Preferences offers "Weekly Reports" (spec: weeklyReports, default off), but nothing read
// it: no report was ever sent. Mondays a job now emails each user who turned it on the past week of
// each of their workspaces, with the dashboard's own counts.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const reportsTo = (to: string) =>
  t.db
    .select({ subject: outboxMessages.subject, body: outboxMessages.body })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")))
    .orderBy(desc(outboxMessages.id))
    .then((rows) => rows.filter((r) => r.subject?.startsWith("Your week on Pitchwise")));

describe("the weekly report", () => {
  it("goes on Mondays to the users who turned it on, once per user and day, with the week's real counts", async () => {
    const on = await signUp(t.app, { business_name: "Wren Florist" });
    const off = await signUp(t.app);
    const set = await on.client.put("/api/user/settings", { preferences: { weeklyReports: true } });
    expect(set.statusCode, set.body).toBe(200);

    const emails = [uniqueEmail("week"), uniqueEmail("week")];
    for (const email of emails)
      expect((await on.client.post("/api/contacts", { first_name: "W", email })).statusCode).toBe(200);
    const launch = await on.client.post("/api/campaigns/email/launch", {
      campaignName: "Weekly news",
      subject: "S",
      body: "B",
      contacts: emails.map((email) => ({ name: "W", email })),
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const id = launch.json().campaignId as number;
    await expect
      .poll(async () => (await on.client.get(`/api/campaigns/${id}`)).json().campaign.status, {
        timeout: 20_000,
      })
      .toBe("completed");

    // the week ending now: this workspace's contacts, campaign and messages
    await t.jobs.send(weeklyReportJob, {
      userId: on.user.id,
      weekEnding: new Date(Date.now() + 60_000).toISOString(),
    });
    const [report] = await reportsTo(on.user.email);
    expect(report?.subject).toBe("Your week on Pitchwise: 2 messages sent");
    expect(report?.body).toContain(
      "Wren Florist\n- Contacts: 2 (+2 this week)\n- Campaigns started: 1\n- Messages sent: 2;",
    );
    expect(report?.body).toContain("/settings?tab=preferences");

    // the Monday run: one job per user who asked, none for the others; a second run that day sends nothing more
    const before = (await reportsTo(on.user.email)).length;
    await t.jobs.send(weeklyReportsJob, {});
    await t.jobs.send(weeklyReportsJob, {});
    expect(await reportsTo(on.user.email)).toHaveLength(before + 1);
    expect(await reportsTo(off.user.email)).toHaveLength(0);

    // turned off: the next report is not sent
    await on.client.put("/api/user/settings", { preferences: { weeklyReports: false } });
    await t.jobs.send(weeklyReportJob, { userId: on.user.id, weekEnding: new Date().toISOString() });
    expect(await reportsTo(on.user.email)).toHaveLength(before + 1);
  });
});
