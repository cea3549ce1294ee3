import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, deferred, setPlan, signUp, type TestApp } from "../helpers";

// A claimed chunk's first part waits for the channel's send throttle (shared by every campaign of
// the channel in the process) before it is handed to the provider. A cancel, or an opt-out, that
// lands during that wait must stop it: nothing of a campaign goes out after its cancel answered 200,
// and nobody who opted out meanwhile is sent to.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ SEND_RATE_EMAIL_PER_SEC: "10", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function outboxOf(campaignId: number) {
  return t.sql<{ to: string }[]>`
    select "to" from outbox_messages where metadata->>'campaignId' = ${String(campaignId)}`;
}

async function campaignNamed(workspaceId: string, name: string) {
  const [c] = await t.sql<{ id: string }[]>`
    select id::text from campaigns where workspace_id = ${workspaceId} and name = ${name}`;
  return c ? Number(c.id) : 0;
}

/** Waits until campaign `name`'s rows are all claimed ('sending') with nothing handed over yet. */
async function waitClaimedUnsent(workspaceId: string, name: string) {
  for (let k = 0; k < 400; k++) {
    const id = await campaignNamed(workspaceId, name);
    if (id) {
      const [r] = await t.sql<{ sending: number; total: number }[]>`
        select count(*) filter (where status = 'sending')::int as sending, count(*)::int as total
        from campaign_recipients where campaign_id = ${id}`;
      if (r && r.total > 0 && r.sending === r.total) return id;
    }
    await sleep(10);
  }
  return 0;
}

/**
 * Set-up shared by both tests: a new professional workspace with 40 "busy" and 5 "late" email
 * contacts (addresses `<prefix>-<stamp>-busy-<i>@example.com` / `...-late-<i>@...`, stamp from
 * Date.now()); launches campaign "Busy" (40 emails keep the 10-per-second bucket empty for about
 * 4 s), waits until it has handed something over, then launches "Late", whose chunk is claimed and
 * waits for tokens the first one keeps taking. Returns once Late's rows are all claimed and unsent
 * (`lateId` is 0 if that never happened within about 4 s); both launches are still in flight.
 */
async function lateCampaignBehindBusy(prefix: string) {
  const { client, user } = await signUp(t.app);
  await setPlan(t, user.id, "professional");
  const stamp = `${prefix}-${Date.now()}`;
  const busy = await findOrCreateContacts(
    t.ctx,
    user.id,
    Array.from({ length: 40 }, (_, i) => ({ name: `B${i}`, email: `${stamp}-busy-${i}@example.com` })),
  );
  const late = await findOrCreateContacts(
    t.ctx,
    user.id,
    Array.from({ length: 5 }, (_, i) => ({ name: `L${i}`, email: `${stamp}-late-${i}@example.com` })),
  );
  // a 40-email campaign keeps the 10-per-second bucket empty for about 4 s
  const busyLaunch = Promise.resolve(
    client.post("/api/campaigns", {
      name: "Busy",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: busy },
    }),
  );
  for (let k = 0; k < 400; k++) {
    const id = await campaignNamed(user.id, "Busy");
    if (id && (await outboxOf(id)).length > 0) break;
    await sleep(10);
  }
  // the second campaign's chunk is claimed and waits for tokens the first one keeps taking
  const lateLaunch = Promise.resolve(
    client.post("/api/campaigns", {
      name: "Late",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: late },
    }),
  );
  const lateId = await waitClaimedUnsent(user.id, "Late");
  return { client, user, stamp, late, lateId, lateLaunch, busyLaunch };
}

