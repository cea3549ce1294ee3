import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

// A contact deleted after a campaign emailed them: the message is out in their mailbox, with its
// unsubscribe link (RFC 8058 one-click and the page). The person must still be able to opt out
// through it (CAN-SPAM: the mechanism works for at least 30 days after the message), so a later
// import of the same address is not emailed again; and the campaign's report still counts what
// was sent, agreeing with its recipient count.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("a contact deleted after the campaign emailed them", () => {
  it("the unsubscribe link still works; the address stays suppressed; the report still counts the message", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = `del-${Date.now()}`;
    const [gone, kept] = await findOrCreateContacts(t.ctx, user.id, [
      { name: "Gone Person", email: `${stamp}-gone@example.com` },
      { name: "Kept Person", email: `${stamp}-kept@example.com` },
    ]);
    const launch = await client.post("/api/campaigns", {
      name: "Sent then deleted",
      channel: "email",
      content: { subject: "Spring offer", body: "Hello" },
      recipients: { contactIds: [gone, kept] },
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const campaignId = launch.json().campaign.id as number;
    const [row] = await t.sql<{ token: string; status: string }[]>`
      select token, status from campaign_recipients where campaign_id = ${campaignId} and contact_id = ${gone as number}`;
    expect(row?.status).toBe("sent");

    const del = await client.del(`/api/contacts/${gone}`);
    expect(del.statusCode, del.body).toBe(200);

    // the report still has both messages that went out
    const report = await client.get(`/api/campaigns/${campaignId}`);
    expect(report.statusCode, report.body).toBe(200);
    const body = report.json();
    const summary = body.campaign ?? body;
    expect(summary.recipientCount).toBe(2);
    expect(summary.counts).toEqual({ sent: 2 });

    // the person clicks the one-click unsubscribe in the email they have
    const unsub = await t.app.inject({
      method: "POST",
      url: `/u/${row?.token}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(unsub.statusCode, unsub.body).toBe(200);

    // re-added later (an import): the next campaign does not email the address that unsubscribed
    const [again] = await findOrCreateContacts(t.ctx, user.id, [
      { name: "Gone Again", email: `${stamp}-gone@example.com` },
    ]);
    const next = await client.post("/api/campaigns", {
      name: "Next",
      channel: "email",
      content: { subject: "Summer offer", body: "Hello" },
      recipients: { contactIds: [again, kept] },
    });
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().skipped).toEqual({ "opted out: unsubscribed": 1 });
    expect(next.json().recipients).toBe(1);
  });

  it("deleted before its scheduled send: the recipient stays in the report, skipped 'contact deleted', never sent", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = `delq-${Date.now()}`;
    const [gone, kept] = await findOrCreateContacts(t.ctx, user.id, [
      { name: "Gone Person", email: `${stamp}-gone@example.com` },
      { name: "Kept Person", email: `${stamp}-kept@example.com` },
    ]);
    const launch = await client.post("/api/campaigns", {
      name: "Scheduled",
      channel: "email",
      content: { subject: "Spring offer", body: "Hello" },
      recipients: { contactIds: [gone, kept] },
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const campaignId = launch.json().campaign.id as number;
    expect((await client.del(`/api/contacts/${gone}`)).statusCode).toBe(200);
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, campaignId));
    await t.jobs.runDeferred();
    expect(t.jobs.failures).toEqual([]);
    const report = (await client.get(`/api/campaigns/${campaignId}`)).json();
    expect(report.campaign.recipientCount).toBe(2);
    expect(report.campaign.counts).toEqual({ sent: 1, skipped: 1 });
    expect(report.figures.skippedReasons).toEqual([{ reason: "contact deleted", count: 1 }]);
    const [out] = await t.sql<{ n: number }[]>`
      select count(*)::int as n from outbox_messages where "to" = ${`${stamp}-gone@example.com`}`;
    expect(out?.n).toBe(0);
  });
});
