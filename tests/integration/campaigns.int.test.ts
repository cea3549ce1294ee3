import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, campaigns, outboxMessages } from "../../src/server/db/schema";
import { processRecipients, watchCampaign } from "../../src/server/features/campaigns/campaigns.engine";
import { fanOutJob } from "../../src/server/features/campaigns/campaigns.jobs";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall as trpc } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function outboxFor(to: string) {
  return t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
}

describe("email campaigns (local provider)", () => {
  it("launches from CSV rows, renders merge tags with fallbacks, adds RFC 8058 headers, sends once", async () => {
    const { client, user } = await signUp(t.app);
    const a = `ann-${Date.now()}@example.com`;
    const b = `bob-${Date.now()}@example.com`;
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Spring",
      subject: "Hi {{name|there}}",
      body: "Hello {{name|there}} at {{company}}.\n\nSee https://example.com/offer",
      contacts: [
        { name: "Ann Lee", email: a, company: "Acme" },
        { name: "", email: b, company: "" },
        { name: "No Email", email: "", company: "X" },
      ],
    });
    expect(res.statusCode).toBe(200);
    const json = res.json();
    expect(json.success).toBe(true);
    expect(json.recipients).toBe(2);
    const [ma] = await outboxFor(a);
    expect(ma.subject).toBe("Hi Ann Lee");
    expect(ma.body).toContain("Hello Ann Lee at Acme.");
    const [mb] = await outboxFor(b);
    expect(mb.subject).toBe("Hi there");
    expect(mb.body).toContain("Hello there at your company.");
    const headers = (ma.metadata as { headers: Record<string, string> }).headers;
    expect(headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(headers["List-Unsubscribe"]).toMatch(/^<http:\/\/localhost:80\/u\/[a-z0-9]+>$/);
    expect(ma.html).toContain("/c/");
    expect(ma.html).not.toContain("https://example.com/offer");
    // report
    const report = await client.get(`/api/campaigns/${json.campaignId}`);
    expect(report.statusCode).toBe(200);
    expect(t.jobs.failures.map((f) => `${f.job}: ${f.error.message}`)).toEqual([]);
    expect(report.json().campaign.status).toBe("completed");
    // simulated engagement ran (local providers): every sent recipient delivered
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, json.campaignId));
    expect(rows.every((r) => r.deliveredAt)).toBe(true);
    // another user cannot read it
    const other = await signUp(t.app);
    expect((await other.client.get(`/api/campaigns/${json.campaignId}`)).statusCode).toBe(404);
    expect(user.id).toBeTruthy();
  });

  it("validates with the spec messages", async () => {
    const { client } = await signUp(t.app);
    const r1 = await client.post("/api/campaigns/email/launch", {
      campaignName: "x",
      subject: "",
      body: "b",
      contacts: [{ email: "a@b.co" }],
    });
    expect(r1.statusCode).toBe(400);
    expect(r1.json().error).toBe("Please complete all steps");
    const r2 = await client.post("/api/campaigns/email/test", { subject: "", body: "" });
    expect(r2.json().error).toBe("Please write subject and email body first");
    const r3 = await client.post("/api/campaigns/sms/launch", {
      campaignName: "",
      message: "hi",
      contacts: [],
    });
    expect(r3.json().error).toBe("Please enter a campaign name");
    const r4 = await client.post("/api/campaigns/sms/launch", {
      campaignName: "x",
      message: " ",
      contacts: [],
    });
    expect(r4.json().error).toBe("Please enter your SMS message");
    const r5 = await client.post("/api/campaigns/sms/launch", {
      campaignName: "x",
      message: "hi",
      contacts: [],
    });
    expect(r5.json().error).toBe("Please select at least one contact");
  });

  it("sends a test email to the user's own address only", async () => {
    const { client, user } = await signUp(t.app);
    const ok = await client.post("/api/campaigns/email/test", {
      subject: "S {{name}}",
      body: "B",
      testEmail: user.email,
    });
    expect(ok.json()).toMatchObject({ success: true, message: `Test email sent to ${user.email}` });
    expect((await outboxFor(user.email)).some((m) => m.subject === "[Test] S Test User")).toBe(true);
    const bad = await client.post("/api/campaigns/email/test", {
      subject: "S",
      body: "B",
      testEmail: "victim@example.com",
    });
    expect(bad.statusCode).toBe(400);
  });

  it("a test email's links open their targets and its unsubscribe link says it is a test (they were 404 'Link not found')", async () => {
    const { client, user } = await signUp(t.app);
    const ok = await client.post("/api/campaigns/email/test", {
      subject: "Menu",
      body: "See https://example.com/menu?x=1 today",
      testEmail: user.email,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const [mail] = (await outboxFor(user.email)).filter((m) => m.subject === "[Test] Menu");
    expect(mail?.body).toContain("https://example.com/menu?x=1");
    expect(mail?.body).not.toMatch(/\/c\//);
    const unsub = mail?.body.match(/http:\/\/localhost:80(\/u\/[^\s)"<]+)/)?.[1];
    expect(unsub).toBe("/u/test");
    for (const method of ["GET", "POST"] as const) {
      const page = await t.app.inject({ method, url: unsub as string });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain("This link came in a test email, so it unsubscribes nobody.");
    }
    // nothing was suppressed: the user's own address still gets a campaign
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "After test",
      subject: "S",
      body: "B",
      contacts: [{ name: "Me", email: user.email }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await outboxFor(user.email)).filter((m) => m.subject === "S")).toHaveLength(1);
  });

  it("unsubscribe (RFC 8058 one-click) suppresses the address for the next campaign; clicks redirect only to campaign links", async () => {
    const { client } = await signUp(t.app);
    const a = `unsub-${Date.now()}@example.com`;
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "One",
      subject: "S",
      body: "Go https://example.com/x",
      contacts: [{ name: "U", email: a }],
    });
    const [rec] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, res.json().campaignId));
    // the tracked link as sent (signed per message: /c/:token/:i/:signature)
    const [mail] = await outboxFor(a);
    const sent = mail.body.match(/http:\/\/localhost:80(\/c\/[^\s)]+)/)?.[1];
    expect(sent).toMatch(new RegExp(`^/c/${rec.token}/0/[A-Za-z0-9_-]{22}$`));
    const click = await t.app.inject({ method: "GET", url: sent! });
    expect(click.statusCode).toBe(302);
    expect(click.headers.location).toBe("https://example.com/x");
    expect((await t.app.inject({ method: "GET", url: `/c/${rec.token}/7` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: `/u/${rec.token}` })).body).toContain("Unsubscribe");
    const post = await t.app.inject({
      method: "POST",
      url: `/u/${rec.token}`,
      payload: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.statusCode).toBe(200);
    const again = await client.post("/api/campaigns/email/launch", {
      campaignName: "Two",
      subject: "S",
      body: "B",
      contacts: [{ name: "U", email: a }],
    });
    // nobody left to send to: refused with the reason (issue 14), nothing sent
    expect(again.statusCode).toBe(422);
    expect(again.json().skipped).toEqual({ "opted out: unsubscribed": 1 });
    expect((await outboxFor(a)).length).toBe(1);
  });
});

