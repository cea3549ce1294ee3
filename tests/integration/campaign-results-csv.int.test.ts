import { and, eq, inArray } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, contacts } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";
import { uniquePhone } from "../unique-phone";

// The campaign report's "Export CSV": GET /api/campaigns/{id}/recipients.csv streams every recipient
// of the active workspace's campaign with the contact's name, the address the channel used, status,
// reason, sent time and the event times the channel records (ISO 8601 UTC), formula-safe as the
// contacts export is. Another workspace's campaign is a 404.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

function parse(body: string) {
  expect(body.startsWith("\uFEFF")).toBe(true);
  const parsed = Papa.parse<Record<string, string>>(body.slice(1), { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return { columns: parsed.meta.fields ?? [], rows: parsed.data };
}

describe("GET /api/campaigns/{id}/recipients.csv", () => {
  it("an email campaign: every recipient with name, email, status, reason and its event times; formulas neutralised; another workspace's id is a 404", async () => {
    const owner = await signUp(t.app);
    const skippedEmail = uniqueEmail("optedout");
    const made = await owner.client.post("/api/contacts", {
      first_name: "Olive",
      last_name: "Out",
      email: skippedEmail,
      email_opt_in: false,
    });
    expect(made.statusCode, made.body).toBe(200);
    const evilEmail = uniqueEmail("evil");
    const plainEmail = uniqueEmail("plain");
    const launch = await owner.client.post("/api/campaigns/email/launch", {
      campaignName: "Spring news",
      subject: "Hello",
      body: "Spring is here",
      contacts: [
        { name: '=HYPERLINK("http://evil.example")', email: evilEmail },
        { name: "Pat Plain", email: plainEmail },
        { name: "Olive Out", email: skippedEmail },
      ],
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const campaignId = launch.json().campaignId as number;
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, campaignId));
    const plain = rows.find((r) => r.address === plainEmail);
    // the provider's events for one recipient (as the Postmark webhooks set them)
    await t.db
      .update(campaignRecipients)
      .set({
        status: "clicked",
        deliveredAt: new Date("2026-03-01T10:00:01.000Z"),
        openedAt: new Date("2026-03-01T10:05:00.000Z"),
        clickedAt: new Date("2026-03-01T10:06:30.250Z"),
      })
      .where(eq(campaignRecipients.id, plain?.id as number));
    // another unsubscribed through the email's link (opted_out_at stays after a re-subscription)
    const evil = rows.find((r) => r.address === evilEmail);
    await t.db
      .update(campaignRecipients)
      .set({ optedOutAt: new Date("2026-03-01T11:00:00.000Z") })
      .where(eq(campaignRecipients.id, evil?.id as number));

    const res = await owner.client.get(`/api/campaigns/${campaignId}/recipients.csv`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toContain("text/csv");
    expect(res.headers["content-disposition"]).toMatch(
      new RegExp(`attachment; filename="campaign-${campaignId}-results-\\d{4}-\\d{2}-\\d{2}\\.csv"`),
    );
    const csv = parse(res.body);
    expect(csv.columns).toEqual([
      "name",
      "email",
      "status",
      "reason",
      "sent_at",
      "delivered_at",
      "opened_at",
      "clicked_at",
      "opted_out_at",
    ]);
    expect(csv.rows).toHaveLength(3);
    const byEmail = new Map(csv.rows.map((r) => [r.email, r]));
    const p = byEmail.get(plainEmail);
    expect(p?.name).toBe("Pat Plain");
    expect(p?.status).toBe("clicked");
    expect(p?.sent_at).toBe(plain?.sentAt?.toISOString());
    expect(p?.sent_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect([p?.delivered_at, p?.opened_at, p?.clicked_at]).toEqual([
      "2026-03-01T10:00:01.000Z",
      "2026-03-01T10:05:00.000Z",
      "2026-03-01T10:06:30.250Z",
    ]);
    const skipped = byEmail.get(skippedEmail);
    expect(skipped).toMatchObject({
      name: "Olive Out",
      status: "skipped",
      reason: "opted out of email",
      sent_at: "",
      delivered_at: "",
    });
    // a name starting with "=" comes out as text, not a formula (as in the contacts export)
    expect(byEmail.get(evilEmail)?.name).toBe(`'=HYPERLINK("http://evil.example")`);
    // when they opted out from this campaign, ISO 8601 UTC; empty for the others
    expect(byEmail.get(evilEmail)?.opted_out_at).toBe("2026-03-01T11:00:00.000Z");
    expect(p?.opted_out_at).toBe("");
    expect(res.body).not.toMatch(/(^|,)"?=HYPERLINK/m);

    // another workspace: the same id is a 404, and an unknown or malformed id too; no session: 401
    const other = await signUp(t.app);
    const foreign = await other.client.get(`/api/campaigns/${campaignId}/recipients.csv`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ success: false, error: "Campaign not found" });
    expect((await owner.client.get("/api/campaigns/999999999/recipients.csv")).statusCode).toBe(404);
    const malformed = await owner.client.get("/api/campaigns/abc/recipients.csv");
    expect([400, 404]).toContain(malformed.statusCode);
    expect(malformed.json().success).toBe(false);
    const anon = await t.app.inject({ method: "GET", url: `/api/campaigns/${campaignId}/recipients.csv` });
    expect(anon.statusCode).toBe(401);
  });

  it("lists recipients in send order (the order they were queued, recipient id), not by address or name", async () => {
    const owner = await signUp(t.app);
    // queued Zed, Amy, Mia: their addresses and names sort Amy, Mia, Zed
    const people = [
      { first_name: "Zed", last_name: "Young", email: uniqueEmail("zz-zed") },
      { first_name: "Amy", last_name: "Adams", email: uniqueEmail("aa-amy") },
      { first_name: "Mia", last_name: "Moss", email: uniqueEmail("mm-mia") },
    ];
    const ids: number[] = [];
    for (const p of people) {
      const made = await owner.client.post("/api/contacts", p);
      expect(made.statusCode, made.body).toBe(200);
      ids.push(made.json().contact.id);
    }
    const launched = await createAndLaunchCampaign(t.ctx, owner.user.id, {
      name: "Order",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { contactIds: ids },
    });
    const queued = await t.db
      .select({ id: campaignRecipients.id, address: campaignRecipients.address })
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launched.campaign.id))
      .orderBy(campaignRecipients.id);
    expect(queued.map((r) => r.address)).toEqual(people.map((p) => p.email.toLowerCase()));

    const res = await owner.client.get(`/api/campaigns/${launched.campaign.id}/recipients.csv`);
    expect(res.statusCode, res.body).toBe(200);
    const csv = parse(res.body);
    expect(csv.rows.map((r) => r.name)).toEqual(["Zed Young", "Amy Adams", "Mia Moss"]);
    expect(csv.rows.map((r) => r.email)).toEqual(queued.map((r) => r.address));
  });

  it("an SMS campaign: a phone column and SMS's times (no opened_at); a deleted contact's row keeps its number; all of 4,501 recipients, in send order, across query pages", async () => {
    const owner = await signUp(t.app);
    await setPlan(t, owner.user.id, "business");
    const phone = await uniquePhone("718");
    const [contactId] = await findOrCreateContacts(t.ctx, owner.user.id, [{ name: "Rita Reply", phone }]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), smsOptIn: true })
      .where(inArray(contacts.id, [contactId as number]));
    const launched = await createAndLaunchCampaign(t.ctx, owner.user.id, {
      name: "Texts",
      channel: "sms",
      content: { message: "Spring offer" },
      recipients: { contactIds: [contactId as number] },
    });
    const campaignId = launched.campaign.id;
    await t.db
      .update(campaignRecipients)
      .set({
        status: "replied",
        repliedAt: new Date("2026-03-02T08:00:00.000Z"),
        // the reply's text is the person's: a formula in it must reach the spreadsheet as text
        replyText: '=HYPERLINK("http://evil.example","Yes, call me")',
        optedOutAt: new Date("2026-03-02T09:30:00.000Z"),
      })
      .where(eq(campaignRecipients.campaignId, campaignId));
    // 4,500 more rows (more than two of the export's 2,000-row queries) of contacts deleted since, two
    // rows per number (a duplicate's skip row keeps the address), one pair split by a query's end
    await t.sql`
      insert into campaign_recipients (campaign_id, workspace_id, contact_id, channel, address, status, reason, token)
      select ${campaignId}, ${owner.user.id}, null, 'sms', '+1555' || lpad((g / 2)::text, 7, '0'), 'skipped',
        'not opted in to SMS', 'csvtest' || ${campaignId} || '-' || g
      from generate_series(1, 4500) g`;

    const res = await owner.client.get(`/api/campaigns/${campaignId}/recipients.csv`);
    expect(res.statusCode).toBe(200);
    const csv = parse(res.body);
    expect(csv.columns).toEqual([
      "name",
      "phone",
      "status",
      "reason",
      "sent_at",
      "delivered_at",
      "clicked_at",
      "replied_at",
      "reply_text",
      "opted_out_at",
    ]);
    expect(csv.rows).toHaveLength(4501);
    // in send order: the texted contact's row, queued at the launch, first (its +1718... number sorts
    // after the +1555... ones), then the inserted rows in the order they were queued
    expect(csv.rows[0]).toMatchObject({
      name: "Rita Reply",
      phone,
      status: "replied",
      replied_at: "2026-03-02T08:00:00.000Z",
      reply_text: `'=HYPERLINK("http://evil.example","Yes, call me")`,
      opted_out_at: "2026-03-02T09:30:00.000Z",
    });
    expect(res.body).not.toMatch(/(^|,)"?=HYPERLINK/m);
    expect(csv.rows[0]?.sent_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // phone numbers are written exactly (no apostrophe before the +)
    expect(csv.rows[1]).toEqual({
      name: "",
      phone: "+15550000000",
      status: "skipped",
      reason: "not opted in to SMS",
      sent_at: "",
      delivered_at: "",
      clicked_at: "",
      replied_at: "",
      reply_text: "",
      opted_out_at: "",
    });
    // every inserted row exactly once, none repeated or lost at the queries' boundaries
    const numbers = csv.rows.slice(1).map((r) => r.phone);
    const expected = Array.from(
      { length: 4500 },
      (_, i) => `+1555${String(Math.floor((i + 1) / 2)).padStart(7, "0")}`,
    );
    expect(numbers).toEqual(expected);
  });
  it("a call campaign: who answered each completed call and its length in seconds, after the existing columns", async () => {
    const owner = await signUp(t.app);
    await setPlan(t, owner.user.id, "business"); // calls are a paid feature
    const human = await uniquePhone("718");
    const machine = await uniquePhone("718");
    const busy = await uniquePhone("718");
    const ids = await findOrCreateContacts(t.ctx, owner.user.id, [
      { name: "Hana Human", phone: human },
      { name: "Mack Machine", phone: machine },
      { name: "Bea Busy", phone: busy },
    ]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone() })
      .where(inArray(contacts.id, ids as number[]));
    const launched = await createAndLaunchCampaign(t.ctx, owner.user.id, {
      name: "Calls",
      channel: "voice",
      content: { script: "Hello {{first_name}}, this is Acme." },
      recipients: { contactIds: ids as number[] },
      includeNotOptedIn: true,
    });
    const campaignId = launched.campaign.id;
    // what Twilio's status callbacks record (AnsweredBy, CallDuration; busy a failure)
    const set = async (address: string, values: Partial<typeof campaignRecipients.$inferInsert>) =>
      t.db
        .update(campaignRecipients)
        .set(values)
        .where(and(eq(campaignRecipients.campaignId, campaignId), eq(campaignRecipients.address, address)));
    const at = new Date("2026-03-03T15:00:00.000Z");
    await set(human, {
      status: "delivered",
      deliveredAt: at,
      answeredBy: "human",
      callSeconds: 42,
      reason: null,
      // pressed the key that opts out during the call
      optedOutAt: new Date("2026-03-03T15:00:30.000Z"),
    });
    await set(machine, {
      status: "delivered",
      deliveredAt: at,
      answeredBy: "machine_start",
      callSeconds: 18,
    });
    await set(busy, {
      status: "failed",
      reason: "busy",
      deliveredAt: null,
      answeredBy: null,
      callSeconds: null,
    });

    const res = await owner.client.get(`/api/campaigns/${campaignId}/recipients.csv`);
    expect(res.statusCode, res.body).toBe(200);
    const csv = parse(res.body);
    expect(csv.columns).toEqual([
      "name",
      "phone",
      "status",
      "reason",
      "sent_at",
      "delivered_at",
      "answered_by",
      "call_seconds",
      "opted_out_at",
    ]);
    const byPhone = new Map(csv.rows.map((r) => [r.phone, r]));
    expect(byPhone.get(human)).toMatchObject({
      name: "Hana Human",
      status: "delivered",
      delivered_at: "2026-03-03T15:00:00.000Z",
      answered_by: "human",
      call_seconds: "42",
      opted_out_at: "2026-03-03T15:00:30.000Z",
    });
    expect(byPhone.get(machine)).toMatchObject({
      answered_by: "machine_start",
      call_seconds: "18",
      opted_out_at: "",
    });
    expect(byPhone.get(busy)).toMatchObject({
      status: "failed",
      reason: "busy",
      delivered_at: "",
      answered_by: "",
      call_seconds: "",
    });
  });
});
