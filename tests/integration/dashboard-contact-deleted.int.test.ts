import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities } from "../../src/server/db/schema";
import { recordActivities } from "../../src/server/features/crm/crm.service";
import { getDashboardStats } from "../../src/server/features/dashboard/dashboard.service";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

const SENT = new Set(["email_sent", "sms_sent", "call_made", "voicemail_sent"]);
const ENGAGED = new Set(["email_opened", "email_clicked", "sms_received", "video_viewed"]);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("deleting contacts does not rewrite the dashboard's history", () => {
  it("messages sent and engagement of a past period stay the same after their contacts are deleted", async () => {
    const { client, user } = await signUp(t.app);
    const emails = [uniqueEmail("gone-a"), uniqueEmail("gone-b"), uniqueEmail("gone-c"), uniqueEmail("stay")];
    const ids: number[] = [];
    for (const [i, email] of emails.entries()) {
      const res = await client.post("/api/contacts", { first_name: `G${i}`, last_name: "Dash", email });
      expect(res.statusCode).toBe(200);
      ids.push(res.json().contact?.id ?? res.json().id);
    }
    // a one-off email, and a campaign to three contacts
    expect(
      (await client.post(`/api/contacts/${ids[0]}/send-email`, { subject: "Hi", body: "Hello" })).statusCode,
    ).toBe(200);
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Deleted later",
      subject: "Hello",
      body: "Body",
      contacts: [1, 2, 3].map((i) => ({ name: `G${i} Dash`, email: emails[i], company: "" })),
    });
    expect(launch.statusCode).toBe(200);
    // two of the deleted contacts engaged (one twice), and so did the one that stays
    await recordActivities(t.db, [
      { workspaceId: user.id, contactId: ids[0], activityType: "email_opened" },
      { workspaceId: user.id, contactId: ids[1], activityType: "email_opened" },
      { workspaceId: user.id, contactId: ids[1], activityType: "email_clicked" },
      { workspaceId: user.id, contactId: ids[3], activityType: "email_opened" },
    ]);
    // all of it happened last month
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 10));
    await t.db.update(activities).set({ createdAt: lastMonth }).where(eq(activities.workspaceId, user.id));

    // what the timelines say (the local provider also simulates opens for some campaign recipients)
    let sent = 0;
    let history = 0; // sent and engaged rows of the contacts about to be deleted
    const engaged = new Set<number>();
    for (const id of ids) {
      const detail = (await client.get(`/api/contacts/${id}`)).json();
      for (const a of detail.activities as { activity_type: string }[]) {
        if (SENT.has(a.activity_type)) sent += 1;
        if (ENGAGED.has(a.activity_type)) engaged.add(id);
        if (id !== ids[3] && (SENT.has(a.activity_type) || ENGAGED.has(a.activity_type))) history += 1;
      }
    }
    expect(sent).toBe(4);
    expect(engaged.size).toBeGreaterThanOrEqual(3);
    const before = await getDashboardStats(t.ctx, user.id, now, "UTC");
    expect(before.messagesSent).toEqual({ value: 0, previous: 4, changePct: -100 });
    expect(before.engagementRate.previous).toBe(Math.round((engaged.size / sent) * 1000) / 10);

    // one deleted from the contact page, two by a bulk delete
    expect((await client.del(`/api/contacts/${ids[0]}`)).statusCode).toBe(200);
    const bulk = await client.post("/api/contacts/bulk/operation", {
      contactIds: [ids[1], ids[2]],
      operation: "delete",
    });
    expect(bulk.statusCode).toBe(200);
    expect((await client.get(`/api/contacts/${ids[1]}`)).statusCode).toBe(404);

    const after = await getDashboardStats(t.ctx, user.id, now, "UTC");
    expect(after.messagesSent).toEqual(before.messagesSent);
    expect(after.engagementRate).toEqual(before.engagementRate);
    expect((await client.get("/api/dashboard/stats")).json().stats.messagesSent.previous).toBe(4);

    // what is kept is the bare fact (type and time), tied to no contact: nothing else of theirs stays
    const kept = await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.workspaceId, user.id), isNull(activities.contactId)));
    expect(kept.length).toBe(history);
    for (const a of kept) expect(a.metadata).toEqual({});
    // the contact who stays sees only their own timeline
    const stay = (await client.get(`/api/contacts/${ids[3]}`)).json();
    const stayTypes = (stay.activities as { activity_type: string }[]).map((a) => a.activity_type);
    expect(stayTypes.filter((a) => SENT.has(a))).toEqual(["email_sent"]);
    expect(stayTypes.filter((a) => ENGAGED.has(a)).length).toBeGreaterThanOrEqual(1);
  });
});
