import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingEvents, billingRefunds, workspaceMembers, workspaces } from "../../src/server/db/schema";
import type { StripePaymentsProvider } from "../../src/server/providers/payments/stripe";
import { type StripeFake, startStripeFake } from "../fakes/stripe";
import { createTestApp, signUp, type TestApp } from "../helpers";

const PAID = [
  { plan: "professional", name: "Professional", priceId: "price_professional", cents: 4900 },
  { plan: "business", name: "Business", priceId: "price_business", cents: 14900 },
  { plan: "enterprise", name: "Enterprise", priceId: "price_enterprise", cents: 49900 },
] as const;
type Paid = (typeof PAID)[number];

async function workspaceOf(t: TestApp, id: string) {
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
  return w!;
}

describe("local payments provider (default, offline)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function startCheckout(client: Awaited<ReturnType<typeof signUp>>["client"], plan: Paid = PAID[0]) {
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: plan.priceId,
      planName: plan.plan,
    });
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().url as string);
    expect(url.pathname).toMatch(/^\/local-checkout\/cs_local_[\w-]+$/);
    return url.pathname;
  }

  it.each(PAID)(
    "creates a checkout session for $name with its plan and price on a test checkout page",
    async (plan) => {
      const { client } = await signUp(t.app);
      const path = await startCheckout(client, plan);
      const page = await t.app.inject({ method: "GET", url: path });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain("Test checkout - no real payment");
      // its form posts back with an Origin header (Helmet's no-referrer would send 'Origin: null')
      expect(page.headers["referrer-policy"]).toBe("same-origin");
      expect(page.body).toContain(`Subscribe to ${plan.name}`);
      expect(page.body).toContain(`$${(plan.cents / 100).toFixed(2)}`);
    },
  );

  it("refuses unknown plans, a price of another plan, and malformed bodies with 400 sentences", async () => {
    const { client } = await signUp(t.app);
    const wrongPrice = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "professional",
    });
    expect(wrongPrice.statusCode).toBe(400);
    expect(wrongPrice.json().error).toBe(
      "That price does not belong to the Professional plan. Please reload the page and try again.",
    );
    const unknown = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_x",
      planName: "gold",
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toContain("There is no paid plan called 'gold'");
    const empty = await client.post("/api/payment/create-checkout-session", {});
    expect(empty.statusCode).toBe(400);
    const signedOut = await t.app.inject({
      method: "POST",
      url: "/api/payment/create-checkout-session",
      payload: { priceId: "price_professional", planName: "professional" },
    });
    expect(signedOut.statusCode).toBe(401);
  });

  it("declines 4000 0000 0000 0002 on the page and changes nothing; 4242 4242 4242 4242 subscribes through the signed event and redirects", async () => {
    const { client, user } = await signUp(t.app);
    const path = await startCheckout(client);
    const declined = await t.app.inject({
      method: "POST",
      url: path,
      payload: { card_number: "4000 0000 0000 0002" },
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.headers["content-type"]).toContain("text/html");
    expect(declined.body).toContain("Your card was declined.");
    expect((await workspaceOf(t, user.id)).plan).toBe("free");

    const paid = await t.app.inject({
      method: "POST",
      url: path,
      payload: { card_number: "4242 4242 4242 4242" },
    });
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toMatch(
      /^http:\/\/localhost:80\/pricing\?success=true&session_id=cs_local_/,
    );
    const w = await workspaceOf(t, user.id);
    expect(w).toMatchObject({
      plan: "professional",
      subscriptionStatus: "active",
      subscriptionTier: "premium",
      cancelAtPeriodEnd: false,
    });
    expect(w.firstPaidAt).toBeInstanceOf(Date);
    expect(w.currentPeriodEnd!.getTime()).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    expect(w.stripeSubscriptionId).toMatch(/^sub_local_/);
    // both signed events were stored once
    const evs = await t.db.select().from(billingEvents).where(eq(billingEvents.workspaceId, user.id));
    expect(evs.map((e) => e.type).sort()).toEqual(["checkout.session.completed", "invoice.paid"]);
    // paying the same session again does nothing
    const again = await t.app.inject({
      method: "POST",
      url: path,
      payload: { card_number: "4242424242424242" },
    });
    expect(again.statusCode).toBe(402);
    expect(again.body).toContain("already been paid");

    const usage = await client.get("/api/billing/usage");
    expect(usage.json()).toMatchObject({ success: true, plan: "professional", status: "active" });
    // the pricing data marks it current; buying it again is refused
    const plans = await client.get("/api/billing/plans");
    expect(plans.json().plans.find((p: { id: string }) => p.id === "professional").current).toBe(true);
    const same = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(same.statusCode).toBe(400);
    expect(same.json().error).toBe("You are already on the Professional plan.");
  });

  it("a forged or replayed local event changes nothing", async () => {
    const { user } = await signUp(t.app);
    const payload = JSON.stringify({
      id: "evt_local_forged",
      type: "customer.subscription.updated",
      created: 1,
      data: { object: { id: "sub_local_x", customer: "c", metadata: { workspace_id: user.id } } },
    });
    const forged = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: {
        "content-type": "application/json",
        "stripe-signature": `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`,
      },
      payload,
    });
    expect(forged.statusCode).toBe(400);
    const unsigned = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json" },
      payload,
    });
    expect(unsigned.statusCode).toBe(400);
    expect((await workspaceOf(t, user.id)).plan).toBe("free");
  });

  it("portal: plan change applies at once; cancel after the 14 days ends at period end and falls back to Free then", async () => {
    const { client, user } = await signUp(t.app);
    const path = await startCheckout(client);
    await t.app.inject({ method: "POST", url: path, payload: { card_number: "4242424242424242" } });
    const portal = await client.post("/api/payment/portal");
    expect(portal.statusCode).toBe(200);
    expect(portal.json().url).toMatch(/^http:\/\/localhost:80\/local-portal/);
    // the home page changes no plan (as Stripe's on the managed configuration): /pricing checks seats first
    const page = await client.get("/local-portal");
    expect(page.body).toContain('<a class="btn secondary" href="/pricing">Change plan</a>');
    expect(page.body).not.toContain("Switch to");
    const chosen = await client.get("/local-portal?plan=business");
    expect(chosen.body).toContain("Confirm your new plan");

    const change = await client.inject({
      method: "POST",
      url: "/local-portal/change",
      payload: { plan: "business" },
    });
    expect(change.statusCode).toBe(200);
    expect((await workspaceOf(t, user.id)).plan).toBe("business");
    // an existing subscriber asking for another plan is sent to the portal, not to a second checkout
    const upgrade = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_enterprise",
      planName: "enterprise",
    });
    expect(upgrade.json().url).toMatch(/\/local-portal/);

    // first payment 20 days ago: no refund, ends at period end
    await t.db
      .update(workspaces)
      .set({ firstPaidAt: new Date(Date.now() - 20 * 86_400_000) })
      .where(eq(workspaces.id, user.id));
    const cancel = await client.inject({ method: "POST", url: "/local-portal/cancel" });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.body).toContain("end at the end of the current period");
    let w = await workspaceOf(t, user.id);
    expect(w).toMatchObject({ plan: "business", cancelAtPeriodEnd: true, subscriptionStatus: "active" });
    expect(
      await t.db.select().from(billingRefunds).where(eq(billingRefunds.workspaceId, user.id)),
    ).toHaveLength(0);
    // the period ends: the workspace is Free again, its data untouched
    await t.db
      .update(workspaces)
      .set({ currentPeriodEnd: new Date(Date.now() - 1000) })
      .where(eq(workspaces.id, user.id));
    expect((await client.get("/api/billing/usage")).json().plan).toBe("free");
    w = await workspaceOf(t, user.id);
    expect(w).toMatchObject({ plan: "free", subscriptionStatus: "canceled", subscriptionTier: null });
  });

  it("the local portal's 'Back to Pitchwise' link only goes back to APP_URL's origin (no open redirect)", async () => {
    const { client } = await signUp(t.app);
    const backLink = async (returnUrl: string) => {
      const page = await client.get(`/local-portal?return_url=${encodeURIComponent(returnUrl)}`);
      expect(page.statusCode).toBe(200);
      return page.body.match(/href="([^"]*)">Back to Pitchwise/)?.[1];
    };
    const own = "http://localhost:80/settings?tab=billing";
    expect(new URL((await backLink(own)) ?? "").href).toBe(new URL(own).href);
    for (const evil of [
      "http://localhost:80@evil.example/phish",
      "http://localhost:80.evil.example/phish",
      "http://localhost:8080/other-app",
      "https://evil.example/",
      "javascript:alert(1)//http://localhost:80",
    ])
      expect(await backLink(evil), evil).toBe("/settings?tab=billing");
  });

  it("money-back: canceling within 14 days of the first payment refunds it in full and ends the plan now (once)", async () => {
    const { client, user } = await signUp(t.app);
    const path = await startCheckout(client, PAID[1]);
    await t.app.inject({ method: "POST", url: path, payload: { card_number: "4242424242424242" } });
    const cancel = await client.inject({ method: "POST", url: "/local-portal/cancel" });
    expect(cancel.body).toContain("refunded in full");
    const w = await workspaceOf(t, user.id);
    expect(w).toMatchObject({ plan: "free", subscriptionStatus: "canceled" });
    const refunds = await t.db.select().from(billingRefunds).where(eq(billingRefunds.workspaceId, user.id));
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ provider: "local", amountCents: 14900 });
  });

  it("only the owner may buy or open the portal; an admin of the workspace is refused with 403", async () => {
    const owner = await signUp(t.app);
    await setPlanOwnerPaid(owner);
    const admin = await signUp(t.app);
    await t.db
      .insert(workspaceMembers)
      .values({ workspaceId: owner.user.id, userId: admin.user.id, role: "admin" });
    expect((await admin.client.post(`/api/workspaces/${owner.user.id}/switch`)).statusCode).toBe(200);
    const buy = await admin.client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(buy.statusCode).toBe(403);
    expect(buy.json().error).toBe("Only the workspace owner can manage billing.");
    expect((await admin.client.post("/api/payment/portal")).statusCode).toBe(403);
    const plans = await admin.client.get("/api/billing/plans");
    expect(plans.json()).toMatchObject({ current: "professional", can_manage_billing: false });
  });

  async function setPlanOwnerPaid(owner: Awaited<ReturnType<typeof signUp>>) {
    const path = await startCheckout(owner.client);
    await t.app.inject({ method: "POST", url: path, payload: { card_number: "4242424242424242" } });
  }

  it("the local checkout pages are absent in production unless enabled", async () => {
    const prod = await createTestApp({
      NODE_ENV: "production",
      PAYMENTS_PROVIDER: "local",
      APP_SECRET: "x".repeat(40),
    });
    try {
      const { client } = await signUp(prod.app);
      const res = await client.post("/api/payment/create-checkout-session", {
        priceId: "price_professional",
        planName: "professional",
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain("not set up");
      expect((await prod.app.inject({ method: "GET", url: "/local-checkout/cs_local_x" })).statusCode).toBe(
        404,
      );
    } finally {
      await prod.close();
    }
  });
});

