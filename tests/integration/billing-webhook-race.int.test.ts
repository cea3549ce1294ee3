import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localSubscriptions, workspaces } from "../../src/server/db/schema";
import type { SubscriptionState } from "../../src/server/providers/payments";
import type { StripeFake } from "../fakes/stripe";
import { createTestApp, deferred, signUp, type TestApp } from "../helpers";
import { stripeTestApp, subscribeLocally } from "../stripe-app";

/**
 * Stripe delivers events concurrently and retries them late: two deliveries for one workspace can be
 * in flight at once. Each re-reads the subscription; the one that read it first must not write its
 * (older) state over the newer one written by the other.
 */
describe("Stripe webhooks of one workspace delivered concurrently", () => {
  let t: TestApp;
  let fake: StripeFake;
  const stripe = stripeTestApp("whsec_race_secret", "sk_test_race");
  beforeAll(() => {
    ({ t, fake } = stripe.app);
  });

  const provider = stripe.provider;
  const deliver = stripe.sendSigned;
  async function workspaceOf(id: string) {
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
    return w!;
  }

  it("an event that re-read the subscription before it was deleted never writes the live plan back after the deletion was applied", async () => {
    const { client, user } = await signUp(t.app);
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(res.statusCode, res.body).toBe(200);
    const sessionId = (res.json().url as string).split("/").pop()!;
    for (const e of fake.completeCheckout(sessionId, 14900)) expect((await deliver(e)).statusCode).toBe(200);
    const sub = fake.sessions.get(sessionId)!.subscription as string;
    expect(await workspaceOf(user.id)).toMatchObject({ plan: "business", subscriptionStatus: "active" });

    // the renewal's delivery re-reads the subscription (still active) and is then slow to go on
    const real = provider().retrieveSubscription.bind(provider());
    const held = deferred();
    const renewalRead = deferred();
    let calls = 0;
    provider().retrieveSubscription = async (id: string): Promise<SubscriptionState | null> => {
      const state = await real(id);
      if (++calls === 1) {
        renewalRead.resolve();
        await held.promise;
      }
      return state;
    };
    try {
      const renewal = deliver(fake.payRenewal(sub));
      await renewalRead.promise;
      // meanwhile the subscription ends and its customer.subscription.deleted is delivered
      const deleted = deliver(fake.endSubscription(sub));
      // give the deletion every chance to be applied first (it is, on the unfixed code)
      const first = await Promise.race([
        deleted.then(() => "deleted"),
        new Promise((r) => setTimeout(() => r("waiting"), 1500)),
      ]);
      held.resolve();
      const [r1, r2] = await Promise.all([renewal, deleted]);
      expect(r1.statusCode, r1.body).toBe(200);
      expect(r2.statusCode, r2.body).toBe(200);
      // the deletion either waited for the renewal, or was applied first and then not undone
      expect(["deleted", "waiting"]).toContain(first);
    } finally {
      provider().retrieveSubscription = real;
    }
    // Stripe's current state: the subscription is canceled, so the workspace is on Free
    expect(fake.subscriptions.get(sub)!.status).toBe("canceled");
    expect(await workspaceOf(user.id)).toMatchObject({
      plan: "free",
      subscriptionStatus: "canceled",
      subscriptionTier: null,
    });
    const usage = await client.get("/api/billing/usage");
    expect(usage.json()).toMatchObject({ plan: "free" });
  });
});

/**
 * The local provider's events re-read its subscriptions from Postgres through the same pool: many
 * events of one workspace at once must neither wait for each other while holding pool connections
 * (a pool deadlock) nor leave the workspace on an older plan than its subscription's.
 */
describe("local portal plan changes of one workspace made concurrently", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: "error" });
  });
  afterAll(() => t.close());

  it("all complete, and the workspace ends on its subscription's plan", { timeout: 30_000 }, async () => {
    const { client, user } = await signUp(t.app);
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(res.statusCode, res.body).toBe(200);
    const paid = await t.app.inject({
      method: "POST",
      url: new URL(res.json().url as string).pathname,
      payload: { card_number: "4242424242424242" },
    });
    expect(paid.statusCode, paid.body).toBe(303);
    const plans = ["business", "enterprise", "professional", "business", "enterprise", "business"];
    const changes = [...plans, ...plans].map((plan) =>
      client.inject({ method: "POST", url: "/local-portal/change", payload: { plan } }),
    );
    const settled = await Promise.race([
      Promise.all(changes),
      new Promise<null>((r) => setTimeout(() => r(null), 20_000)),
    ]);
    expect(settled, "the concurrent plan changes did not complete within 20 s").not.toBeNull();
    for (const r of settled!) expect(r.statusCode, r.body).toBe(200);
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
    const [sub] = await t.db
      .select()
      .from(localSubscriptions)
      .where(eq(localSubscriptions.id, w!.stripeSubscriptionId!));
    expect(w!.plan).toBe(sub!.plan);
  });

  it("a plan change whose event conflicts on every one of its attempts is delivered again, as Stripe redelivers a 409", {
    timeout: 30_000,
  }, async () => {
    const { client, user } = await subscribeLocally(t, "professional");
    // another write to the workspace row lands between each of the first delivery's reads of the
    // subscription and its write (all 8 of its attempts: billing.service APPLY_ATTEMPTS), as when
    // many events of the workspace arrive together; later reads go through undisturbed
    const payments = t.providers.payments;
    const retrieve = payments.retrieveSubscription.bind(payments);
    let disturbed = 0;
    payments.retrieveSubscription = async (id: string) => {
      const state = await retrieve(id);
      // (the portal's own reads of the subscription are left alone: only the webhook code's)
      if (disturbed < 8 && new Error().stack?.includes("applyPaymentEvent")) {
        disturbed++;
        await t.db
          .update(workspaces)
          .set({ name: `Race ${disturbed}` })
          .where(eq(workspaces.id, user.id));
      }
      return state;
    };
    try {
      const changed = await client.inject({
        method: "POST",
        url: "/local-portal/change",
        payload: { plan: "business" },
      });
      expect(disturbed).toBe(8);
      // the person sees the portal with the new plan, not "Please deliver it again"
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.body).not.toContain("deliver it again");
      const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
      expect(w).toMatchObject({ plan: "business", subscriptionStatus: "active" });
      const [sub] = await t.db
        .select()
        .from(localSubscriptions)
        .where(eq(localSubscriptions.id, w!.stripeSubscriptionId!));
      expect(sub!.plan).toBe("business");
    } finally {
      payments.retrieveSubscription = retrieve;
    }
  });
});
