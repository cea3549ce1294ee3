import { and, desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, contacts, outboxMessages, workspaces } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, setPlan, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";
import { uniquePhone } from "../unique-phone";

// The contact page's own Send Email / Send SMS / Call fill in the campaigns' merge tags with the
// contact's fields (crm.messages fillContactMergeTags, lib/merge-tags): "Hi {{first_name}}" goes out
// as "Hi Nia", never with the braces. A tag the contact has no value for renders its fallback or
// nothing, as in a campaign; a text left empty once filled in is a 400 with a sentence.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

async function contactWithFields() {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "business");
  await t.db.update(workspaces).set({ senderName: "Acme Studio" }).where(eq(workspaces.id, s.user.id));
  const phone = await uniquePhone("646");
  const email = uniqueEmail("nia");
  const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Nia Ortiz", email, phone }]);
  await t.db
    .update(contacts)
    .set({
      company: "Ortiz Bakery",
      jobTitle: "Owner",
      customFields: { industry: "bakery" },
      timezone: daytimeZone(),
      smsOptIn: true,
      callOptIn: true,
    })
    .where(eq(contacts.id, id as number));
  return { ...s, id: id as number, phone, email };
}

async function lastOutbox(to: string, channel: "email" | "sms" | "voice") {
  const [row] = await t.db
    .select()
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, channel)))
    .orderBy(desc(outboxMessages.id))
    .limit(1);
  return row;
}

async function lastActivity(contactId: number, type: string) {
  const [row] = await t.db
    .select()
    .from(activities)
    .where(and(eq(activities.contactId, contactId), eq(activities.activityType, type)))
    .orderBy(desc(activities.id))
    .limit(1);
  return row?.metadata as Record<string, unknown> | undefined;
}

describe("merge tags in the contact page's one-off sends", () => {
  it("fills the subject and body of an email with the contact's fields, custom fields and the business", async () => {
    const c = await contactWithFields();
    const res = await c.client.post(`/api/contacts/${c.id}/send-email`, {
      subject: "Hi {{first_name}}",
      body: "Dear {{name}} ({{jobTitle}}) at {{company}}, a {{industry}}: {{my_business}} here. {{favourite_colour|Cheers}}{{nickname}}, [company]",
    });
    expect(res.statusCode).toBe(200);
    const mail = await lastOutbox(c.email, "email");
    expect(mail?.subject).toBe("Hi Nia");
    expect(mail?.body).toContain(
      "Dear Nia Ortiz (Owner) at Ortiz Bakery, a bakery: Acme Studio here. Cheers, Ortiz Bakery",
    );
    expect(mail?.body).not.toMatch(/[{}[\]]/);
    // the timeline says what was sent
    expect((await lastActivity(c.id, "email_sent"))?.subject).toBe("Hi Nia");
  });

  it("fills an SMS (tRPC crm.sendSms, as the dialog sends it) and a call script", async () => {
    const c = await contactWithFields();
    const sms = await trpcCall(c.client, "crm.sendSms", {
      id: c.id,
      message: "Hi {{first_name}}, your {{industry}} order from {{my_business}} is ready",
    });
    expect(sms.error).toBeUndefined();
    const text = await lastOutbox(c.phone, "sms");
    expect(text?.body).toContain("Hi Nia, your bakery order from Acme Studio is ready");
    expect(text?.body).not.toContain("{{");
    expect((await lastActivity(c.id, "sms_sent"))?.message).toBe(
      "Hi Nia, your bakery order from Acme Studio is ready",
    );
    const call = await c.client.post(`/api/contacts/${c.id}/make-call`, {
      script: "Hello {{first_name|there}} of {{company}}, call us at {{phone}}.",
    });
    expect(call.statusCode).toBe(200);
    const spoken = await lastOutbox(c.phone, "voice");
    expect(spoken?.body).toContain(`Hello Nia of Ortiz Bakery, call us at ${c.phone}.`);
    expect(spoken?.body).not.toContain("{{");
  });

  it("a text left empty once its tags are filled in is a 400 with a sentence, and nothing is sent", async () => {
    const c = await contactWithFields();
    const res = await c.client.post(`/api/contacts/${c.id}/send-email`, { subject: "{{city}}", body: "Hi" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("The subject is empty once its merge tags are filled in for this contact");
    const sms = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "{{nickname}}" });
    expect(sms.statusCode).toBe(400);
    expect(sms.json().error).toBe("The message is empty once its merge tags are filled in for this contact");
    expect(await lastOutbox(c.email, "email")).toBeUndefined();
    expect(await lastOutbox(c.phone, "sms")).toBeUndefined();
  });
  it("an SMS whose tags fill it past 1,600 characters (Twilio's limit for one message) is a 400, nothing sent or counted", async () => {
    const c = await contactWithFields();
    // a custom field may hold 500 characters: 22 of its tags make a 154-character message of 11,000
    await t.db
      .update(contacts)
      .set({ customFields: { industry: "bakery", bio: "b".repeat(500) } })
      .where(eq(contacts.id, c.id));
    const meter = async () =>
      (
        await t.db.execute<{ used: number }>(
          sql`select coalesce(sum(used), 0)::int as used from usage_meters where workspace_id = ${c.user.id} and meter = 'smsMessages'`,
        )
      )[0]?.used;
    const before = await meter();
    const res = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "{{bio}}".repeat(22) });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatch(
      /^The message is [\d,]+ characters once its merge tags are filled in for this contact; a text can be at most 1,600\.$/,
    );
    expect(await lastOutbox(c.phone, "sms")).toBeUndefined();
    expect(await meter()).toBe(before);
    // three tags (1,500 characters and the first text's business name and opt-out line) still go
    const ok = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "{{bio}}".repeat(3) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await lastOutbox(c.phone, "sms"))?.body.length).toBeLessThanOrEqual(1600);
  });
  it("a call script its tags fill past 5,000 characters (the script's limit as typed) is a 400, no call placed or counted", async () => {
    const c = await contactWithFields();
    await t.db
      .update(contacts)
      .set({ customFields: { industry: "bakery", bio: "b".repeat(500) } })
      .where(eq(contacts.id, c.id));
    const meter = async () =>
      (
        await t.db.execute<{ used: number }>(
          sql`select coalesce(sum(used), 0)::int as used from usage_meters where workspace_id = ${c.user.id} and meter = 'voiceCalls'`,
        )
      )[0]?.used;
    const before = await meter();
    // 140 typed characters, 10,000 once filled in
    const res = await c.client.post(`/api/contacts/${c.id}/make-call`, { script: "{{bio}}".repeat(20) });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe(
      "The call script is 10,000 characters once its merge tags are filled in for this contact; a call script can be at most 5,000.",
    );
    expect(await lastOutbox(c.phone, "voice")).toBeUndefined();
    expect(await meter()).toBe(before);
    const ok = await c.client.post(`/api/contacts/${c.id}/make-call`, { script: "{{bio}}".repeat(10) });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
