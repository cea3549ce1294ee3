import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reserveUsage } from "../../src/server/features/billing/billing.service";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { deliverWebhookJob } from "../../src/server/features/webhooks/webhooks.jobs";
import type { JobClient } from "../../src/server/jobs/client";
import { createTestApp, outboxCountsTo, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";
import { uniquePhone } from "../unique-phone";
import { webhookReceiver } from "./webhook-receiver";

// A campaign launch the plan refuses (402) after its inline rows (the builder's CSV, `contacts`) were
// matched to contacts used to leave the contacts it made for the new rows behind: they were written
// (and committed) before the meter was reserved. A refused launch now writes nothing: no contact, no
// campaign, no usage (campaigns.service inlineRowsTransaction), and a retry with the same launch token
// after an upgrade launches once.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false", OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => {
  await t?.close();
});

/** The workspace's contacts (emails and phones), campaigns and meter units used, read from the tables. */
async function state(workspaceId: string) {
  const contacts = await t.db.execute<{ email: string | null; phone: string | null }>(
    sql`select email, phone from contacts where workspace_id = ${workspaceId} order by id`,
  );
  const [campaigns] = await t.db.execute<{ n: number }>(
    sql`select count(*)::int as n from campaigns where workspace_id = ${workspaceId}`,
  );
  const [recipients] = await t.db.execute<{ n: number }>(
    sql`select count(*)::int as n from campaign_recipients where workspace_id = ${workspaceId}`,
  );
  const meters = await t.db.execute<{ meter: string; used: number }>(
    sql`select meter, sum(used)::int as used from usage_meters where workspace_id = ${workspaceId} group by meter order by meter`,
  );
  return {
    contacts: contacts.map((c) => c.email ?? c.phone),
    campaigns: campaigns!.n,
    recipients: recipients!.n,
    meters: Object.fromEntries(meters.map((m) => [m.meter, m.used])),
  };
}

describe("a launch the plan refuses writes nothing", () => {
  it("email meter (402) with a CSV of new addresses: no contact, campaign or usage; the retry after an upgrade launches once", async () => {
    const { client, user } = await signUp(t.app);
    // one contact the workspace already has, named by the CSV too
    const known = uniqueEmail("known");
    expect((await client.post("/api/contacts", { first_name: "Kim", email: known })).statusCode).toBe(200);
    // Free: 100 emails a month, 99 used
    await reserveUsage(t.ctx, user.id, "emails", 99);
    const before = await state(user.id);
    expect(before.contacts).toEqual([known]);
    const fresh = [uniqueEmail("new"), uniqueEmail("new")];
    const body = {
      campaignName: "Over the meter",
      subject: "Hello",
      body: "Hi {{first_name}}",
      contacts: [
        { name: "Kim", email: known },
        ...fresh.map((email) => ({ name: "New Person", email, company: "Acme" })),
      ],
      launchToken: crypto.randomUUID(),
    };
    const refused = await client.post("/api/campaigns/email/launch", body);
    expect(refused.statusCode, refused.body).toBe(402);
    expect(refused.json().error).toMatch(/100 emails a month; this needs 3 and 1 (is|are) left/);
    // nothing written: the contacts are the one from before, no campaign, no recipient, no usage
    expect(await state(user.id)).toEqual(before);

    // the owner upgrades; the same request (same launch token) now launches, once
    await setPlan(t, user.id, "professional");
    const run = await client.post("/api/campaigns/email/launch", body);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ success: true, recipients: 3 });
    const after = await state(user.id);
    expect(after.contacts).toEqual([known, ...fresh]);
    expect(after.campaigns).toBe(1);
    expect(after.recipients).toBe(3);
    const again = await client.post("/api/campaigns/email/launch", body);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().campaignId).toBe(run.json().campaignId);
    expect(await state(user.id)).toEqual(after);
  });

  it("SMS meter (402): one SMS counted per recipient; the CSV's new numbers make no contact", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    // Professional: 500 SMS a month, 499 used
    await reserveUsage(t.ctx, user.id, "smsMessages", 499);
    const before = await state(user.id);
    const phones = [await uniquePhone("212"), await uniquePhone("212")];
    const res = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Texts over the meter",
      message: "Hi",
      contacts: phones.map((phone) => ({ name: "Text Person", phone })),
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json().error).toMatch(/500 SMS/);
    expect(await state(user.id)).toEqual(before);
    expect(before.contacts).toEqual([]);
  });

  it("contacts limit (402): the new contacts count against it before any is written; the rows that fit launch", async () => {
    const { client, user } = await signUp(t.app);
    // Free: 100 contacts, 99 held
    await t.db.execute(
      sql`insert into contacts (workspace_id, email, first_name)
          select ${user.id}::uuid, 'held-' || g || '-' || ${user.id} || '@example.com', 'Held'
          from generate_series(1, 99) g`,
    );
    const before = await state(user.id);
    expect(before.contacts).toHaveLength(99);
    const two = [uniqueEmail("lim"), uniqueEmail("lim")];
    const over = await client.post("/api/campaigns/email/launch", {
      campaignName: "Over the contacts",
      subject: "Hello",
      body: "Hi",
      contacts: two.map((email) => ({ name: "L", email })),
    });
    expect(over.statusCode, over.body).toBe(402);
    expect(over.json().error).toMatch(/100 contacts/);
    expect(await state(user.id)).toEqual(before);
    const one = await client.post("/api/campaigns/email/launch", {
      campaignName: "Within the contacts",
      subject: "Hello",
      body: "Hi",
      contacts: [{ name: "L", email: two[0] }],
    });
    expect(one.statusCode, one.body).toBe(200);
    const after = await state(user.id);
    expect(after.contacts).toHaveLength(100);
    expect(after.contacts).toContain(two[0]);
    expect(after.campaigns).toBe(1);
  });
});

