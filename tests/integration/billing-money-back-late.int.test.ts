import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { billingRefunds, workspaces } from "../../src/server/db/schema";
import type { StripeFake } from "../fakes/stripe";
import { signUp, type TestApp } from "../helpers";
import { stripeTestApp } from "../stripe-app";

const DAY = 86_400_000;

/**
 * Spec section 9, 14-day money-back guarantee: what counts is when the owner cancelled, not when the
 * webhook telling us about it was processed (Stripe retries a failed delivery for up to 3 days).
 */
describe("money-back guarantee with a late webhook", () => {
  let t: TestApp;
  let fake: StripeFake;
  const stripe = stripeTestApp("whsec_late_secret", "sk_test_late");
  beforeAll(() => {
    ({ t, fake } = stripe.app);
  });

  const { deliver } = stripe;
  async function subscribed() {
    const { client, user } = await signUp(t.app);
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(res.statusCode, res.body).toBe(200);
    const session = (res.json().url as string).split("/").pop()!;
    for (const e of fake.completeCheckout(session, 4900)) await deliver(e);
    return { user, sub: fake.sessions.get(session)!.subscription as string };
  }
  const backdateFirstPayment = (id: string, daysAgo: number) =>
    t.db
      .update(workspaces)
      .set({ firstPaidAt: new Date(Date.now() - daysAgo * DAY) })
      .where(eq(workspaces.id, id));
  const refundsOf = (id: string) =>
    t.db.select().from(billingRefunds).where(eq(billingRefunds.workspaceId, id));

  it("a cancel made on day 13, delivered on day 15, is refunded in full and ends the plan now", async () => {
    const { user, sub } = await subscribed();
    await backdateFirstPayment(user.id, 15);
    const requested = Math.floor((Date.now() - 2 * DAY) / 1000);
    await deliver(fake.updateSubscription(sub, { cancel_at_period_end: true, canceled_at: requested }));
    expect(await refundsOf(user.id)).toMatchObject([{ amountCents: 4900, subscriptionId: sub }]);
    expect(fake.subscriptions.get(sub)!.status).toBe("canceled");
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
    expect(w).toMatchObject({ plan: "free", subscriptionStatus: "canceled" });
  });

  it("a cancel made on day 15 is not refunded: the plan runs to the period end", async () => {
    const { user, sub } = await subscribed();
    await backdateFirstPayment(user.id, 15);
    await deliver(fake.updateSubscription(sub, { cancel_at_period_end: true }));
    expect(await refundsOf(user.id)).toHaveLength(0);
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
    expect(w).toMatchObject({ plan: "professional", cancelAtPeriodEnd: true });
  });
});
