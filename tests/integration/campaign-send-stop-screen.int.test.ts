import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, contacts, outboxMessages } from "../../src/server/db/schema";
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
import { uniquePhone } from "../unique-phone";

// The send-time screen (campaigns.send `sendClaimed` -> compliance `contactsWhoRepliedStop`): a STOP
// that arrives after a campaign's launch and before its recipient is sent stops that send, also when
// it came from the contact's OTHER number than the one the campaign would reach (a STOP is the
// person's opt-out, 0651460), and even though the launch confirmed consent (includeNotOptedIn). The
// launch is scheduled so the send job runs only when the test lets it (t.jobs.runDeferred()).

const TOKEN = "send-stop-screen-token";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TWILIO_AUTH_TOKEN: TOKEN, CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("628");

let sid = 0;
/** An inbound text from `from` (Twilio's signed webhook). */
async function reply(from: string, body: string) {
  sid += 1;
  const res = await postTwilioWebhook(t.app, TOKEN, "inbound", {
    MessageSid: `SMscreen${Date.now()}${sid}`,
    From: from,
    To: "+15005550006",
    Body: body,
  });
  expect(res.statusCode).toBe(200);
}

/** Outbox messages of `channel` to `to` holding `text`. */
async function outbox(channel: "sms" | "voice", to: string, text: string) {
  return (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to))).filter(
    (m) => m.channel === channel && (m.body ?? "").includes(text),
  );
}

/** Contacts holding a phone and a mobile each, SMS and call opt-in on, where it is daytime now. */
async function contactsWith(workspaceId: string, people: { phone: string; mobile: string }[]) {
  const ids: number[] = [];
  for (const [i, p] of people.entries()) {
    const [id] = await findOrCreateContacts(t.ctx, workspaceId, [
      { name: `Person ${i}`, email: `p${i}.${p.phone.slice(1)}@stop-screen.example`, phone: p.phone },
    ]);
    await t.db
      .update(contacts)
      .set({ mobile: p.mobile, timezone: daytimeZone(), smsOptIn: true, callOptIn: true })
      .where(inArray(contacts.id, [id as number]));
    ids.push(id as number);
  }
  return ids;
}

describe("send-time STOP screen: a STOP from the contact's other number after the launch stops the send", () => {
  it.each([
    // a text goes to the mobile first: the STOP comes from the phone
    { channel: "sms" as const, reached: "mobile" as const, content: { message: "Spring offer from Acme" } },
    // a call goes to the phone first: the STOP comes from the mobile
    { channel: "voice" as const, reached: "phone" as const, content: { script: "Spring offer from Acme" } },
  ])(
    "$channel: the recipient is skipped 'opted out (replied STOP)' and nothing reaches either number; a contact without a STOP is sent",
    async ({ channel, reached, content }) => {
      const { user } = await signUp(t.app);
      await setPlan(t, user.id, "business");
      const stopper = { phone: await freshPhone(), mobile: await freshPhone() };
      const control = { phone: await freshPhone(), mobile: await freshPhone() };
      const [stopperId, controlId] = await contactsWith(user.id, [stopper, control]);
      const launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: `Screen ${channel}`,
        channel,
        content,
        recipients: { contactIds: [stopperId as number, controlId as number] },
        includeNotOptedIn: true,
        scheduledAt: new Date(Date.now() + 3_600_000),
      });
      expect(launched.campaign.status).toBe("scheduled");
      const campaignId = launched.campaign.id;
      const other = reached === "mobile" ? "phone" : "mobile";
      // both queued at launch, to the number the channel reaches first
      const queued = await campaignRecipientRows(t, campaignId);
      expect(queued.map((r) => ({ contactId: r.contactId, address: r.address, status: r.status }))).toEqual(
        expect.arrayContaining([
          { contactId: stopperId, address: stopper[reached], status: "queued" },
          { contactId: controlId, address: control[reached], status: "queued" },
        ]),
      );

      // after the launch, before the send: STOP from the contact's other number
      await reply(stopper[other], "STOP");

      // the schedule comes due: fan-out, then the send job screens the claimed rows
      await t.db
        .update(campaigns)
        .set({ scheduledAt: new Date(Date.now() - 1000) })
        .where(eq(campaigns.id, campaignId));
      await t.jobs.runDeferred();
      expect(t.jobs.failures).toEqual([]);

      const rows = await campaignRecipientRows(t, campaignId);
      expect(rows.find((r) => r.contactId === stopperId)).toMatchObject({
        address: stopper[reached],
        status: "skipped",
        reason: "opted out (replied STOP)",
      });
      expect(await outbox(channel, stopper[reached], "Spring offer")).toHaveLength(0);
      expect(await outbox(channel, stopper[other], "Spring offer")).toHaveLength(0);
      // the send did run: the contact without a STOP was reached
      expect(rows.find((r) => r.contactId === controlId)?.status).not.toMatch(/queued|skipped|failed/);
      expect(await outbox(channel, control[reached], "Spring offer")).toHaveLength(1);
    },
  );
});
