import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, campaigns, outboxMessages } from "../../src/server/db/schema";
import {
  type AuthedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";

// Campaign state and launch races (audit findings 3, 4, 5, 7): every test here sends its requests
// for real through the app (app.inject), the racing ones in parallel with Promise.all.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

async function sentTo(addresses: string[]) {
  if (addresses.length === 0) return new Map<string, number>();
  const rows = await t.db
    .select({ to: outboxMessages.to })
    .from(outboxMessages)
    .where(inArray(outboxMessages.to, addresses));
  const n = new Map<string, number>();
  for (const r of rows) n.set(r.to, (n.get(r.to) ?? 0) + 1);
  return n;
}

async function campaignRow(id: number) {
  const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, id));
  return c;
}

async function recipientRows(id: number) {
  return t.db
    .select()
    .from(campaignRecipients)
    .where(eq(campaignRecipients.campaignId, id))
    .orderBy(campaignRecipients.id);
}

/** Makes a scheduled campaign due now (as if its time had come) and runs the deferred jobs. */
async function fireSchedule(id: number) {
  await t.db
    .update(campaigns)
    .set({ scheduledAt: new Date(Date.now() - 1000) })
    .where(eq(campaigns.id, id));
  await t.jobs.runDeferred();
}

async function createContact(client: AuthedClient, body: Record<string, unknown>) {
  const res = await client.post("/api/contacts", body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().contact.id as number;
}

const LATER = () => new Date(Date.now() + 3_600_000).toISOString();

async function scheduledEmailCampaign(client: AuthedClient, emails: string[], name = "Later") {
  const res = await client.post("/api/campaigns/email/launch", {
    campaignName: name,
    subject: "S",
    body: "B",
    contacts: emails.map((email) => ({ name: "R", email })),
    scheduledAt: LATER(),
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().campaign.status).toBe("scheduled");
  return res.json().campaignId as number;
}

describe("send-time opt-out (finding 3): the channel's opt-in is checked again when sending", () => {
  it("email: contacts switched to email_opt_in false after launch are skipped 'opted out of email'", async () => {
    const { client } = await signUp(t.app);
    const emails = Array.from({ length: 8 }, () => uniqueEmail("optout"));
    const id = await scheduledEmailCampaign(client, emails);
    const rows = await recipientRows(id);
    expect(rows.every((r) => r.status === "queued")).toBe(true);
    // the contacts of the first 3 recipients opt out of email after the launch (the CRM's own edit)
    const out = rows.slice(0, 3);
    for (const r of out) {
      const res = await client.put(`/api/contacts/${r.contactId}`, { email_opt_in: false });
      expect(res.statusCode, res.body).toBe(200);
    }
    await fireSchedule(id);
    const after = await recipientRows(id);
    const outIds = new Set(out.map((r) => r.id));
    for (const r of after) {
      if (outIds.has(r.id)) expect([r.status, r.reason]).toEqual(["skipped", "opted out of email"]);
      else expect(r.status).toBe("sent");
    }
    const sent = await sentTo(emails);
    for (const r of out) expect(sent.get(r.address) ?? 0).toBe(0);
    expect([...sent.values()]).toEqual([1, 1, 1, 1, 1]);
    expect((await campaignRow(id)).status).toBe("completed");
  });

  it("sms, voice and ringless voicemail: the contact's sms_opt_in / call_opt_in off after launch skips them", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "enterprise"); // SMS, calls and voicemail are paid features
    const phones = [0, 1, 2, 3].map((i) => `+1212555011${i}`);
    const ids: number[] = [];
    for (const [i, phone] of phones.entries())
      ids.push(
        await createContact(client, {
          first_name: `P${i}`,
          email: uniqueEmail("phone"),
          phone,
          sms_opt_in: true,
          call_opt_in: true,
        }),
      );
    const launch = async (channel: string, content: Record<string, unknown>) => {
      const res = await client.post("/api/campaigns", {
        name: `Opt ${channel}`,
        channel,
        content,
        recipients: { contactIds: ids },
        scheduledAt: LATER(),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().recipients).toBe(4);
      return res.json().campaignId as number;
    };
    const sms = await launch("sms", { message: "Hi {{first_name}}" });
    const voice = await launch("voice", { script: "Hello {{first_name}}" });
    const voicemail = await launch("voicemail", { script: "Hello {{first_name}}" });
    // after launch: P0 opts out of SMS, P1 out of calls
    expect((await client.put(`/api/contacts/${ids[0]}`, { sms_opt_in: false })).statusCode).toBe(200);
    expect((await client.put(`/api/contacts/${ids[1]}`, { call_opt_in: false })).statusCode).toBe(200);
    for (const c of [sms, voice, voicemail])
      await t.db
        .update(campaigns)
        .set({ scheduledAt: new Date(Date.now() - 1000) })
        .where(eq(campaigns.id, c));
    await t.jobs.runDeferred();
    const reasons = async (c: number) =>
      new Map((await recipientRows(c)).map((r) => [r.contactId, `${r.status}:${r.reason ?? ""}`]));
    // quiet hours may defer the others (New York time): they are never skipped for opt-in
    const smsRows = await reasons(sms);
    expect(smsRows.get(ids[0])).toBe("skipped:not opted in to SMS");
    for (const id of ids.slice(1)) expect(smsRows.get(id)).not.toMatch(/^skipped/);
    for (const c of [voice, voicemail]) {
      const rows = await reasons(c);
      expect(rows.get(ids[1])).toBe("skipped:not opted in to calls");
      for (const id of [ids[0], ids[2], ids[3]]) expect(rows.get(id)).not.toMatch(/^skipped/);
    }
    // P0 may still get calls (call_opt_in on), but never the SMS
    const smsToP0 = await t.db
      .select()
      .from(outboxMessages)
      .where(and(eq(outboxMessages.to, phones[0]), eq(outboxMessages.channel, "sms")));
    expect(smsToP0).toEqual([]);
  });
});
