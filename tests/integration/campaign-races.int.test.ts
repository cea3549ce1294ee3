import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, campaigns, outboxMessages } from "../../src/server/db/schema";
import {
  type AuthedClient,
  campaignRecipientRows,
  createTestApp,
  outboxCountsTo,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";

// Campaign state and launch races (audit findings 3, 4, 5, 7): every test here sends its requests
// for real through the app (app.inject), the racing ones in parallel with Promise.all.

let t: TestApp;
const recipientRows = (campaignId: number) => campaignRecipientRows(t, campaignId);
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const sentTo = (addresses: string[]) => outboxCountsTo(t, addresses);

async function campaignRow(id: number) {
  const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, id));
  return c;
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

describe("pause / resume / cancel under parallel requests (finding 4)", () => {
  it("cancel and pause together on a scheduled campaign: it always ends cancelled, its recipients too", async () => {
    const { client } = await signUp(t.app);
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const emails = [uniqueEmail("cp"), uniqueEmail("cp")];
      const id = await scheduledEmailCampaign(client, emails, `CP ${i}`);
      const [cancel, pause] = await Promise.all([
        client.post(`/api/campaigns/${id}/cancel`),
        client.post(`/api/campaigns/${id}/pause`),
      ]);
      const c = await campaignRow(id);
      outcomes.push(`cancel ${cancel.statusCode} pause ${pause.statusCode} -> ${c.status}`);
      expect(cancel.statusCode).toBe(200);
      expect([200, 409]).toContain(pause.statusCode);
      if (pause.statusCode === 409) expect(pause.json().error).toBe("A cancelled campaign cannot be paused");
      expect(c.status, outcomes.join("; ")).toBe("cancelled");
      expect((await recipientRows(id)).map((r) => r.status)).toEqual(["cancelled", "cancelled"]);
    }
  });

  it("cancel and resume together on a paused campaign: cancel is never lost", async () => {
    const { client } = await signUp(t.app);
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const emails = [uniqueEmail("cr"), uniqueEmail("cr"), uniqueEmail("cr")];
      const id = await scheduledEmailCampaign(client, emails, `CR ${i}`);
      expect((await client.post(`/api/campaigns/${id}/pause`)).statusCode).toBe(200);
      // its time has come while paused: a resume now starts sending
      await t.db
        .update(campaigns)
        .set({ scheduledAt: new Date(Date.now() - 1000) })
        .where(eq(campaigns.id, id));
      // the resume leaves 0-3 ms after the cancel: the two interleave differently from run to run
      const [cancel, resume] = await Promise.all([
        client.post(`/api/campaigns/${id}/cancel`),
        new Promise((r) => setTimeout(r, i % 4)).then(() => client.post(`/api/campaigns/${id}/resume`)),
      ]);
      const c = await campaignRow(id);
      const rows = await recipientRows(id);
      outcomes.push(`cancel ${cancel.statusCode} resume ${resume.statusCode} -> ${c.status}`);
      const why = outcomes.join("; ");
      // whichever came first, a cancel that answered 200 leaves the campaign cancelled
      if (cancel.statusCode === 200) {
        expect(c.status, why).toBe("cancelled");
        expect(
          rows.some((r) => r.status === "queued"),
          why,
        ).toBe(false);
      } else {
        // the resume finished the whole send first (inline jobs): then cancel is a 409 with the reason
        expect(cancel.statusCode, why).toBe(409);
        expect(cancel.json().error).toBe("A completed campaign cannot be cancelled");
        expect(c.status, why).toBe("completed");
      }
      if (resume.statusCode === 409)
        expect(resume.json().error).toBe("A cancelled campaign cannot be resumed");
      else expect(resume.statusCode, why).toBe(200);
      // every recipient got at most one email
      expect(
        [...(await sentTo(emails)).values()].every((n) => n === 1),
        why,
      ).toBe(true);
    }
  });

  it("10 parallel resumes of a paused campaign: one 200, nine 409, one new round, each recipient sent once", async () => {
    const { client } = await signUp(t.app);
    const emails = Array.from({ length: 5 }, () => uniqueEmail("rr"));
    const id = await scheduledEmailCampaign(client, emails);
    expect((await client.post(`/api/campaigns/${id}/pause`)).statusCode).toBe(200);
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, id));
    const before = await campaignRow(id);
    const res = await Promise.all(
      Array.from({ length: 10 }, () => trpc(client, "campaigns.resume", { id }, "mutation")),
    );
    const statuses = res.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of res.filter((x) => x.status === 409))
      expect(r.error?.message).toMatch(/^A (sending|completed) campaign cannot be resumed$/);
    const after = await campaignRow(id);
    expect(after.round).toBe(before.round + 1);
    expect(after.status).toBe("completed");
    expect([...(await sentTo(emails)).values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it("parallel pauses: one 200, the others 409; resend-failed twice in parallel requeues once", async () => {
    const { client } = await signUp(t.app);
    const emails = [uniqueEmail("pp"), uniqueEmail("pp")];
    const id = await scheduledEmailCampaign(client, emails);
    const pauses = await Promise.all(
      Array.from({ length: 5 }, () => client.post(`/api/campaigns/${id}/pause`)),
    );
    expect(pauses.map((p) => p.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    await fireSchedule(id);
    expect((await campaignRow(id)).status).toBe("paused");
    expect(await sentTo(emails)).toEqual(new Map());
    // a finished campaign with one failed recipient: two parallel resend-failed requeue it once
    await t.db.update(campaigns).set({ status: "completed" }).where(eq(campaigns.id, id));
    const [first] = await recipientRows(id);
    await t.db
      .update(campaignRecipients)
      .set({ status: "failed", reason: "vendor said no" })
      .where(eq(campaignRecipients.id, first.id));
    const resends = await Promise.all([
      client.post(`/api/campaigns/${id}/resend-failed`),
      client.post(`/api/campaigns/${id}/resend-failed`),
    ]);
    expect(resends.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await campaignRow(id)).round).toBe(1);
    expect((await sentTo([first.address])).get(first.address)).toBe(1);
  });
});

describe("pausing and resuming a scheduled campaign (finding 5)", () => {
  it("resume before its time returns it to scheduled: nothing is sent until the scheduled time", async () => {
    const { client } = await signUp(t.app);
    const emails = [uniqueEmail("sched"), uniqueEmail("sched")];
    const id = await scheduledEmailCampaign(client, emails);
    const scheduledAt = (await campaignRow(id)).scheduledAt;
    expect((await client.post(`/api/campaigns/${id}/pause`)).json().status).toBe("paused");
    const resumed = await client.post(`/api/campaigns/${id}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(resumed.json().status).toBe("scheduled");
    const c = await campaignRow(id);
    expect(c.status).toBe("scheduled");
    expect(c.scheduledAt).toEqual(scheduledAt);
    expect(c.startedAt).toBeNull();
    expect(await sentTo(emails)).toEqual(new Map());
    // a fan-out waits for the scheduled time
    const waiting = t.jobs.deferred.filter(
      (d) => d.job.name === "campaigns.fan-out" && (d.data as { campaignId: number }).campaignId === id,
    );
    expect(waiting.length).toBeGreaterThan(0);
    for (const w of waiting) expect(w.options.startAfter?.getTime()).toBe(scheduledAt?.getTime());
    // its time comes: sent once each
    await fireSchedule(id);
    expect([...(await sentTo(emails)).values()]).toEqual([1, 1]);
    expect((await campaignRow(id)).status).toBe("completed");
  });
});
