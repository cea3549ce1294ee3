import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { isSuppressed } from "../../src/server/features/compliance/compliance.service";
import { campaignRecipientRows, createTestApp, postPostmarkEvent, signUp, type TestApp } from "../helpers";

// Postmark's bounce webhook carries a `Type` (https://postmarkapp.com/developer/api/bounce-api#bounce-types;
// the SDK's BounceType enum): only permanent ones (HardBounce, BadEmailAddress, ManuallyDeactivated,
// SpamComplaint, or any bounce Postmark says deactivated the address: Inactive true) are a bounce that
// suppresses the address. A soft or transient one (SoftBounce, Transient, DnsError, ...) is a delivery
// that failed for now: the recipient is failed with a "soft bounce" reason (resend to failed retries
// it), the address stays sendable; an AutoResponder (an out-of-office reply) proves the email arrived.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    POSTMARK_WEBHOOK_USER: "hook",
    POSTMARK_WEBHOOK_PASSWORD: "secret",
  });
});
afterAll(async () => {
  await t?.close();
});

const TYPES = ["HardBounce", "BadEmailAddress", "SoftBounce", "Transient", "DnsError", "AutoResponder"];

describe("Postmark bounce types", () => {
  it("only permanent bounces mark the recipient bounced and suppress; soft ones fail it for now", async () => {
    const u = await signUp(t.app);
    const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
    const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
      name: "Bounces",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { csv: TYPES.map((ty) => ({ email: `${ty.toLowerCase()}-${stamp}@example.com` })) },
    });
    const rows = await campaignRecipientRows(t, launched.campaign.id);
    expect(rows.map((r) => r.status)).toEqual(TYPES.map(() => "sent"));
    for (const [i, r] of rows.entries()) {
      const res = await postPostmarkEvent(t.app, "hook", "secret", {
        RecordType: "Bounce",
        ID: 1000 + i,
        MessageID: r.providerMessageId,
        Type: TYPES[i],
        Description: `${TYPES[i]} description`,
        // Postmark deactivates an address for permanent bounces only
        Inactive: i < 2,
      });
      expect(res.statusCode).toBe(200);
    }
    const after = await campaignRecipientRows(t, launched.campaign.id);
    const byType = Object.fromEntries(after.map((r, i) => [TYPES[i], r]));
    const suppressed = Object.fromEntries(
      await Promise.all(
        after.map(async (r, i) => [TYPES[i], await isSuppressed(t.db, u.user.id, "email", r.address)]),
      ),
    );
    expect(suppressed).toEqual({
      HardBounce: true,
      BadEmailAddress: true,
      SoftBounce: false,
      Transient: false,
      DnsError: false,
      AutoResponder: false,
    });
    expect(byType.HardBounce?.status).toBe("bounced");
    expect(byType.BadEmailAddress?.status).toBe("bounced");
    for (const ty of ["SoftBounce", "Transient", "DnsError"]) {
      expect(byType[ty]?.status, ty).toBe("failed");
      expect(byType[ty]?.reason, ty).toMatch(new RegExp(`^soft bounce \\(${ty}\\)`));
    }
    // an out-of-office reply: the email arrived
    expect(byType.AutoResponder?.status).toBe("delivered");

    const report = (await u.client.get(`/api/campaigns/${launched.campaign.id}`)).json();
    expect(report.figures).toMatchObject({ bounced: 2, failed: 3, softBounced: 3, delivered: 1 });

    // a soft bounce is temporary: Postmark's later Delivery of the same message is applied
    const soft = byType.Transient!;
    await postPostmarkEvent(t.app, "hook", "secret", {
      RecordType: "Delivery",
      MessageID: soft.providerMessageId,
      DeliveredAt: new Date().toISOString(),
    });
    const [delivered] = (await campaignRecipientRows(t, launched.campaign.id)).filter(
      (r) => r.id === soft.id,
    );
    expect(delivered?.status).toBe("delivered");
    expect(delivered?.failedAt).toBeNull();

    // resend to failed retries the soft-bounced ones (they are not suppressed)
    const resend = await u.client.post(`/api/campaigns/${launched.campaign.id}/resend-failed`, {});
    expect(resend.statusCode).toBe(200);
    expect(resend.json().requeued).toBe(2);
    const final = await campaignRecipientRows(t, launched.campaign.id);
    expect(final.filter((r) => r.status === "sent").map((r) => r.id)).toEqual(
      [byType.SoftBounce!.id, byType.DnsError!.id].sort((a, b) => a - b),
    );
  });

  it("a soft bounce after the delivery is stale and changes nothing", async () => {
    const u = await signUp(t.app);
    const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
      name: "Late soft",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { csv: [{ email: `late-soft-${Date.now()}@example.com` }] },
    });
    const [r] = await campaignRecipientRows(t, launched.campaign.id);
    await postPostmarkEvent(t.app, "hook", "secret", {
      RecordType: "Delivery",
      MessageID: r!.providerMessageId,
      DeliveredAt: new Date().toISOString(),
    });
    const res = await postPostmarkEvent(t.app, "hook", "secret", {
      RecordType: "Bounce",
      ID: 99_001,
      MessageID: r!.providerMessageId,
      Type: "SoftBounce",
      Inactive: false,
    });
    expect(res.json().result).toBe("ignored");
    const [after] = await campaignRecipientRows(t, launched.campaign.id);
    expect(after?.status).toBe("delivered");
  });
});
