import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { simulateCallStatuses } from "../../src/server/features/campaigns/campaigns.call-outcomes";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { LOCAL_TEST_NUMBERS } from "../../src/server/providers/voice/local";
import { campaignRecipientRows, createTestApp, daytimeZone, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

// The local voice provider acts a call out by its number (providers/voice/local.ts LOCAL_TEST_NUMBERS:
// busy, no answer, failed, answering machine; any other number a person), and the campaigns'
// simulation hands each outcome to the Twilio status webhook's handler, so a call campaign run offline
// ends with each recipient recorded as a Twilio callback records it. The local voicemail provider
// refuses drops to the failing number. Before, every local call ended "delivered" and every drop
// was accepted.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "true" });
});
afterAll(async () => t?.close());

/** A business-plan workspace with one contact per number (daytime where they are: no quiet hours). */
async function workspaceCalling(numbers: Record<string, string>) {
  const { user } = await signUp(t.app);
  await setPlan(t, user.id, "business"); // voice and voicemail campaigns are paid features
  const names = Object.keys(numbers);
  const ids = await findOrCreateContacts(
    t.ctx,
    user.id,
    names.map((name) => ({ name, phone: numbers[name] })),
  );
  await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
  return { workspaceId: user.id, ids };
}

/** Each recipient's outcome by the number it went to. */
async function outcomes(campaignId: number) {
  const rows = await campaignRecipientRows(t, campaignId);
  return Object.fromEntries(
    rows.map((r) => [r.address, { status: r.status, reason: r.reason, answeredBy: r.answeredBy }]),
  );
}

describe("local voice and voicemail providers act out test numbers", () => {
  it("a call campaign ends busy, no-answer, failed, machine and human by number, as Twilio's callbacks record them", async () => {
    const person = await uniquePhone("212");
    const { workspaceId, ids } = await workspaceCalling({
      Busy: LOCAL_TEST_NUMBERS.busy,
      Nobody: LOCAL_TEST_NUMBERS.noAnswer,
      Broken: LOCAL_TEST_NUMBERS.failed,
      Machine: LOCAL_TEST_NUMBERS.machine,
      Person: person,
    });
    const r = await createAndLaunchCampaign(t.ctx, workspaceId, {
      name: "Calls",
      channel: "voice",
      content: { script: "Hello {{first_name}}, this is Acme." },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    expect(await outcomes(r.campaign.id)).toEqual({
      [LOCAL_TEST_NUMBERS.busy]: { status: "failed", reason: "busy", answeredBy: null },
      [LOCAL_TEST_NUMBERS.noAnswer]: { status: "failed", reason: "no-answer", answeredBy: null },
      [LOCAL_TEST_NUMBERS.failed]: { status: "failed", reason: "failed", answeredBy: null },
      [LOCAL_TEST_NUMBERS.machine]: { status: "delivered", reason: null, answeredBy: "machine_start" },
      [person]: { status: "delivered", reason: null, answeredBy: "human" },
    });
    // the callbacks were applied once: a second pass finds nothing left to apply
    expect(await simulateCallStatuses({ ...t.ctx, providers: t.providers }, r.campaign.id)).toBe(0);
  });

  it("without machine detection a completed call says nothing of who answered, as Twilio's", async () => {
    const { workspaceId, ids } = await workspaceCalling({ Machine: LOCAL_TEST_NUMBERS.machine });
    const r = await createAndLaunchCampaign(t.ctx, workspaceId, {
      name: "No AMD",
      channel: "voice",
      content: { script: "Hello.", machineDetection: false },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    expect(await outcomes(r.campaign.id)).toEqual({
      [LOCAL_TEST_NUMBERS.machine]: { status: "delivered", reason: null, answeredBy: null },
    });
  });

  it("a voicemail campaign's drop to the failing number fails with the provider's refusal; others are delivered", async () => {
    const person = await uniquePhone("212");
    const { workspaceId, ids } = await workspaceCalling({
      Broken: LOCAL_TEST_NUMBERS.failed,
      Person: person,
    });
    const r = await createAndLaunchCampaign(t.ctx, workspaceId, {
      name: "Drops",
      channel: "voicemail",
      content: { script: "Hi {{name}}, call us back." },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    });
    expect(await outcomes(r.campaign.id)).toEqual({
      [LOCAL_TEST_NUMBERS.failed]: {
        status: "failed",
        reason: `Local voicemail: the drop to ${LOCAL_TEST_NUMBERS.failed} was refused (a test number whose drops always fail)`,
        answeredBy: null,
      },
      [person]: { status: "delivered", reason: null, answeredBy: null },
    });
  });
});