describe("sms campaigns (local provider)", () => {
  it("skips opted-out and not-opted-in contacts, adds the STOP notice on the first message only", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business"); // beyond the Free plan (spec section 9)
    const phone = "+12125550101";
    const stopped = "+12125550102";
    await suppress(t.db, user.id, "sms", stopped, "stop_reply");
    const base = {
      campaignName: "Promo",
      message: "Hi {{name|there}}, 20% off at {{company|your company}}",
    };
    const r = await client.post("/api/campaigns/sms/launch", {
      ...base,
      contacts: [
        { name: "Sam", phone, company: "Shop" },
        { name: "Stopped", phone: stopped },
      ],
      includeNotOptedIn: true,
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().skipped).toEqual({ "opted out: replied STOP": 1 });
    const withoutConsent = await client.post("/api/campaigns/sms/launch", {
      ...base,
      contacts: [{ name: "Sam", phone }],
    });
    expect(withoutConsent.statusCode).toBe(422);
    expect(withoutConsent.json().skipped).toEqual({ "not opted in to SMS": 1 });
    const recs = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, r.json().campaignId));
    const sam = recs.find((x) => x.address === phone)!;
    // SMS waits for 8am-9pm in New York (area code 212): either sent now or deferred with a reason
    if (sam.status === "queued") {
      expect(sam.reason).toMatch(/quiet hours \(America\/New_York\)/);
      expect(sam.notBefore).toBeTruthy();
    } else {
      const [msg] = await outboxFor(phone);
      // the first text names the business (the workspace "Acme") and says how to opt out (CTIA)
      expect(msg.body).toBe("Acme: Hi Sam, 20% off at Shop\nReply STOP to opt out");
    }
  });
});

