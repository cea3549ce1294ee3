import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, outboxMessages, usageMeters, users, workspaces } from "../../src/server/db/schema";
import { reserveUsage } from "../../src/server/features/billing/billing.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const stamp = () => `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;

/** `n` contacts with an email and a US mobile, created through the CRM service. */
async function contactsFor(workspaceId: string, n: number) {
  const s = stamp();
  return findOrCreateContacts(
    t.ctx,
    workspaceId,
    Array.from({ length: n }, (_, i) => ({
      name: `C ${i}`,
      email: `c${i}-${s}@example.com`,
      phone: `+1515555${String(1000 + i).slice(-4)}`,
    })),
  );
}

async function campaignCount(workspaceId: string) {
  return (await t.db.select().from(campaigns).where(eq(campaigns.workspaceId, workspaceId))).length;
}

async function meter(workspaceId: string, name: string) {
  const rows = await t.db
    .select()
    .from(usageMeters)
    .where(and(eq(usageMeters.workspaceId, workspaceId), eq(usageMeters.meter, name)));
  return rows.reduce((a, r) => a + r.used, 0);
}

function launch(
  client: Awaited<ReturnType<typeof signUp>>["client"],
  channel: string,
  contactIds: number[],
  name = `Limit ${channel}`,
) {
  const content =
    channel === "email"
      ? { subject: "Hi", body: "Hello {{name|there}}" }
      : channel === "sms"
        ? { message: "Hi {{name|there}}" }
        : channel === "voicemail"
          ? { script: "Hello there" }
          : { script: "Hello there" };
  return client.post("/api/campaigns", {
    name,
    channel,
    content,
    recipients: { contactIds },
    includeNotOptedIn: true,
  });
}

