import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, setPlan, signUp, type TestApp } from "../helpers";

// Merge tags lengthened a campaign's text without bound: a 154-character message of 22 {{bio}} tags
// over a 500-character custom field became 11,000 characters for that contact, reserved one plan
// unit and went to Twilio, which refuses bodies over 1,600 characters (error 21617). The launch now
// skips that recipient, "message too long once filled in (over 1,600 characters)" (the rest of the
// audience still gets it); a campaign left with nobody is a 422 naming the reason, with nothing written.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const AREAS = ["202", "303", "312", "415", "617", "713"];
const phone = () =>
  `+1${AREAS[Math.floor(Math.random() * AREAS.length)]}555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;

async function workspaceWith(bios: string[]) {
  const { client, user } = await signUp(t.app);
  await setPlan(t, user.id, "business");
  const phones = bios.map(() => phone());
  const ids = (await findOrCreateContacts(
    t.ctx,
    user.id,
    phones.map((p, i) => ({ name: `P${i}`, phone: p })),
  )) as number[];
  for (const [i, id] of ids.entries())
    await t.db
      .update(contacts)
      .set({ customFields: { bio: bios[i] }, timezone: daytimeZone() })
      .where(eq(contacts.id, id));
  return { client, user, ids, phones };
}

async function smsUsed(workspaceId: string) {
  const [m] = await t.db.execute<{ used: number }>(
    sql`select coalesce(sum(used), 0)::int as used from usage_meters where workspace_id = ${workspaceId} and meter = 'smsMessages'`,
  );
  return m!.used;
}

async function outboxBodies(to: string[]) {
  const rows = await t.db.execute<{ to: string; body: string }>(
    sql`select "to", body from outbox_messages where "to" in ${sql.raw(`(${to.map((p) => `'${p}'`).join(",")})`)} and channel = 'sms'`,
  );
  return new Map(rows.map((r) => [r.to, r.body]));
}

describe("an SMS campaign whose merge tags fill a text past 1,600 characters", () => {
  it("skips that recipient with the reason; the others are sent, one unit each", async () => {
    const w = await workspaceWith(["b".repeat(500), "short bio"]);
    const res = await w.client.post("/api/campaigns/sms/launch", {
      campaignName: "Long bios",
      message: "{{bio}}".repeat(22),
      contacts: w.ids.map((id) => ({ id })),
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().recipients).toBe(1);
    const campaignId = res.json().campaign.id as number;
    const rows = (
      await t.db.execute<{ contact_id: number; status: string; reason: string | null }>(
        sql`select contact_id, status, reason from campaign_recipients where campaign_id = ${campaignId} order by contact_id`,
      )
    ).map((r) => ({ ...r, contact_id: Number(r.contact_id) }));
    const long = rows.find((r) => r.contact_id === w.ids[0])!;
    expect(long.status).toBe("skipped");
    // one reason whatever the length, so counts group (the preflight counts the same reason)
    expect(long.reason).toBe("message too long once filled in (over 1,600 characters)");
    expect(rows.find((r) => r.contact_id === w.ids[1])!.status).not.toBe("skipped");
    expect(await smsUsed(w.user.id)).toBe(1);
    const sent = await outboxBodies(w.phones);
    expect(sent.has(w.phones[0]!)).toBe(false);
    expect(sent.get(w.phones[1]!)).toContain("short bio");
  });

  it("is a 422 naming the reason when nobody is left, with no campaign or unit", async () => {
    const w = await workspaceWith(["b".repeat(500)]);
    const res = await w.client.post("/api/campaigns/sms/launch", {
      campaignName: "Only a long bio",
      message: "{{bio}}".repeat(22),
      contacts: w.ids.map((id) => ({ id })),
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error).toBe(
      "Nobody would receive this campaign: 1 message too long once filled in (over 1,600 characters).",
    );
    const [c] = await t.db.execute<{ n: number }>(
      sql`select count(*)::int as n from campaigns where workspace_id = ${w.user.id}`,
    );
    expect(c!.n).toBe(0);
    expect(await smsUsed(w.user.id)).toBe(0);
  });

  it("sends a text the tags fill to 1,500 characters with the first text's name and opt-out line (within 1,600)", async () => {
    const w = await workspaceWith(["b".repeat(500), "b".repeat(500)]);
    const res = await w.client.post("/api/campaigns/sms/launch", {
      campaignName: "Three tags",
      message: "{{bio}}".repeat(3),
      contacts: w.ids.map((id) => ({ id })),
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().recipients).toBe(2);
    const sent = await outboxBodies(w.phones);
    for (const p of w.phones) {
      const body = sent.get(p)!;
      expect(body.length).toBeGreaterThan(1500);
      expect(body.length).toBeLessThanOrEqual(1600);
      expect(body).toMatch(/STOP/);
    }
    expect(await smsUsed(w.user.id)).toBe(2);
    const skipped = await t.db.execute<{ n: number }>(
      sql`select count(*)::int as n from campaign_recipients where contact_id in ${sql.raw(`(${w.ids.join(",")})`)} and status = 'skipped'`,
    );
    expect(skipped[0]!.n).toBe(0);
  });
});