describe("campaign lifecycle and crash recovery (local providers)", () => {
  it("schedules, pauses, resumes, cancels and resends failed recipients", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = Date.now();
    const emails = [0, 1, 2].map((i) => `life${i}-${stamp}@example.com`);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Later",
      subject: "S",
      body: "B",
      contacts: emails.map((email) => ({ name: "L", email })),
      scheduledAt: later,
    });
    const id = res.json().campaignId as number;
    expect(res.json().campaign.status).toBe("scheduled");
    expect((await outboxFor(emails[0])).length).toBe(0);
    expect((await client.post(`/api/campaigns/${id}/pause`)).json().status).toBe("paused");
    expect((await client.post(`/api/campaigns/${id}/pause`)).statusCode).toBe(409);
    // resumed before its time: scheduled again, nothing sent yet (campaign-races.int.test.ts)
    expect((await client.post(`/api/campaigns/${id}/resume`)).json().status).toBe("scheduled");
    for (const e of emails) expect((await outboxFor(e)).length).toBe(0);
    // its time comes: the launch's and the resume's fan-outs both run, each recipient is sent once
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, id));
    expect(await t.jobs.runDeferred()).toBeGreaterThanOrEqual(2);
    const report = (await client.get(`/api/campaigns/${id}`)).json();
    expect(report.campaign.status).toBe("completed");
    for (const e of emails) expect((await outboxFor(e)).length).toBe(1);
    // a fan-out firing again later changes nothing
    await t.jobs.send(fanOutJob, { campaignId: id });
    await t.jobs.runDeferred();
    for (const e of emails) expect((await outboxFor(e)).length).toBe(1);
    // resend to failed only: one recipient failed at the vendor
    const [first] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, id))
      .orderBy(campaignRecipients.id);
    await t.db
      .update(campaignRecipients)
      .set({ status: "failed", reason: "vendor said no" })
      .where(eq(campaignRecipients.id, first.id));
    expect((await client.post(`/api/campaigns/${id}/resend-failed`)).json().requeued).toBe(1);
    expect((await outboxFor(first.address)).length).toBe(2);
    expect((await client.post(`/api/campaigns/${id}/resend-failed`)).statusCode).toBe(409);
    // another user's campaign: 404, and cancel
    const other = await signUp(t.app);
    expect((await other.client.post(`/api/campaigns/${id}/cancel`)).statusCode).toBe(404);
    const c2 = await client.post("/api/campaigns/email/launch", {
      campaignName: "Cancel me",
      subject: "S",
      body: "B",
      contacts: [{ email: `cx-${stamp}@example.com` }],
      scheduledAt: later,
    });
    expect((await client.post(`/api/campaigns/${c2.json().campaignId}/cancel`)).json().status).toBe(
      "cancelled",
    );
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, c2.json().campaignId));
    expect(rows.map((r) => [r.status, r.reason])).toEqual([["cancelled", "campaign cancelled"]]);
    expect(user.id).toBeTruthy();
  });

  it("a 1,200-recipient launch is enqueued as send jobs of at most 500 recipients; replaying them sends nothing twice", async () => {
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, "enterprise"); // beyond the Free plan (spec section 9)
    const stamp = Date.now();
    const ids = await findOrCreateContacts(
      t.ctx,
      user.id,
      Array.from({ length: 1200 }, (_, i) => ({ name: `B${i}`, email: `batch${i}-${stamp}@example.com` })),
    );
    const enqueued: { data: unknown; options?: { id?: string } }[] = [];
    const original = t.jobs.sendMany.bind(t.jobs);
    t.jobs.sendMany = async (job, items) => {
      if (job.name === "campaigns.send-message") enqueued.push(...items);
      return original(job, items);
    };
    let launched: Awaited<ReturnType<typeof createAndLaunchCampaign>>;
    try {
      launched = await createAndLaunchCampaign(t.ctx, user.id, {
        name: "Batches",
        channel: "email",
        content: { subject: "Hi {{name}}", body: "Hello {{name|there}}" },
        recipients: { contactIds: ids },
      });
    } finally {
      t.jobs.sendMany = original;
    }
    const sizes = enqueued.map((j) => (j.data as { recipientIds: number[] }).recipientIds.length);
    expect(sizes).toEqual([500, 500, 200]);
    expect(new Set(enqueued.map((j) => j.options?.id)).size).toBe(3);
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launched.campaign.id));
    expect(rows.length).toBe(1200);
    expect(rows.every((r) => r.status !== "queued" && r.status !== "sending")).toBe(true);
    // a duplicate / stale delivery of every job: the rows' status machine sends nothing again
    await processRecipients(
      { ...t.ctx },
      enqueued.flatMap((j) => (j.data as { recipientIds: number[] }).recipientIds),
    );
    const counts = await t.sql<{ n: number }[]>`
      select count(*)::int as n from outbox_messages
      where "to" like ${`batch%-${stamp}@example.com`} group by "to"`;
    expect(counts.length).toBe(1200);
    expect(counts.every((c) => c.n === 1)).toBe(true);
  });

  it("a worker killed mid-send: rows stuck in sending are finished exactly once", async () => {
    const { user } = await signUp(t.app);
    const stamp = Date.now();
    const ids = await findOrCreateContacts(
      t.ctx,
      user.id,
      [0, 1].map((i) => ({ name: `K${i}`, email: `kill${i}-${stamp}@example.com` })),
    );
    const launched = await createAndLaunchCampaign(t.ctx, user.id, {
      name: "K",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: ids },
    });
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launched.campaign.id))
      .orderBy(campaignRecipients.id);
    // simulate: row 0 was sent (outbox written) but not recorded; row 1 was claimed but never sent
    // (neither recorded, so neither carries the simulated engagement of the launch's run)
    await t.db.delete(outboxMessages).where(eq(outboxMessages.to, rows[1].address));
    await t.db
      .update(campaignRecipients)
      .set({
        status: "sending",
        leaseUntil: new Date(Date.now() - 1000),
        providerMessageId: null,
        sentAt: null,
        deliveredAt: null,
        openedAt: null,
        clickedAt: null,
      })
      .where(eq(campaignRecipients.campaignId, launched.campaign.id));
    await t.db
      .update(campaigns)
      .set({ status: "sending", completedAt: null })
      .where(eq(campaigns.id, launched.campaign.id));
    // a live lease is respected: nothing is re-claimed before it expires
    await t.db
      .update(campaignRecipients)
      .set({ leaseUntil: new Date(Date.now() + 60_000) })
      .where(eq(campaignRecipients.id, rows[1].id));
    await processRecipients({ ...t.ctx }, [rows[1].id]);
    expect((await outboxFor(rows[1].address)).length).toBe(0);
    await t.db
      .update(campaignRecipients)
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(campaignRecipients.id, rows[1].id));
    expect(await watchCampaign({ ...t.ctx }, launched.campaign.id)).toBe("sending"); // re-enqueues the stuck rows
    expect(await watchCampaign({ ...t.ctx }, launched.campaign.id)).toBe("completed");
    expect((await outboxFor(rows[0].address)).length).toBe(1);
    expect((await outboxFor(rows[1].address)).length).toBe(1);
    const after = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launched.campaign.id));
    expect(after.every((r) => r.status === "sent" || r.status === "delivered")).toBe(true);
  });
});

