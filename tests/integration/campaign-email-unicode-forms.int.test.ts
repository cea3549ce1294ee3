import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { unsubscribeByToken } from "../../src/server/features/campaigns/campaigns.events";
import {
  createAndLaunchCampaign,
  getCampaignReport,
} from "../../src/server/features/campaigns/campaigns.service";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { campaignRecipientRows, createTestApp, signUp, type TestApp } from "../helpers";

// One mailbox written two ways: "josé@" with a precomposed é (NFC, U+00E9) and with e + a combining
// acute accent (NFD, U+0065 U+0301) look the same and are the same address (RFC 6532 section 3.1:
// UTF-8 addresses are compared in NFC). A CSV exported from one tool and pasted from another can
// hold both. A campaign must send that person one message, and an unsubscribe made at one form
// must keep the other form from being emailed again. Since migration 0052 the CRM stores emails in
// NFC, so a CSV's two forms are one contact (email-unicode-forms-stored.int); two contacts can still
// hold the two forms when one was stored before and 0052 left it (its NFC form was taken), which the
// first case writes directly.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** The campaign messages (metadata campaignId; not the "has finished" email to the launcher) whose subject holds `marker`. */
const emailsMarked = async (marker: string) =>
  (await t.db.select().from(outboxMessages).where(eq(outboxMessages.channel, "email"))).filter(
    (m) => (m.subject ?? "").includes(marker) && (m.metadata as Record<string, unknown> | null)?.campaignId,
  );

describe("an email address in its composed and decomposed Unicode forms", () => {
  it("is sent once in a campaign, and an unsubscribe at one form covers the other", async () => {
    const { user } = await signUp(t.app);
    const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
    const nfc = `jos\u00e9.${stamp}@example.com`;
    const nfd = `jose\u0301.${stamp}@example.com`;
    expect(nfc).not.toBe(nfd);
    expect(nfd.normalize("NFC")).toBe(nfc);

    // a CSV's two forms are one contact
    const [composed, again] = await findOrCreateContacts(t.ctx, user.id, [
      { name: "José Composed", email: nfc },
      { name: "José Decomposed", email: ` ${nfd.toUpperCase()} ` },
    ]);
    expect(again).toBe(composed);
    // a contact stored in NFD before migration 0052, which left it (the NFC form was taken)
    const [legacy] = await t.db
      .insert(contacts)
      .values({ workspaceId: user.id, firstName: "José Decomposed", email: nfd })
      .returning({ id: contacts.id });
    const both = [composed as number, legacy!.id];

    const first = await createAndLaunchCampaign(t.ctx, user.id, {
      name: `Unicode ${stamp}`,
      channel: "email",
      content: { subject: `Offer A ${stamp}`, body: "Hello {{first_name}}" },
      recipients: { contactIds: both },
    });
    expect(await emailsMarked(`Offer A ${stamp}`)).toHaveLength(1);
    const rows = await campaignRecipientRows(t, first.campaign.id);
    expect(rows.map((r) => r.status).sort()).toEqual(["sent", "skipped"]);
    expect(rows.find((r) => r.status === "skipped")?.reason).toBe("duplicate address");
    const { figures } = await getCampaignReport(t.ctx, user.id, first.campaign.id);
    expect(figures).toMatchObject({
      sent: 1,
      skipped: 1,
      skippedReasons: [{ reason: "duplicate address", count: 1 }],
    });

    // the person unsubscribes from the message they got
    const sent = rows.find((r) => r.status === "sent");
    expect(await unsubscribeByToken(t.ctx, sent!.token, "test")).not.toBeNull();

    // the next campaign reaches neither form
    const second = createAndLaunchCampaign(t.ctx, user.id, {
      name: `Unicode again ${stamp}`,
      channel: "email",
      content: { subject: `Offer B ${stamp}`, body: "Hello again" },
      recipients: { contactIds: both },
    });
    await expect(second).rejects.toThrow("Nobody would receive this campaign: 2 opted out: unsubscribed.");
    expect(await emailsMarked(`Offer B ${stamp}`)).toHaveLength(0);
  });

  it("an address suppressed in one form is not emailed in the other, in that workspace only", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
    const nfc = `ren\u00e9e.${stamp}@example.com`;
    const nfd = `rene\u0301e.${stamp}@example.com`;
    // a bounce Postmark reported for the composed form
    await suppress(t.db, a.user.id, "email", nfc, "hard_bounce", "postmark");
    const launch = (workspaceId: string, subject: string) =>
      createAndLaunchCampaign(t.ctx, workspaceId, {
        name: subject,
        channel: "email",
        content: { subject, body: "Hello" },
        recipients: { csv: [{ email: nfd }, { email: `other.${stamp}@example.com` }] },
      });
    const inA = await launch(a.user.id, `Offer C ${stamp}`);
    expect(inA.skipped).toEqual({ "email bounced before": 1 });
    expect(await emailsMarked(`Offer C ${stamp}`)).toHaveLength(1);
    // another workspace's suppression list does not hold here
    const inB = await launch(b.user.id, `Offer D ${stamp}`);
    expect(inB.skipped).toEqual({});
    expect(await emailsMarked(`Offer D ${stamp}`)).toHaveLength(2);
  });
});
