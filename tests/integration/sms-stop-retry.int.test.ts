import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, campaignRecipients, contacts, suppressions } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, postTwilioWebhook, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

// A STOP's handling can fail part-way (a database error on the second of two workspaces that texted
// the number). Twilio retries a webhook answered with a 5xx; the retry must finish the opt-out, not be
// taken for a replay of a delivery already handled, and must not record the finished part twice.

const TOKEN = "stop-retry-twilio-token";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TWILIO_AUTH_TOKEN: TOKEN, CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

async function workspaceWithContact(phone: string) {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "business");
  const ids = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Sam", phone }]);
  await t.db
    .update(contacts)
    .set({ timezone: daytimeZone(), smsOptIn: true })
    .where(inArray(contacts.id, ids));
  return { ...s, contactId: ids[0] as number };
}

/** The same signed Twilio webhook each time (a retry of one delivery), as Twilio posts it. */
const post = (params: Record<string, string>, hook: "inbound" | "status" = "inbound") =>
  postTwilioWebhook(t.app, TOKEN, hook, params);

async function optedOutActivities(workspaceId: string, contactId: number) {
  return (
    await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.workspaceId, workspaceId), eq(activities.contactId, contactId)))
  ).filter((a) => a.activityType === "opted_out").length;
}

async function suppressed(workspaceId: string, phone: string) {
  const rows = await t.db
    .select()
    .from(suppressions)
    .where(and(eq(suppressions.workspaceId, workspaceId), eq(suppressions.value, phone)));
  return rows.filter((r) => r.channel === "sms").length;
}

async function smsOptIn(contactId: number) {
  const [c] = await t.db.select().from(contacts).where(eq(contacts.id, contactId));
  return c?.smsOptIn;
}

describe("an inbound STOP whose handling failed part-way", () => {
  it("is finished by Twilio's retry of the same delivery, each workspace's opt-out recorded once", async () => {
    const phone = await uniquePhone("212");
    // B texts first, then A: the latest sender (A) is handled first, B second
    const b = await workspaceWithContact(phone);
    expect((await b.client.post(`/api/contacts/${b.contactId}/send-sms`, { message: "Hi" })).statusCode).toBe(
      200,
    );
    const a = await workspaceWithContact(phone);
    expect((await a.client.post(`/api/contacts/${a.contactId}/send-sms`, { message: "Hi" })).statusCode).toBe(
      200,
    );

    // a fault on B's opt-out activity only: B's step fails after A's has committed
    const fn = `stop_retry_fault_${process.pid}`;
    await t.sql.unsafe(`create function ${fn}() returns trigger language plpgsql as $$
      begin raise exception 'injected fault'; end $$`);
    await t.sql.unsafe(`create trigger ${fn} before insert on activities for each row
      when (new.workspace_id = '${b.user.id}' and new.activity_type = 'opted_out') execute function ${fn}()`);
    const params = { MessageSid: `SMretry${Date.now()}`, From: phone, To: "+15005550006", Body: "STOP" };
    let first: Awaited<ReturnType<typeof post>>;
    try {
      first = await post(params);
    } finally {
      await t.sql.unsafe(`drop trigger ${fn} on activities`);
      await t.sql.unsafe(`drop function ${fn}()`);
    }
    expect(first.statusCode).toBe(500);
    // the first attempt finished A and stopped short of B's opt-out
    expect(await optedOutActivities(a.user.id, a.contactId)).toBe(1);
    expect(await smsOptIn(b.contactId)).toBe(true);

    // Twilio retries the same delivery (same MessageSid and signature)
    const retry = await post(params);
    expect(retry.statusCode).toBe(200);
    expect(await smsOptIn(b.contactId)).toBe(false);
    expect(await suppressed(b.user.id, phone)).toBe(1);
    expect(await optedOutActivities(b.user.id, b.contactId)).toBe(1);
    // A's finished step is not recorded again
    expect(await optedOutActivities(a.user.id, a.contactId)).toBe(1);
    expect(await smsOptIn(a.contactId)).toBe(false);

    // a later replay of the finished delivery changes nothing
    expect((await post(params)).statusCode).toBe(200);
    expect(await optedOutActivities(b.user.id, b.contactId)).toBe(1);
    expect(await optedOutActivities(a.user.id, a.contactId)).toBe(1);
  });
});

describe("a Twilio status callback whose handling failed", () => {
  it("is applied by Twilio's retry instead of being taken for a replay", async () => {
    const phone = await uniquePhone("212");
    const w = await workspaceWithContact(phone);
    const launched = await createAndLaunchCampaign(t.ctx, w.user.id, {
      name: "Texts",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: [w.contactId] },
    });
    const rows = () =>
      t.db.select().from(campaignRecipients).where(eq(campaignRecipients.campaignId, launched.campaign.id));
    const [row] = await rows();
    expect(row?.status).toBe("sent");
    const params = { MessageSid: row?.providerMessageId ?? "", MessageStatus: "delivered", To: phone };
    const fn = `status_retry_fault_${process.pid}`;
    await t.sql.unsafe(`create function ${fn}() returns trigger language plpgsql as $$
      begin raise exception 'injected fault'; end $$`);
    await t.sql.unsafe(`create trigger ${fn} before update on campaign_recipients for each row
      when (new.id = ${row?.id}) execute function ${fn}()`);
    let first: Awaited<ReturnType<typeof post>>;
    try {
      first = await post(params, "status");
    } finally {
      await t.sql.unsafe(`drop trigger ${fn} on campaign_recipients`);
      await t.sql.unsafe(`drop function ${fn}()`);
    }
    expect(first.statusCode).toBe(500);
    expect((await rows())[0]?.status).toBe("sent");
    const retry = await post(params, "status");
    expect(retry.json()).toEqual({ success: true, result: "applied" });
    expect((await rows())[0]?.status).toBe("delivered");
    expect((await post(params, "status")).json().result).toBe("replay");
  });
});
