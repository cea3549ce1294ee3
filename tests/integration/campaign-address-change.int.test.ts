import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, outboxMessages } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { campaignRecipientRows, createTestApp, signUp, type TestApp } from "../helpers";

// A contact's email changed between a campaign's launch and its send: the launch recorded the
// address it would use, and the send must reach the contact where the CRM says they are now, never
// the address they no longer have (a corrected typo is someone else's mailbox), and the new address
// passes the same screen as a launch's (suppression list, one message per address).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

async function emailsTo(to: string) {
  return (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to))).filter(
    (m) => m.channel === "email" && (m.subject ?? "").includes("Spring offer"),
  );
}

/** Launches a scheduled email campaign to `ids`, runs `meanwhile`, then lets the schedule come due. */
async function launchThenSend(workspaceId: string, ids: number[], meanwhile: () => Promise<void>) {
  const launched = await createAndLaunchCampaign(t.ctx, workspaceId, {
    name: `Address change ${Date.now()}`,
    channel: "email",
    content: { subject: "Spring offer", body: "Hello {{first_name}}" },
    recipients: { contactIds: ids },
    scheduledAt: new Date(Date.now() + 3_600_000),
  });
  expect(launched.campaign.status).toBe("scheduled");
  await meanwhile();
  await t.db
    .update(campaigns)
    .set({ scheduledAt: new Date(Date.now() - 1000) })
    .where(eq(campaigns.id, launched.campaign.id));
  await t.jobs.runDeferred();
  expect(t.jobs.failures).toEqual([]);
  return launched.campaign.id;
}

describe("a contact's email changed after the launch", () => {
  it("the email goes to the new address, not the old one; the recipient row says where it went", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = `addr-${Date.now()}`;
    const [a, b] = await findOrCreateContacts(t.ctx, user.id, [
      { name: "Ann Old", email: `${stamp}-old@example.com` },
      { name: "Bob Same", email: `${stamp}-bob@example.com` },
    ]);
    const id = await launchThenSend(user.id, [a as number, b as number], async () => {
      const res = await client.put(`/api/contacts/${a}`, { email: `${stamp}-new@example.com` });
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(await emailsTo(`${stamp}-old@example.com`)).toHaveLength(0);
    expect(await emailsTo(`${stamp}-new@example.com`)).toHaveLength(1);
    expect(await emailsTo(`${stamp}-bob@example.com`)).toHaveLength(1);
    const rows = await campaignRecipientRows(t, id);
    expect(rows.find((r) => r.contactId === a)).toMatchObject({
      status: "sent",
      address: `${stamp}-new@example.com`,
    });
  });

  it("a new address on the suppression list, or one this campaign already reached, is skipped; a removed email is not sent", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = `addr2-${Date.now()}`;
    const [sup, dup, gone, oli, moved] = await findOrCreateContacts(t.ctx, user.id, [
      { name: "Sue", email: `${stamp}-sue@example.com` },
      { name: "Dan", email: `${stamp}-dan@example.com` },
      { name: "Gil", email: `${stamp}-gil@example.com` },
      { name: "Oli", email: `${stamp}-oli@example.com` },
      { name: "Max", email: `${stamp}-max@example.com` },
    ]);
    await suppress(t.db, user.id, "email", `${stamp}-unsub@example.com`, "unsubscribed", "test", true);
    const put = async (cid: number | undefined, email: string) => {
      const res = await client.put(`/api/contacts/${cid}`, { email });
      expect(res.statusCode, res.body).toBe(200);
    };
    const id = await launchThenSend(
      user.id,
      [sup, dup, gone, oli, moved].map((x) => x as number),
      async () => {
        await put(sup, `${stamp}-unsub@example.com`);
        await put(gone, "");
        // Oli's message already went to oli@ (an earlier part); Oli then moved to oli2@ and Dan took
        // oli@: that mailbox has this campaign's message already
        await t.sql`
          update campaign_recipients set status = 'sent', sent_at = now(), provider_message_id = 'earlier'
          where campaign_id = (select campaign_id from campaign_recipients where contact_id = ${oli as number})
            and contact_id = ${oli as number}`;
        await put(oli, `${stamp}-oli2@example.com`);
        await put(dup, `${stamp}-oli@example.com`);
        // Max moved to the address Gil left: nobody of this campaign got a message there, so Max is sent
        await put(moved, `${stamp}-gil@example.com`);
      },
    );
    // nobody reached at an address they left, the unsubscribed address never, oli@ not again
    for (const old of ["sue", "dan", "max"])
      expect(await emailsTo(`${stamp}-${old}@example.com`)).toHaveLength(0);
    expect(await emailsTo(`${stamp}-unsub@example.com`)).toHaveLength(0);
    expect(await emailsTo(`${stamp}-oli@example.com`)).toHaveLength(0);
    expect(await emailsTo(`${stamp}-gil@example.com`)).toHaveLength(1);
    const rows = await campaignRecipientRows(t, id);
    const by = (cid: number | undefined) => rows.find((r) => r.contactId === cid);
    expect(by(sup)).toMatchObject({ status: "skipped", reason: "opted out: unsubscribed" });
    expect(by(dup)).toMatchObject({ status: "skipped", reason: "duplicate address" });
    expect(by(gone)).toMatchObject({ status: "skipped", reason: "no email address" });
    expect(by(moved)).toMatchObject({ status: "sent", address: `${stamp}-gil@example.com` });
  });
});
