import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall as trpc, uniqueEmail } from "../helpers";

// "Resend to failed only" for a workspace whose paid subscription had lapsed waited forever: its
// transaction holds the workspaces row FOR SHARE (assertWorkspaceNotBeingDeleted), and the plan read
// inside it ran on another pooled connection, where the lapsed plan's fallback to Free (billing
// loadBillingWorkspace, an UPDATE of that row) waited for the transaction that waited for it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("resend to failed only, the subscription lapsed", () => {
  it("answers instead of waiting on its own lock; the workspace falls back to Free", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Resend after the lapse",
      subject: "Hello",
      body: "Hi",
      contacts: [{ name: "F", email: uniqueEmail("lapsed") }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaignId as number;
    await t.db.execute(
      sql`update campaign_recipients set status = 'failed', reason = 'soft bounce (test)' where campaign_id = ${id}`,
    );
    await t.db.execute(
      sql`update workspaces set subscription_status = 'canceled', current_period_end = now() - interval '1 day' where id = ${user.id}`,
    );
    const answered = await Promise.race([
      trpc(client, "campaigns.resendFailed", { id }),
      new Promise<"hung">((r) => setTimeout(() => r("hung"), 8000)),
    ]);
    expect(answered).not.toBe("hung");
    const [ws] = await t.db.execute<{ plan: string }>(sql`select plan from workspaces where id = ${user.id}`);
    expect(ws!.plan).toBe("free");
  }, 20_000);
});