describe("a launch with inline rows queues its jobs after the commit as the launch did before", () => {
  it("a webhook delivery that cannot be queued (left to the stranded-delivery sweep) does not stop the campaign's send jobs or fail the launch", async () => {
    const hook = await webhookReceiver();
    try {
      const u = await signUp(t.app);
      await setPlan(t, u.user.id, "business");
      const { key } = (
        await u.client.post("/api/api-keys", { name: "hooks", scopes: ["webhooks:write", "contacts:read"] })
      ).json();
      const ep = await t.app.inject({
        method: "POST",
        url: "/api/v1/webhook_endpoints",
        headers: { authorization: `Bearer ${key}` },
        payload: { url: hook.url, events: ["contact.created"] },
      });
      expect(ep.statusCode, ep.body).toBe(201);
      // the queue refuses the webhook deliveries' jobs (queueWebhookDeliveries logs that and goes on:
      // the sweep queues them later); every other job goes through
      const jobs: JobClient = {
        send: (job, data, options) => t.jobs.send(job, data, options),
        sendMany: async (job, items) => {
          if (job.name === deliverWebhookJob.name) throw new Error("connection terminated");
          return t.jobs.sendMany(job, items);
        },
      };
      const email = uniqueEmail("hooked");
      const r = await createAndLaunchCampaign({ ...t.ctx, jobs }, u.user.id, {
        name: "Hooked",
        channel: "email",
        content: { subject: "Hello", body: "Hi" },
        recipients: { csv: [{ name: "Hook Person", email }] },
      });
      expect(r.queued).toBe(1);
      // the contact.created delivery was stored (for the sweep) and the campaign's message went out
      const [stored] = await t.db.execute<{ n: number }>(
        sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${ep.json().id}`,
      );
      expect(stored!.n).toBe(1);
      expect((await outboxCountsTo(t, [email])).get(email)).toBe(1);
    } finally {
      await hook.close();
    }
  });
});
