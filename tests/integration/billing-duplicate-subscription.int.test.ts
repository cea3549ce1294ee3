import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingRefunds, localSubscriptions, outboxMessages, workspaces } from "../../src/server/db/schema";
import type { StripeFake } from "../fakes/stripe";
import { type AuthedClient, createTestApp, signUp, type TestApp, trpcCall } from "../helpers";
import { stripeTestApp } from "../stripe-app";

/** tRPC billing.checkoutResult for `sessionId`, as the pricing page asks on return from a checkout. */
const resultOf = (client: AuthedClient, sessionId: string) =>
  trpcCall(client, "billing.checkoutResult", { session_id: sessionId }, "query");

/**
 * What the owner is told: the page (checkoutResult: the first checkout "active", the second
 * "refunded") and an email about the refund; another workspace cannot read the session (404).
 */
async function expectToldAboutRefund(
  t: TestApp,
  owner: { client: AuthedClient; user: { email: string } },
  first: string,
  second: string,
  names: { paid: string; current: string },
) {
  const a = await resultOf(owner.client, first);
  expect(a.status, JSON.stringify(a.error)).toBe(200);
  expect(a.data).toEqual({ status: "active", plan_name: names.current });
  const b = await resultOf(owner.client, second);
  expect(b.data).toEqual({ status: "refunded", plan_name: names.paid, current_plan_name: names.current });
  const stranger = await signUp(t.app);
  const theirs = await resultOf(stranger.client, second);
  expect(theirs.status).toBe(404);
  expect(theirs.error?.message).toBe("This payment was not found for this workspace.");
  expect((await resultOf(owner.client, "cs_test_unknown")).status).toBe(404);
  expect((await resultOf(owner.client, "not-a-session")).status).toBe(400);
  const mails = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, owner.user.email));
  const notice = mails.find((m) => m.subject?.startsWith(`Your ${names.paid} payment for `));
  expect(notice?.subject).toMatch(/was refunded$/);
  expect(notice?.body).toContain(`already has the ${names.current} plan`);
  expect(notice?.body).toContain("refunded in full and that subscription ended");
}

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
    // the page and an email say so (the sessions read back from Stripe: GET /v1/checkout/sessions/:id)
    await expectToldAboutRefund(t, { client, user }, first, second, {
      paid: "Business",
      current: "Professional",
    });
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
    await expectToldAboutRefund(t, { client, user }, first.split("/").pop()!, second.split("/").pop()!, {
      paid: "Enterprise",
      current: "Professional",
    });
  });
});
