import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingRefunds, localSubscriptions, workspaces } from "../../src/server/db/schema";
import type { StripeFake } from "../fakes/stripe";
import { createTestApp, signUp, type TestApp } from "../helpers";
import { stripeTestApp } from "../stripe-app";

/**
 * Two checkouts opened before either was paid (two tabs, a double click) can both be paid: Stripe
 * Checkout then makes two subscriptions for one workspace. Only one plan can be in force; the other
 * subscription must not go on charging the customer for nothing.
 */
describe("a second subscription paid for one workspace", () => {
  let t: TestApp;
  let fake: StripeFake;
  const stripe = stripeTestApp("whsec_dup_secret", "sk_test_dup");
  beforeAll(() => {
    ({ t, fake } = stripe.app);
  });

  const { deliver } = stripe;
  async function workspaceOf(id: string) {
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
    return w!;
  }

  it("is canceled at once and its payment refunded in full; the first plan stays and the 14-day guarantee is not used up", async () => {
    const { client, user } = await signUp(t.app);
    const open = async (priceId: string, planName: string) => {
      const res = await client.post("/api/payment/create-checkout-session", { priceId, planName });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().portal).toBe(false);
      return (res.json().url as string).split("/").pop()!;
    };
    // both checkouts are opened before either is paid
    const first = await open("price_professional", "professional");
    const second = await open("price_business", "business");
    for (const e of fake.completeCheckout(first, 4900)) await deliver(e);
    const refundsBefore = fake.refunds.length;
    for (const e of fake.completeCheckout(second, 14900)) await deliver(e);
    const sub1 = fake.sessions.get(first)!.subscription as string;
    const sub2 = fake.sessions.get(second)!.subscription as string;

    expect(await workspaceOf(user.id)).toMatchObject({
      plan: "professional",
      subscriptionStatus: "active",
      stripeSubscriptionId: sub1,
    });
    // the second subscription no longer charges: ended now, its first invoice refunded in full
    expect(fake.subscriptions.get(sub2)!.status).toBe("canceled");
    expect(fake.refunds.slice(refundsBefore)).toMatchObject([{ amount: 14900, status: "succeeded" }]);
    expect(fake.subscriptions.get(sub1)!.status).toBe("active");
    // that refund is not the money-back guarantee: canceling the real one within 14 days still refunds it
    expect(
      await t.db.select().from(billingRefunds).where(eq(billingRefunds.workspaceId, user.id)),
    ).toHaveLength(0);
    await deliver(fake.updateSubscription(sub1, { cancel_at_period_end: true }));
    expect(fake.refunds.at(-1)).toMatchObject({ amount: 4900, status: "succeeded" });
    expect(await workspaceOf(user.id)).toMatchObject({ plan: "free", subscriptionStatus: "canceled" });
  });
});

describe("a second subscription paid through the local test checkout", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("is ended and refunded the same way; the first plan stays", async () => {
    const { client, user } = await signUp(t.app);
    const open = async (priceId: string, planName: string) => {
      const res = await client.post("/api/payment/create-checkout-session", { priceId, planName });
      expect(res.statusCode, res.body).toBe(200);
      return new URL(res.json().url as string).pathname;
    };
    const first = await open("price_professional", "professional");
    const second = await open("price_enterprise", "enterprise");
    for (const path of [first, second]) {
      const paid = await t.app.inject({
        method: "POST",
        url: path,
        payload: { card_number: "4242 4242 4242 4242" },
      });
      expect(paid.statusCode, paid.body).toBe(303);
    }
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
    expect(w).toMatchObject({ plan: "professional", subscriptionStatus: "active" });
    const subs = await t.db
      .select()
      .from(localSubscriptions)
      .where(eq(localSubscriptions.workspaceId, user.id));
    expect(subs).toHaveLength(2);
    const other = subs.find((s) => s.id !== w!.stripeSubscriptionId)!;
    expect(other).toMatchObject({ plan: "enterprise", status: "canceled" });
    expect(other.refundId).toBeTruthy();
    expect(subs.find((s) => s.id === w!.stripeSubscriptionId)).toMatchObject({
      status: "active",
      refundId: null,
    });
  });
});
