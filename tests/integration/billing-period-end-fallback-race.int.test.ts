import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { createTestApp, deferred, signUp, type TestApp } from "../helpers";

const DAY = 86_400_000;

/**
 * loadBillingWorkspace writes the period-end fallback (a subscription set to cancel whose period has
 * ended counts as Free) back to the row it read. A webhook that renewed the subscription in between
 * (the owner took the cancel back; its delivery came late) must not be overwritten by that fallback.
 */
describe("the period-end fallback against a concurrent webhook write", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("does not write Free over a renewal committed after the fallback read the row", async () => {
    const { client, user } = await signUp(t.app);
    // a Professional subscription set to cancel, whose period ended a minute ago
    await t.db
      .update(workspaces)
      .set({
        plan: "professional",
        subscriptionStatus: "active",
        subscriptionTier: "premium",
        cancelAtPeriodEnd: true,
        currentPeriodEnd: new Date(Date.now() - 60_000),
        stripeSubscriptionId: "sub_local_fallback_race",
      })
      .where(eq(workspaces.id, user.id));
    const renewedUntil = new Date(Date.now() + 30 * DAY);
    // the webhook's transaction: the subscription renewed (cancel taken back), not committed yet
    const held = deferred();
    const rowWritten = deferred();
    const webhook = t.db.transaction(async (tx) => {
      await tx
        .update(workspaces)
        .set({ cancelAtPeriodEnd: false, currentPeriodEnd: renewedUntil })
        .where(eq(workspaces.id, user.id));
      rowWritten.resolve();
      await held.promise;
    });
    await rowWritten.promise;
    // a request reads the (committed, ended) row and writes the fallback: it waits for the row lock
    const usage = client.get("/api/billing/usage");
    await new Promise((r) => setTimeout(r, 700));
    held.resolve();
    await webhook;
    const res = await usage;
    expect(res.statusCode, res.body).toBe(200);
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
    expect(w).toMatchObject({
      plan: "professional",
      subscriptionStatus: "active",
      cancelAtPeriodEnd: false,
      currentPeriodEnd: renewedUntil,
    });
    expect((await client.get("/api/billing/usage")).json()).toMatchObject({ plan: "professional" });
  });
});
