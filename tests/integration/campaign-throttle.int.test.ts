import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

// The per-channel send throttle (SEND_RATE_*_PER_SEC; audit side note): with 20 emails per second, a
// chunk of 60 recipients is not handed over at once (the old bucket let a whole chunk through and
// made the next send pay for it); it is paced in parts of one second's worth.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ SEND_RATE_EMAIL_PER_SEC: "20", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

/**
 * The provider calls that sent `prefix` addresses, in order: the local provider writes one batch in
 * one statement, so rows of one call share their created_at. Each call's size and start (ms).
 */
async function batches(prefix: string) {
  const rows = await t.sql<{ ms: string; n: number }[]>`
    select (extract(epoch from created_at) * 1000)::text as ms, count(*)::int as n from outbox_messages
    where "to" like ${`${prefix}%`} group by created_at order by created_at`;
  return rows.map((r) => ({ at: Number(r.ms), n: r.n }));
}

describe("send throttle", () => {
  it("at 20 emails per second, 60 recipients go out in parts of at most 20 per second, each once", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = `thr-${Date.now()}`;
    const ids = await findOrCreateContacts(
      t.ctx,
      user.id,
      Array.from({ length: 60 }, (_, i) => ({ name: `T${i}`, email: `${stamp}-${i}@example.com` })),
    );
    // the bucket starts full (one second's worth): drain it so the measure starts from a steady state
    const warm = await client.post("/api/campaigns", {
      name: "Warm",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: ids.slice(0, 20) },
    });
    expect(warm.statusCode, warm.body).toBe(200);
    const started = Date.now();
    const res = await client.post("/api/campaigns", {
      name: "Paced",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: ids },
    });
    expect(res.statusCode, res.body).toBe(200);
    const took = Date.now() - started;
    const calls = await batches(stamp);
    // 20 warm-up + 60, each once, in calls of at most one second's worth (20), a second apart
    expect(calls.reduce((sum, c) => sum + c.n, 0)).toBe(80);
    expect(Math.max(...calls.map((c) => c.n))).toBeLessThanOrEqual(20);
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < calls.length; i++)
      expect((calls[i]?.at ?? 0) - (calls[i - 1]?.at ?? 0)).toBeGreaterThan(900);
    // 60 sends after a drained bucket take about 3 s (the inline job client sends within the launch request)
    expect(took).toBeGreaterThanOrEqual(2500);
    // the bucket is not in debt afterwards: a next campaign of one email goes out within a second
    const next = Date.now();
    const one = await client.post("/api/campaigns", {
      name: "Next",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { csv: [{ email: `${stamp}-next@example.com` }] },
    });
    expect(one.statusCode).toBe(200);
    expect(Date.now() - next).toBeLessThan(1000);
  });
});