describe("Stripe provider (real SDK against a fake Stripe API)", () => {
  let t: TestApp;
  let fake: StripeFake;
  const secret = "whsec_test_secret";
  beforeAll(async () => {
    fake = await startStripeFake();
    t = await createTestApp({
      PAYMENTS_PROVIDER: "stripe",
      STRIPE_SECRET_KEY: "sk_test_123",
      STRIPE_WEBHOOK_SECRET: secret,
      STRIPE_API_HOST: fake.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const stripe = () => (t.providers.payments as StripePaymentsProvider).client;
  /** Delivers an event as Stripe does: JSON body, Stripe-Signature from the SDK's own test helper. */
  async function deliver(event: unknown, opts: { secret?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify(event);
    const header = stripe().webhooks.generateTestHeaderString({
      payload,
      secret: opts.secret ?? secret,
      timestamp: opts.timestamp,
    });
    return t.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": header },
      payload,
    });
  }
  async function checkout(client: Awaited<ReturnType<typeof signUp>>["client"], plan: Paid = PAID[0]) {
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: plan.priceId,
      planName: plan.plan,
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = (res.json().url as string).split("/").pop()!;
    return id;
  }

  it.each(PAID)(
    "Checkout Session for $name: mode=subscription, its price, the workspace's customer (reused), client_reference_id, success and cancel URLs",
    async (plan) => {
      const { client, user } = await signUp(t.app);
      const before = fake.requests.filter((r) => r.path === "/v1/customers").length;
      const id = await checkout(client, plan);
      await checkout(client, plan); // a second attempt reuses the customer
      expect(fake.requests.filter((r) => r.path === "/v1/customers").length - before).toBe(1);
      const req = fake.requests.filter((r) => r.path === "/v1/checkout/sessions").at(-1)!;
      const form = new URLSearchParams(req.body);
      expect(form.get("mode")).toBe("subscription");
      expect(form.get("line_items[0][price]")).toBe(plan.priceId);
      expect(form.get("client_reference_id")).toBe(user.id);
      expect(form.get("success_url")).toBe(
        "http://localhost:80/pricing?success=true&session_id={CHECKOUT_SESSION_ID}",
      );
      expect(form.get("cancel_url")).toBe("http://localhost:80/pricing?canceled=true");
      const w = await workspaceOf(t, user.id);
      expect(form.get("customer")).toBe(w.stripeCustomerId);
      expect(fake.sessions.get(id)?.client_reference_id).toBe(user.id);
    },
  );

  it("applies checkout.session.completed, customer.subscription.created and invoice.paid; each event id once", async () => {
    const { client, user } = await signUp(t.app);
    const id = await checkout(client, PAID[1]);
    const events = fake.completeCheckout(id, 14900);
    for (const e of events) {
      const res = await deliver(e);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ received: true, duplicate: false });
    }
    const w = await workspaceOf(t, user.id);
    expect(w).toMatchObject({
      plan: "business",
      subscriptionStatus: "active",
      subscriptionTier: "premium",
      cancelAtPeriodEnd: false,
    });
    expect(w.stripeSubscriptionId).toBe(fake.sessions.get(id)!.subscription);
    // a redelivery is acknowledged and changes nothing
    const again = await deliver(events[0]);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    expect(await t.db.select().from(billingEvents).where(eq(billingEvents.id, events[0].id))).toHaveLength(1);
  });

  it("invoice.payment_failed -> past_due (banner data), invoice.paid -> active, subscription.updated price -> plan change, subscription.deleted -> Free", async () => {
    const { client, user } = await signUp(t.app);
    const id = await checkout(client);
    for (const e of fake.completeCheckout(id)) await deliver(e);
    const sub = fake.sessions.get(id)!.subscription as string;
    await deliver(fake.failPayment(sub));
    expect((await workspaceOf(t, user.id)).subscriptionStatus).toBe("past_due");
    expect((await client.get("/api/billing/usage")).json()).toMatchObject({
      past_due: true,
      plan: "professional",
    });
    await deliver(fake.payRenewal(sub));
    expect((await workspaceOf(t, user.id)).subscriptionStatus).toBe("active");
    await deliver(fake.updateSubscription(sub, { price: "price_enterprise" }));
    expect((await workspaceOf(t, user.id)).plan).toBe("enterprise");
    await deliver(fake.endSubscription(sub));
    expect(await workspaceOf(t, user.id)).toMatchObject({
      plan: "free",
      subscriptionStatus: "canceled",
      subscriptionTier: null,
    });
  });

  it("out-of-order delivery converges on Stripe's current state", async () => {
    const { client, user } = await signUp(t.app);
    const id = await checkout(client);
    const created = fake.completeCheckout(id);
    const sub = fake.sessions.get(id)!.subscription as string;
    const failed = fake.failPayment(sub);
    const paid = fake.payRenewal(sub);
    const upgraded = fake.updateSubscription(sub, { price: "price_business" });
    for (const e of [upgraded, paid, failed, ...created.reverse()])
      expect((await deliver(e)).statusCode).toBe(200);
    expect(await workspaceOf(t, user.id)).toMatchObject({ plan: "business", subscriptionStatus: "active" });
  });

  it("forged, stale and unsigned events are refused with 400 and change nothing", async () => {
    const { client, user } = await signUp(t.app);
    const id = await checkout(client);
    const [completed] = fake.completeCheckout(id);
    expect((await deliver(completed, { secret: "whsec_wrong" })).statusCode).toBe(400);
    const stale = await deliver(completed, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.statusCode).toBe(400);
    expect(stale.json().error).toContain("Invalid Stripe signature");
    const unsigned = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify(completed),
    });
    expect(unsigned.statusCode).toBe(400);
    expect((await workspaceOf(t, user.id)).plan).toBe("free");
    expect(await t.db.select().from(billingEvents).where(eq(billingEvents.id, completed.id))).toHaveLength(0);
    // the genuine delivery still works afterwards
    expect((await deliver(completed)).statusCode).toBe(200);
    expect((await workspaceOf(t, user.id)).plan).toBe("professional");
  });

  it("portal session for the workspace's customer; owner-only; refused before any subscription", async () => {
    const { client, user } = await signUp(t.app);
    const none = await client.post("/api/payment/portal");
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toContain("There is no subscription to manage yet");
    const id = await checkout(client);
    for (const e of fake.completeCheckout(id)) await deliver(e);
    const res = await client.post("/api/payment/portal");
    expect(res.statusCode).toBe(200);
    expect(res.json().url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    const req = fake.requests.filter((r) => r.path === "/v1/billing_portal/sessions").at(-1)!;
    expect(new URLSearchParams(req.body).get("customer")).toBe(
      (await workspaceOf(t, user.id)).stripeCustomerId,
    );
  });

  it("cancel at period end after 14 days keeps the plan until customer.subscription.deleted; within 14 days refunds the invoice's PaymentIntent and ends now", async () => {
    const late = await signUp(t.app);
    const id1 = await checkout(late.client);
    for (const e of fake.completeCheckout(id1)) await deliver(e);
    const sub1 = fake.sessions.get(id1)!.subscription as string;
    await t.db
      .update(workspaces)
      .set({ firstPaidAt: new Date(Date.now() - 15 * 86_400_000) })
      .where(eq(workspaces.id, late.user.id));
    const refundsBefore = fake.refunds.length;
    await deliver(fake.updateSubscription(sub1, { cancel_at_period_end: true }));
    expect(await workspaceOf(t, late.user.id)).toMatchObject({
      plan: "professional",
      cancelAtPeriodEnd: true,
    });
    expect(fake.refunds.length).toBe(refundsBefore);
    await deliver(fake.endSubscription(sub1));
    expect((await workspaceOf(t, late.user.id)).plan).toBe("free");

    const early = await signUp(t.app);
    const id2 = await checkout(early.client, PAID[2]);
    for (const e of fake.completeCheckout(id2, 49900)) await deliver(e);
    const sub2 = fake.sessions.get(id2)!.subscription as string;
    const res = await deliver(fake.updateSubscription(sub2, { cancel_at_period_end: true }));
    expect(res.statusCode).toBe(200);
    expect(fake.refunds.at(-1)).toMatchObject({ amount: 49900, status: "succeeded" });
    expect(fake.requests.some((r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${sub2}`)).toBe(
      true,
    );
    expect(await workspaceOf(t, early.user.id)).toMatchObject({
      plan: "free",
      subscriptionStatus: "canceled",
    });
    const rows = await t.db
      .select()
      .from(billingRefunds)
      .where(eq(billingRefunds.workspaceId, early.user.id));
    expect(rows).toMatchObject([{ provider: "stripe", amountCents: 49900, subscriptionId: sub2 }]);
  });

  it("a Stripe outage while starting checkout is a 502 sentence, not a 500", async () => {
    const { client } = await signUp(t.app);
    fake.failNext(
      { status: 500, json: { error: { type: "api_error", message: "boom" } } },
      { status: 500, json: { error: { type: "api_error", message: "boom" } } },
      { status: 500, json: { error: { type: "api_error", message: "boom" } } },
    );
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toBe("Starting the checkout failed at the payment provider. Please try again.");
  });
});
