import { and, eq, gt } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, campaigns, contacts } from "../../src/server/db/schema";
import { recordActivities } from "../../src/server/features/crm/crm.service";
import { getDashboardStats, monthStartIn } from "../../src/server/features/dashboard/dashboard.service";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const SENT = new Set(["email_sent", "sms_sent", "call_made", "voicemail_sent"]);
const ENGAGED = new Set(["email_opened", "email_clicked", "sms_received", "video_viewed"]);

describe("dashboard stats are real numbers from the database", () => {
  it("counts contacts, campaigns, messages sent and engagement, with month-over-month change", async () => {
    const { client, user } = await signUp(t.app);
    const other = await signUp(t.app);
    const emails = [uniqueEmail("dash-a"), uniqueEmail("dash-b"), uniqueEmail("dash-c")];
    const ids: number[] = [];
    for (const [i, email] of emails.entries()) {
      const res = await client.post("/api/contacts", { first_name: `C${i}`, last_name: "Dash", email });
      expect(res.statusCode).toBe(200);
      ids.push(res.json().contact?.id ?? res.json().id);
    }
    // one contact existed before this month: it counts in "previous"
    const lastMonth = new Date();
    lastMonth.setUTCDate(1);
    lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
    await t.db
      .update(contacts)
      .set({ createdAt: lastMonth })
      .where(and(eq(contacts.workspaceId, user.id), eq(contacts.email, emails[0])));

    // a single send and an email campaign to two contacts
    expect(
      (await client.post(`/api/contacts/${ids[0]}/send-email`, { subject: "Hi", body: "Hello" })).statusCode,
    ).toBe(200);
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Dashboard test",
      subject: "Hello {{name|there}}",
      body: "Body",
      contacts: [
        { name: "C1 Dash", email: emails[1], company: "" },
        { name: "C2 Dash", email: emails[2], company: "" },
      ],
    });
    expect(launch.statusCode).toBe(200);
    // an open from one contact
    await recordActivities(t.db, [{ workspaceId: user.id, contactId: ids[1], activityType: "email_opened" }]);
    // noise in another account must not count
    await other.client.post("/api/contacts", { first_name: "X", email: uniqueEmail("noise") });

    // what the contact timelines say, read through the CRM API
    let sent = 0;
    const engaged = new Set<number>();
    for (const id of ids) {
      const detail = (await client.get(`/api/contacts/${id}`)).json();
      for (const a of detail.activities as { activity_type: string }[]) {
        if (SENT.has(a.activity_type)) sent += 1;
        if (ENGAGED.has(a.activity_type)) engaged.add(id);
      }
    }
    expect(sent).toBeGreaterThanOrEqual(3);

    const res = await client.get("/api/dashboard/stats");
    expect(res.statusCode).toBe(200);
    const { stats } = res.json();
    expect(stats.totalContacts).toEqual({ value: 3, previous: 1, changePct: 200 });
    expect(stats.totalCampaigns.value).toBe(1);
    expect(stats.totalCampaigns.previous).toBe(0);
    expect(stats.messagesSent).toEqual({ value: sent, previous: 0, changePct: null });
    expect(stats.engagementRate.value).toBe(Math.round((engaged.size / sent) * 1000) / 10);

    // the tRPC procedure gives the same figures
    const trpc = await client.get("/trpc/dashboard.stats");
    expect(trpc.json().result.data.json).toEqual(stats);
  });
});