describe("tRPC campaigns router (what the report page and the email builder call)", () => {
  it("report, recipients, pause / resume / cancel / resend-failed and send-test: same rules as REST, tenant-scoped", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = Date.now();
    const emails = [0, 1].map((i) => `trpc${i}-${stamp}@example.com`);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Over tRPC",
      subject: "S",
      body: "B",
      contacts: emails.map((email) => ({ name: "T", email })),
      scheduledAt: later,
    });
    const id = res.json().campaignId as number;

    const report = await trpc(client, "campaigns.report", { id }, "query");
    expect(report.status).toBe(200);
    expect(report.data.campaign).toMatchObject({
      id,
      name: "Over tRPC",
      channel: "email",
      status: "scheduled",
    });
    expect(report.data.content).toMatchObject({ subject: "S", body: "B" });
    const recipients = await trpc(client, "campaigns.recipients", { id, page: 1, limit: 50 }, "query");
    expect(recipients.data.pagination).toMatchObject({ page: 1, pages: 1, total: 2 });
    expect(recipients.data.recipients.map((r: { address: string }) => r.address).sort()).toEqual(emails);
    const queued = await trpc(client, "campaigns.recipients", { id, status: "sent" }, "query");
    expect(queued.data.recipients).toEqual([]);
    const badStatus = await trpc(client, "campaigns.recipients", { id, status: "nope" }, "query");
    expect(badStatus.status).toBe(400);

    expect((await trpc(client, "campaigns.pause", { id }, "mutation")).data).toEqual({ status: "paused" });
    const again = await trpc(client, "campaigns.pause", { id }, "mutation");
    expect(again.status).toBe(409);
    expect(again.error?.message).toBe("A paused campaign cannot be paused");
    // its time has come while it was paused: resuming sends now
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, id));
    expect((await trpc(client, "campaigns.resume", { id }, "mutation")).data).toEqual({ status: "sending" });
    const done = await trpc(client, "campaigns.report", { id }, "query");
    expect(done.data.campaign.status).toBe("completed");
    for (const e of emails) expect((await outboxFor(e)).length).toBe(1);
    const none = await trpc(client, "campaigns.resendFailed", { id }, "mutation");
    expect(none.status).toBe(409);
    expect(none.error?.message).toBe("No failed recipients to resend");
    const [first] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, id))
      .orderBy(campaignRecipients.id);
    await t.db
      .update(campaignRecipients)
      .set({ status: "failed", reason: "vendor said no" })
      .where(eq(campaignRecipients.id, first.id));
    expect((await trpc(client, "campaigns.resendFailed", { id }, "mutation")).data).toEqual({ requeued: 1 });
    expect((await outboxFor(first.address)).length).toBe(2);

    // another workspace: every procedure answers 404 'Campaign not found'
    const other = await signUp(t.app);
    for (const [path, kind] of [
      ["campaigns.report", "query"],
      ["campaigns.recipients", "query"],
      ["campaigns.cancel", "mutation"],
      ["campaigns.pause", "mutation"],
    ] as const) {
      const r = await trpc(other.client, path, { id }, kind);
      expect(r.status, path).toBe(404);
      expect(r.error?.message).toBe("Campaign not found");
    }
    const c2 = await client.post("/api/campaigns/email/launch", {
      campaignName: "Cancel me",
      subject: "S",
      body: "B",
      contacts: [{ email: `trpc-cx-${stamp}@example.com` }],
      scheduledAt: later,
    });
    const cancelled = await trpc(client, "campaigns.cancel", { id: c2.json().campaignId }, "mutation");
    expect(cancelled.data).toMatchObject({ status: "cancelled" });

    // Send Test: the user's own address only, the spec's validation sentence
    const test = await trpc(
      client,
      "campaigns.sendTest",
      { subject: "T {{name}}", body: "B", testEmail: user.email },
      "mutation",
    );
    expect(test.data).toEqual({ email: user.email });
    expect((await outboxFor(user.email)).some((m) => m.subject === "[Test] T Test User")).toBe(true);
    const empty = await trpc(client, "campaigns.sendTest", { subject: "", body: "" }, "mutation");
    expect(empty.status).toBe(400);
    expect(empty.error?.message).toBe("Please write subject and email body first");
    const victim = await trpc(
      client,
      "campaigns.sendTest",
      { subject: "S", body: "B", testEmail: "victim@example.com" },
      "mutation",
    );
    expect(victim.status).toBe(400);
  });
});