describe("monthly meters: the last allowed and the first refused", () => {
  it("Free email: 100 a month; a launch over it is refused up front with the plan's sentence and nothing is created", async () => {
    const { client, user } = await signUp(t.app);
    await reserveUsage(t.ctx, user.id, "emails", 70);
    const ids = await contactsFor(user.id, 31);
    const before = await campaignCount(user.id);
    const over = await launch(client, "email", ids);
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toBe(
      "Your Free plan includes 100 emails a month; this needs 31 and 30 are left. Upgrade to Professional for unlimited emails.",
    );
    expect(await campaignCount(user.id)).toBe(before);
    expect(await meter(user.id, "emails")).toBe(70);
    // exactly what is left: accepted
    const ok = await launch(client, "email", ids.slice(0, 30));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await meter(user.id, "emails")).toBe(100);
    // and then one more is refused
    const one = await launch(client, "email", ids.slice(30));
    expect(one.statusCode).toBe(402);
    expect(one.json().error).toContain("this needs 1 and 0 are left");
  });

  it("SMS, voice, voicemail and video campaigns are not on Free (402 before anything is created); Professional has them", async () => {
    const { client, user } = await signUp(t.app);
    const ids = await contactsFor(user.id, 2);
    for (const channel of ["sms", "voice", "voicemail"]) {
      const res = await launch(client, channel, ids);
      expect(res.statusCode).toBe(402);
      expect(res.json().error).toBe(
        "SMS and voice campaigns are not included in your Free plan. Upgrade to Professional to use SMS and voice campaigns.",
      );
    }
    expect(await campaignCount(user.id)).toBe(0);
    await setPlan(t, user.id, "professional");
    expect((await launch(client, "sms", ids)).statusCode).toBe(200);
  });

  it("Professional SMS: 500 a month, one per recipient whatever the segment count", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    await reserveUsage(t.ctx, user.id, "smsMessages", 498);
    const ids = await contactsFor(user.id, 3);
    const long = await client.post("/api/campaigns", {
      name: "Long",
      channel: "sms",
      content: { message: `Hi {{name|there}} ${"x".repeat(300)}` }, // 3 segments each
      recipients: { contactIds: ids.slice(0, 2) },
      includeNotOptedIn: true,
    });
    expect(long.statusCode, long.body).toBe(200);
    expect(await meter(user.id, "smsMessages")).toBe(500);
    const over = await launch(client, "sms", ids.slice(2));
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toBe(
      "Your Professional plan includes 500 SMS messages a month; this needs 1 and 0 are left. Upgrade to Business for up to 2,500 SMS messages a month.",
    );
  });

  it("voice calls and ringless voicemails share the voice calls meter (Professional 100)", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const ids = await contactsFor(user.id, 2);
    await reserveUsage(t.ctx, user.id, "voiceCalls", 98);
    expect((await launch(client, "voice", ids.slice(0, 1))).statusCode).toBe(200);
    expect((await launch(client, "voicemail", ids.slice(1))).statusCode).toBe(200);
    expect(await meter(user.id, "voiceCalls")).toBe(100);
    const over = await launch(client, "voicemail", ids.slice(0, 1));
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toContain("Your Professional plan includes 100 voice calls a month");
  });

  it("single sends from a contact page count: the 100th Free email goes, the 101st is refused; SMS and calls need a paid plan", async () => {
    const { client, user } = await signUp(t.app);
    const [id] = await contactsFor(user.id, 1);
    await reserveUsage(t.ctx, user.id, "emails", 99);
    const last = await client.post(`/api/contacts/${id}/send-email`, { subject: "Hi", body: "Hello" });
    expect(last.statusCode, last.body).toBe(200);
    const first = await client.post(`/api/contacts/${id}/send-email`, { subject: "Hi", body: "Hello" });
    expect(first.statusCode).toBe(402);
    expect(first.json().error).toContain("Your Free plan includes 100 emails a month");
    const sms = await client.post(`/api/contacts/${id}/send-sms`, { message: "Hello" });
    expect(sms.statusCode).toBe(402);
    expect(sms.json().error).toBe(
      "Your Free plan does not include SMS messages. Upgrade to Professional for up to 500 SMS messages a month.",
    );
    const call = await client.post(`/api/contacts/${id}/make-call`, { script: "Hello" });
    expect(call.statusCode).toBe(402);
  });

  it("20 launches at once near the limit never exceed it", async () => {
    const { client, user } = await signUp(t.app);
    const ids = await contactsFor(user.id, 10);
    await reserveUsage(t.ctx, user.id, "emails", 5); // 95 left: 9 launches of 10 fit
    // 20 different campaigns (an identical launch within 10 minutes would be the same campaign)
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => launch(client, "email", ids, `Limit email ${i}`)),
    );
    const ok = results.filter((r) => r.statusCode === 200).length;
    expect(results.every((r) => r.statusCode === 200 || r.statusCode === 402)).toBe(true);
    expect(ok).toBe(9);
    expect(await meter(user.id, "emails")).toBe(95);
    expect(await campaignCount(user.id)).toBe(9);
  });

  it("a launch reserves inside its own transaction: a launch that crosses 80 % warns once after it commits, and a launch that fails after the check leaves the meter as it was", async () => {
    const { client, user } = await signUp(t.app);
    const ids = await contactsFor(user.id, 10);
    await reserveUsage(t.ctx, user.id, "emails", 75);
    const warnings = async () =>
      (
        await t.db
          .select()
          .from(outboxMessages)
          .where(and(eq(outboxMessages.to, user.email), eq(outboxMessages.channel, "email")))
      ).filter((m) => m.subject?.includes("of your emails"));
    const first = await launch(client, "email", ids.slice(0, 5)); // 80 of 100
    expect(first.statusCode).toBe(200);
    expect(await meter(user.id, "emails")).toBe(80);
    const second = await launch(client, "email", ids.slice(5, 10)); // 85: already warned
    expect(second.statusCode).toBe(200);
    await expect.poll(async () => (await warnings()).length, { timeout: 10_000 }).toBe(1);
    // a launch whose transaction fails after the reservation and the campaign row (a test trigger refuses
    // its recipients) rolls the reservation back with it: no campaign, the meter unchanged
    await t.sql.unsafe(`
      create or replace function test_fail_recipients() returns trigger language plpgsql as $$
      begin
        if (select name from campaigns where id = new.campaign_id) = 'Fail after check' then
          raise exception 'recipients refused by the test trigger';
        end if;
        return new;
      end $$;
      create trigger test_fail_recipients before insert on campaign_recipients
        for each row execute function test_fail_recipients();`);
    const before = await campaignCount(user.id);
    try {
      const broken = await client.post("/api/campaigns", {
        name: "Fail after check",
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        recipients: { contactIds: ids.slice(0, 2) },
        includeNotOptedIn: true,
      });
      expect(broken.statusCode).toBe(500);
    } finally {
      await t.sql.unsafe(
        "drop trigger test_fail_recipients on campaign_recipients; drop function test_fail_recipients();",
      );
    }
    expect(await meter(user.id, "emails")).toBe(85);
    expect(await campaignCount(user.id)).toBe(before);
  });

  it("the 80 % warning emails the owner once per period and meter, and not when notifications are off", async () => {
    const { user } = await signUp(t.app);
    await reserveUsage(t.ctx, user.id, "emails", 79);
    const warnings = () =>
      t.db
        .select()
        .from(outboxMessages)
        .where(and(eq(outboxMessages.to, user.email), eq(outboxMessages.channel, "email")));
    expect((await warnings()).filter((m) => m.subject?.includes("of your emails"))).toHaveLength(0);
    await reserveUsage(t.ctx, user.id, "emails", 1); // 80 of 100
    await reserveUsage(t.ctx, user.id, "emails", 5);
    const sent = (await warnings()).filter((m) => m.subject?.includes("of your emails"));
    expect(sent).toHaveLength(1);
    expect(sent[0].subject).toBe("You have used 80% of your emails this month");
    expect(sent[0].body).toContain("http://localhost:80/pricing");

    const quiet = await signUp(t.app);
    const [u] = await t.db.select().from(users).where(eq(users.id, quiet.user.id));
    await t.db
      .update(users)
      .set({ preferences: { ...u.preferences, emailNotifications: false } })
      .where(eq(users.id, quiet.user.id));
    await reserveUsage(t.ctx, quiet.user.id, "emails", 90);
    const none = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, quiet.user.email));
    expect(none.filter((m) => m.subject?.includes("of your emails"))).toHaveLength(0);
  });
});

