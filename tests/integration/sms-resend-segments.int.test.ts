import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, usageMeters } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  postTwilioWebhook,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";

// SMS segments are what the carrier bills: a message the carrier reported undelivered was still sent
// (Twilio bills it), so "resend to failed" sends a second, billed message. The report's SMS segment
// total counts the segments of every attempt handed to the provider, not only the last one's; the
// plan's SMS meter (spec section 9: SMS messages, one per message whatever its segments) counts each
// attempt sent too.

let t: TestApp;
const twToken = "twilio-auth-token";
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false", TWILIO_AUTH_TOKEN: twToken });
});
afterAll(async () => {
  await t?.close();
});

describe("resending to failed SMS recipients", () => {
  it("keeps the first attempt's segments in the report and the meter counts both messages", async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const phones = ["+12125550191", "+12125550192"];
    const ids = await findOrCreateContacts(
      t.ctx,
      u.user.id,
      phones.map((phone, i) => ({ name: `P${i}`, phone })),
    );
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    // 200 GSM-7 characters: two segments per message
    const message = `Hello ${"x".repeat(194)}`;
    const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
      name: "Segments",
      channel: "sms",
      content: { message },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    const id = launched.campaign.id;
    const first = await campaignRecipientRows(t, id);
    expect(first.map((r) => r.status)).toEqual(["sent", "sent"]);
    const firstSegments = first.reduce((n, r) => n + r.segments, 0);
    expect(firstSegments).toBeGreaterThanOrEqual(4);
    const before = (await u.client.get(`/api/campaigns/${id}`)).json();
    expect(before.totalSegments).toBe(firstSegments);

    // the carrier could not deliver the first one: it was sent (and billed), then failed
    const undelivered = first[0]!;
    const cb = await postTwilioWebhook(t.app, twToken, "status", {
      MessageSid: undelivered.providerMessageId as string,
      MessageStatus: "undelivered",
      ErrorCode: "30003",
      To: undelivered.address,
    });
    expect(cb.json().result).toBe("applied");
    const resend = await u.client.post(`/api/campaigns/${id}/resend-failed`, {});
    expect(resend.statusCode).toBe(200);
    expect(resend.json().requeued).toBe(1);

    const after = await campaignRecipientRows(t, id);
    const again = after.find((r) => r.id === undelivered.id)!;
    expect(again.status).toBe("sent");
    expect(again.providerMessageId).not.toBe(undelivered.providerMessageId);
    const report = (await u.client.get(`/api/campaigns/${id}`)).json();
    // both attempts of the first recipient and the second recipient's message
    expect(report.totalSegments).toBe(firstSegments + again.segments);
    // the recipient row says how many segments went to this person over all attempts
    expect(again.segmentsSent).toBe(undelivered.segments + again.segments);

    // the plan's meter: three messages handed to the provider (two launched, one resent)
    const [meter] = await t.db
      .select({ used: usageMeters.used })
      .from(usageMeters)
      .where(and(eq(usageMeters.workspaceId, u.user.id), eq(usageMeters.meter, "smsMessages")));
    expect(meter?.used).toBe(3);
  });
});
