import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import {
  createTestApp,
  daytimeZone,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// A small team's contact timeline listed the emails, texts and calls sent from the contact's page
// without saying who sent them (activities had no creator). activities.created_by (migration 0066)
// records the person for those sends and for the notes a person writes, edits or deletes, and the
// contact's page gives each activity created_by_name ("Sent by Cara Member"); a campaign's sends and
// the person's own replies name nobody.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("the contact timeline says who did what by hand", () => {
  it("sends from the contact page and note changes name their person over REST and tRPC, also once that person left; a campaign's send names nobody", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const phone = await uniquePhone("646");
    const email = uniqueEmail("nia");
    const [id] = await findOrCreateContacts(t.ctx, owner.user.id, [{ name: "Nia Ortiz", email, phone }]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone(), smsOptIn: true, callOptIn: true })
      .where(eq(contacts.id, id as number));

    const mail = await cara.client.post(`/api/contacts/${id}/send-email`, {
      subject: "Quote",
      body: "Here it is.",
    });
    expect(mail.statusCode, mail.body).toBe(200);
    const sms = await trpcCall(owner.client, "crm.sendSms", { id, message: "On my way." });
    expect(sms.status, JSON.stringify(sms.error)).toBe(200);
    const call = await trpcCall(ben.client, "crm.makeCall", { id, script: "Hello, a quick call." });
    expect(call.status, JSON.stringify(call.error)).toBe(200);
    const note = await cara.client.post(`/api/contacts/${id}/notes`, { note_text: "Wants a quote." });
    expect(note.statusCode, note.body).toBe(200);
    const noteId = note.json().note.id as number;
    expect(
      (await ben.client.put(`/api/contacts/${id}/notes/${noteId}`, { note_text: "Quote sent." })).statusCode,
    ).toBe(200);
    expect((await trpcCall(owner.client, "crm.deleteNote", { id, noteId })).status).toBe(200);
    const campaign = await owner.client.post("/api/campaigns/email/launch", {
      campaignName: "Spring",
      subject: "Spring offer",
      body: "Hi there",
      contacts: [{ name: "Nia Ortiz", email }],
    });
    expect(campaign.statusCode, campaign.body).toBe(200);
    // Ben leaves: his call stays his
    expect((await owner.client.del(`/api/workspaces/current/members/${ben.user.id}`)).statusCode).toBe(200);

    type Shown = { activity_type: string; created_by_name: string | null; metadata: Record<string, unknown> };
    const expected = [
      { activity_type: "email_sent", created_by_name: "Cara Member" },
      { activity_type: "sms_sent", created_by_name: "Ana Owner" },
      { activity_type: "call_made", created_by_name: "Ben Admin" },
      { activity_type: "note_added", created_by_name: "Cara Member" },
      { activity_type: "note_edited", created_by_name: "Ben Admin" },
      { activity_type: "note_deleted", created_by_name: "Ana Owner" },
    ];
    const pick = (rows: Shown[]) =>
      rows
        .filter((a) => a.metadata.campaignId === undefined)
        .map(({ activity_type, created_by_name }) => ({ activity_type, created_by_name }))
        .reverse();
    const rest = await cara.client.get(`/api/contacts/${id}`);
    expect(rest.statusCode, rest.body).toBe(200);
    const restRows = rest.json().activities as Shown[];
    expect(pick(restRows)).toEqual(expected);
    const fromCampaign = restRows.filter((a) => a.metadata.campaignId !== undefined);
    expect(fromCampaign.length).toBeGreaterThan(0);
    expect(fromCampaign.every((a) => a.created_by_name === null)).toBe(true);
    const trpc = await trpcCall(owner.client, "crm.get", { id }, "query");
    expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
    expect(pick(trpc.data.activities as Shown[])).toEqual(expected);
  });
});
