import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

// A chunk paced for longer than its lease (a low SEND_RATE_*_PER_SEC): the worker sending it renews the
// leases of the rows still to send, so their claims never lapse while it is alive. Before, the rows
// late in a 500-row chunk sat `sending` with an expired lease, free for the watchdog and another worker
// to take over (wasted work, and two workers pacing one campaign at twice the rate).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    SEND_RATE_EMAIL_PER_SEC: "10",
    CAMPAIGN_SEND_LEASE_SECONDS: "2",
    CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
  });
});
afterAll(async () => {
  await t?.close();
});

describe("send lease heartbeat", () => {
  it("50 emails at 10 per second with a 2 s lease: no claim lapses while the chunk is paced, each sent once", async () => {
    const { client, user } = await signUp(t.app);
    const stamp = `hb-${Date.now()}`;
    const ids = await findOrCreateContacts(
      t.ctx,
      user.id,
      Array.from({ length: 50 }, (_, i) => ({ name: `H${i}`, email: `${stamp}-${i}@example.com` })),
    );
    // the inline job client sends within the launch request: watch the rows while it runs
    let done = false;
    const launch = client
      .post("/api/campaigns", {
        name: "Slow",
        channel: "email",
        content: { subject: "S", body: "B" },
        recipients: { contactIds: ids },
      })
      .finally(() => {
        done = true;
      });
    let lapsed = 0;
    let sendingSeen = 0;
    while (!done) {
      const [r] = await t.sql<{ lapsed: number; sending: number }[]>`
        select count(*) filter (where status = 'sending' and lease_until < now())::int as lapsed,
          count(*) filter (where status = 'sending')::int as sending
        from campaign_recipients where address like ${`${stamp}-%`}`;
      lapsed = Math.max(lapsed, r?.lapsed ?? 0);
      sendingSeen = Math.max(sendingSeen, r?.sending ?? 0);
      await new Promise((res) => setTimeout(res, 200));
    }
    const res = await launch;
    expect(res.statusCode, res.body).toBe(200);
    // the chunk was held (claimed) while it was paced over about 5 s, and no claim lapsed meanwhile
    expect(sendingSeen).toBeGreaterThan(10);
    expect(lapsed).toBe(0);
    const [sent] = await t.sql<{ n: number; distinct: number }[]>`
      select count(*)::int as n, count(distinct "to")::int as distinct from outbox_messages where "to" like ${`${stamp}-%`}`;
    expect(sent).toEqual({ n: 50, distinct: 50 });
  });
});