describe("'this month' is the viewer's calendar month", () => {
  it("on the evening of Oct 31 in Los Angeles (Nov 1 in UTC), October's messages are this month's, not last month's", async () => {
    const { client, user } = await signUp(t.app);
    const res = await client.post("/api/contacts", { first_name: "Tz", email: uniqueEmail("tz") });
    const contactId = res.json().contact?.id ?? res.json().id;
    const sentAt = async (iso: string) => {
      await recordActivities(t.db, [{ workspaceId: user.id, contactId, activityType: "email_sent" }]);
      await t.db
        .update(activities)
        .set({ createdAt: new Date(iso) })
        .where(
          and(
            eq(activities.workspaceId, user.id),
            eq(activities.activityType, "email_sent"),
            gt(activities.createdAt, new Date("2026-11-20T00:00:00Z")),
          ),
        );
    };
    await sentAt("2026-10-15T18:00:00Z"); // Oct 15
    await sentAt("2026-11-01T03:00:00Z"); // Oct 31 20:00 PDT, Nov 1 in UTC
    const now = new Date("2026-11-01T05:00:00Z"); // Oct 31 22:00 PDT
    const la = await getDashboardStats(t.ctx, user.id, now, "America/Los_Angeles");
    expect(la.messagesSent).toEqual({ value: 2, previous: 0, changePct: null });
    // a viewer in UTC is in November: one this month, one last month
    const utc = await getDashboardStats(t.ctx, user.id, now, "UTC");
    expect(utc.messagesSent).toEqual({ value: 1, previous: 1, changePct: 0 });
    // at Nov 1 01:00 PDT the Los Angeles viewer is in November too: both are last month's there
    const laNov = await getDashboardStats(
      t.ctx,
      user.id,
      new Date("2026-11-01T08:00:00Z"),
      "America/Los_Angeles",
    );
    expect(laNov.messagesSent).toEqual({ value: 0, previous: 2, changePct: -100 });
  });

  it("the zone comes over HTTP and tRPC; an unknown zone is a 400 with a sentence", async () => {
    const { client } = await signUp(t.app);
    expect((await client.get("/api/dashboard/stats?tz=Asia%2FTokyo")).statusCode).toBe(200);
    const bad = await client.get("/api/dashboard/stats?tz=Mars%2FOlympus");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/Unknown time zone/);
    const input = encodeURIComponent(JSON.stringify({ json: { timeZone: "Europe/Paris" } }));
    expect((await client.get(`/trpc/dashboard.stats?input=${input}`)).statusCode).toBe(200);
  });
});

describe("'Total Campaigns' counts the campaigns that went out", () => {
  it("counts sending, paused, completed and cancelled-after-sending campaigns; not drafts, scheduled ones or ones cancelled before any message went", async () => {
    const { client, user } = await signUp(t.app);
    const email = (p: string) => [{ name: "X", email: uniqueEmail(p), company: "" }];
    const launch = async (name: string, extra: object = {}) => {
      const res = await client.post("/api/campaigns/email/launch", {
        campaignName: name,
        subject: "Hi",
        body: "Body",
        contacts: email(name.toLowerCase().replace(/\W/g, "")),
        ...extra,
      });
      expect(res.statusCode).toBe(200);
      return Number(res.json().campaign?.id ?? res.json().campaignId ?? res.json().id);
    };
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString();
    await launch("Sent");
    const sentThenCancelled = await launch("Sent then cancelled");
    await launch("Scheduled", { scheduledAt: later });
    const calledOff = await launch("Called off", { scheduledAt: later });
    expect((await client.post(`/api/campaigns/${calledOff}/cancel`, {})).statusCode).toBe(200);
    // a cancel that came after its messages went (cancelCampaign refuses a completed one: set by hand)
    await t.db.update(campaigns).set({ status: "cancelled" }).where(eq(campaigns.id, sentThenCancelled));
    await t.db
      .insert(campaigns)
      .values({ workspaceId: user.id, name: "Draft", channel: "email", status: "draft" });

    const { stats } = (await client.get("/api/dashboard/stats")).json();
    expect(stats.totalCampaigns).toEqual({ value: 2, previous: 0, changePct: null });
    // a campaign that started before this month is last month's too
    const monthStart = monthStartIn(new Date(), "UTC");
    await t.db
      .update(campaigns)
      .set({ startedAt: new Date(monthStart.getTime() - 86_400_000) })
      .where(eq(campaigns.id, sentThenCancelled));
    const again = (await client.get("/api/dashboard/stats")).json().stats;
    expect(again.totalCampaigns).toEqual({ value: 2, previous: 1, changePct: 100 });
  });
});
