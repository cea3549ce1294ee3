import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { addMonths } from "../../src/server/features/billing/billing.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

/**
 * QA finding: once a paid subscription's stored period end had passed without a renewal event having
 * moved it yet (the local provider never sends one; a late Stripe event), `GET /api/billing/usage`
 * answered `period_start` and `period_end` with the same past instant: Settings > Billing said
 * "Renews on Nov 27, 2026" two days after that date, and the limit banner said meters were refused
 * "until" it. The meters already count in the next period (billingPeriod rolls the anchor forward);
 * `period_end` now ends that same period.
 */
describe("GET /api/billing/usage period_end", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("is the end of the period the meters count in, also after the stored period end has passed", async () => {
    const { client, user } = await signUp(t.app);
    const storedEnd = new Date(Date.now() - 2 * 86_400_000);
    await t.db
      .update(workspaces)
      .set({
        plan: "professional",
        subscriptionStatus: "active",
        stripeSubscriptionId: "sub_local_test",
        currentPeriodEnd: storedEnd,
        cancelAtPeriodEnd: false,
      })
      .where(eq(workspaces.id, user.id));
    const usage = (await client.get("/api/billing/usage")).json();
    expect(usage.plan).toBe("professional");
    expect(usage.period_start).toBe(storedEnd.toISOString());
    expect(usage.period_end).toBe(addMonths(storedEnd, 1).toISOString());
    expect(Date.parse(usage.period_end)).toBeGreaterThan(Date.now());

    // a stored end still ahead is the date shown ("Renews on" / "Ends on")
    const ahead = new Date(Date.now() + 5 * 86_400_000);
    await t.db.update(workspaces).set({ currentPeriodEnd: ahead }).where(eq(workspaces.id, user.id));
    expect((await client.get("/api/billing/usage")).json().period_end).toBe(ahead.toISOString());
  });
});