describe("contacts (a total) and the usage endpoint", () => {
  it("an import over the contact limit imports up to it and rejects the rest with the reason; adding one more is refused; a downgrade deletes nothing", async () => {
    const { client, user } = await signUp(t.app);
    await contactsFor(user.id, 95);
    const s = stamp();
    const res = await client.post("/api/contacts/import", {
      contacts: Array.from({ length: 8 }, (_, i) => ({
        first_name: `I${i}`,
        email: `imp${i}-${s}@example.com`,
      })),
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.imported).toBe(5);
    expect(body.errors).toBe(3);
    expect(
      body.error_rows.filter((r: { reason: string }) =>
        r.reason.startsWith("Your Free plan includes 100 contacts."),
      ),
    ).toHaveLength(3);
    const add = await client.post("/api/contacts", { first_name: "One", email: `one-${s}@example.com` });
    expect(add.statusCode).toBe(402);
    expect(add.json().error).toContain("Your Free plan includes 100 contacts");

    // Professional, then back to Free: all 100 stay readable, new ones are refused
    await setPlan(t, user.id, "professional");
    expect(
      (await client.post("/api/contacts", { first_name: "Two", email: `two-${s}@example.com` })).statusCode,
    ).toBe(200);
    await setPlan(t, user.id, "free");
    const list = await client.get("/api/contacts?page=1&limit=200");
    expect(list.json().pagination.total).toBe(101);
    expect(
      (await client.post("/api/contacts", { first_name: "Three", email: `three-${s}@example.com` }))
        .statusCode,
    ).toBe(402);
  });

  it("GET /api/billing/usage reports every limit (null = unlimited) with this period's use and the banners' data", async () => {
    const { client, user } = await signUp(t.app);
    await contactsFor(user.id, 3);
    await reserveUsage(t.ctx, user.id, "emails", 85);
    const res = await client.get("/api/billing/usage");
    expect(res.statusCode).toBe(200);
    const u = res.json();
    expect(u).toMatchObject({
      success: true,
      plan: "free",
      status: null,
      usage: {
        contacts: { used: 3, limit: 100 },
        seats: { used: 1, limit: 1 },
        emails: { used: 85, limit: 100 },
        sms_messages: { used: 0, limit: 0 },
        video_messages: { used: 0, limit: 0 },
        voice_calls: { used: 0, limit: 0 },
        lead_searches: { used: 0, limit: 10 },
      },
    });
    expect(u.alerts).toEqual(
      expect.arrayContaining([{ meter: "emails", level: "warning", used: 85, limit: 100 }]),
    );
    await setPlan(t, user.id, "enterprise");
    const ent = (await client.get("/api/billing/usage")).json();
    expect(ent.usage.contacts.limit).toBeNull();
    expect(ent.usage.emails).toEqual({ used: 85, limit: null }); // same calendar period: no subscription period yet
    expect(ent.alerts).toEqual([]);
    expect((await t.app.inject({ method: "GET", url: "/api/billing/usage" })).statusCode).toBe(401);
  });
});

void workspaces;