describe("a campaign's first part waiting for the send throttle", () => {
  it("a cancel during the wait: nothing goes out after the cancel's 200; the rows end cancelled", async () => {
    const { client, lateId, lateLaunch, busyLaunch } = await lateCampaignBehindBusy("cif");
    expect(lateId).toBeGreaterThan(0);
    expect(await outboxOf(lateId)).toHaveLength(0);
    const cancel = await client.post(`/api/campaigns/${lateId}/cancel`);
    expect(cancel.statusCode, cancel.body).toBe(200);
    // what had gone out when the cancel answered: a part past its status check when the cancel landed
    // may finish (the 200 waits for it), nothing goes out afterwards
    const atAnswer = (await outboxOf(lateId)).length;
    expect((await lateLaunch).statusCode).toBe(200);
    expect((await busyLaunch).statusCode).toBe(200);
    expect((await outboxOf(lateId)).length).toBe(atAnswer);
    const rows = await t.sql<{ status: string; n: number }[]>`
      select status, count(*)::int as n from campaign_recipients where campaign_id = ${lateId} group by status`;
    const sent = (await outboxOf(lateId)).length;
    // the report tells the truth: what went out is sent, the rest cancelled (a part that was past its
    // status check when the cancel landed may have held all five, on a loaded machine)
    const expected = Object.fromEntries(
      Object.entries({ sent, cancelled: 5 - sent }).filter(([, n]) => n > 0),
    );
    expect(Object.fromEntries(rows.map((r) => [r.status, r.n]))).toEqual(expected);
  });

  it("an unsubscribe during the wait: that contact is skipped, never sent to", async () => {
    const { client, stamp, late, lateId, lateLaunch, busyLaunch } = await lateCampaignBehindBusy("uif");
    expect(lateId).toBeGreaterThan(0);
    // the late campaign's first contact opts out of email on their record while the part waits
    const optOut = await client.put(`/api/contacts/${late[0]}`, { email_opt_in: false });
    expect(optOut.statusCode, optOut.body).toBe(200);
    expect((await lateLaunch).statusCode).toBe(200);
    expect((await busyLaunch).statusCode).toBe(200);
    const to = (await outboxOf(lateId)).map((m) => m.to);
    expect(to).not.toContain(`${stamp}-late-0@example.com`);
    expect(to).toHaveLength(4);
    const [r] = await t.sql<{ status: string; reason: string | null }[]>`
      select status, reason from campaign_recipients where campaign_id = ${lateId} and contact_id = ${late[0] as number}`;
    expect(r).toEqual({ status: "skipped", reason: "opted out of email" });
  });

  it("a cancel or pause while a part is with the provider: the 200 waits for it, nothing goes out after", async () => {
    for (const verb of ["cancel", "pause"] as const) {
      const { client, user } = await signUp(t.app);
      await setPlan(t, user.id, "professional");
      const stamp = `hand-${verb}-${Date.now()}`;
      const ids = await findOrCreateContacts(
        t.ctx,
        user.id,
        Array.from({ length: 3 }, (_, i) => ({ name: `H${i}`, email: `${stamp}-${i}@example.com` })),
      );
      // the provider takes its time with this campaign's first batch (a slow vendor answer): the part
      // is past its status check and handing its rows over when the cancel or pause lands
      const email = t.providers.email;
      const sendBatch = email.sendBatch.bind(email);
      const inProvider = deferred();
      const gate = deferred();
      email.sendBatch = async (messages) => {
        if (messages.some((m) => m.to.startsWith(stamp))) {
          inProvider.resolve();
          await gate.promise;
        }
        return sendBatch(messages);
      };
      try {
        const launch = Promise.resolve(
          client.post("/api/campaigns", {
            name: `Slow vendor ${verb}`,
            channel: "email",
            content: { subject: "S", body: "B" },
            recipients: { contactIds: ids },
          }),
        );
        await inProvider.promise;
        const id = await campaignNamed(user.id, `Slow vendor ${verb}`);
        let answered = false;
        const stop = Promise.resolve(client.post(`/api/campaigns/${id}/${verb}`)).then((r) => {
          answered = true;
          return r;
        });
        await sleep(300);
        // before: the 200 came at once and the part's three emails went out after it
        expect(answered).toBe(false);
        gate.resolve();
        const res = await stop;
        expect(res.statusCode, res.body).toBe(200);
        const atAnswer = (await outboxOf(id)).map((m) => m.to).sort();
        expect(atAnswer).toEqual(ids.map((_, i) => `${stamp}-${i}@example.com`).sort());
        expect((await launch).statusCode).toBe(200);
        expect((await outboxOf(id)).length).toBe(atAnswer.length);
        // the report says they were sent
        const rows = await t.sql<{ status: string; n: number }[]>`
          select status, count(*)::int as n from campaign_recipients where campaign_id = ${id} group by status`;
        expect(Object.fromEntries(rows.map((r) => [r.status, r.n]))).toEqual({ sent: 3 });
      } finally {
        gate.resolve();
        email.sendBatch = sendBatch;
      }
    }
  });
});
