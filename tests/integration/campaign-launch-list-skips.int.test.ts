import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, outboxMessages } from "../../src/server/db/schema";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import {
  type AuthedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";

/*
 * A QA pass on the report: a list's duplicate rows, rows with no valid address and ids that are no
 * contact were in the launch's `skipped` but nowhere after it (report 0 skipped, finished email
 * "1 sent"): the campaign keeps them (launch result `unrecorded`) and the report and email add them.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

async function paidUser() {
  const u = await signUp(t.app, { business_name: "Pitch Co" });
  await setPlan(t, u.user.id, "business");
  return u;
}

/** The campaign emails sent to `to` (subject and text body). */
const emailsTo = (to: string) =>
  t.db
    .select({ subject: outboxMessages.subject, body: outboxMessages.body })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")));

async function waitCompleted(client: AuthedClient, id: number) {
  await expect
    .poll(async () => (await client.get(`/api/campaigns/${id}`)).json().campaign.status, { timeout: 20_000 })
    .toBe("completed");
}

describe("a launch's skips that made no recipient stay with the campaign", () => {
  it("the report (REST, tRPC) and the finished email count them as the launch did", async () => {
    const { client, user } = await paidUser();
    const a = uniqueEmail("qa4-s");
    const optedOut = uniqueEmail("qa4-s-out");
    await suppress(t.db, user.id, "email", optedOut, "unsubscribe");
    const body = {
      name: "QA4 skips",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: {
        csv: [
          { name: "A", email: a },
          { name: "A again", email: a },
          { name: "Bad", email: "not-an-email" },
          { name: "Out", email: optedOut },
        ],
        contactIds: [2_000_000_000],
      },
    };
    const pre = (await client.post("/api/campaigns/preflight", body)).json();
    const launched = await client.post("/api/campaigns", body);
    expect(launched.statusCode, launched.body).toBe(200);
    const skipped = launched.json().skipped as Record<string, number>;
    expect(skipped).toEqual(pre.skipped);
    expect(skipped).toMatchObject({
      "duplicate address": 1,
      "no valid email or phone number": 1,
      "contact not found": 1,
    });
    const total = Object.values(skipped).reduce((n, x) => n + x, 0);
    expect(total).toBe(4);
    const id = launched.json().campaignId as number;
    await waitCompleted(client, id);

    const expectedReasons = Object.entries(skipped).map(([reason, count]) => ({
      reason: ["duplicate address", "no valid email or phone number", "contact not found"].includes(reason)
        ? `${reason} (no recipient made, not in the recipients CSV)`
        : reason,
      count,
    }));
    const rest = (await client.get(`/api/campaigns/${id}`)).json();
    expect(rest.figures.skipped).toBe(total);
    expect(rest.figures.skippedReasons).toEqual(expect.arrayContaining(expectedReasons));
    expect(rest.figures.skippedReasons).toHaveLength(expectedReasons.length);
    const viaTrpc = await trpc(client, "campaigns.report", { id }, "query");
    expect(viaTrpc.data.figures.skipped).toBe(total);
    expect(viaTrpc.data.figures.skippedReasons).toEqual(rest.figures.skippedReasons);

    await expect
      .poll(
        async () =>
          (await emailsTo(user.email)).find((m) => m.subject === 'Your campaign "QA4 skips" has finished')
            ?.body,
        { timeout: 10_000 },
      )
      .toContain(`- ${total} skipped`);

    // a campaign launched before these skips were kept: derived from its launch result
    await t.db
      .update(campaigns)
      .set({ launchResult: sql`${campaigns.launchResult} - 'unrecorded'` })
      .where(eq(campaigns.id, id));
    const legacy = (await client.get(`/api/campaigns/${id}`)).json();
    expect(legacy.figures.skipped).toBe(total);
    expect(legacy.figures.skippedReasons).toEqual(rest.figures.skippedReasons);
  });
});
