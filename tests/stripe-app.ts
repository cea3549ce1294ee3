import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { workspaces } from "../src/server/db/schema";
import { signPayload } from "../src/server/providers/payments/local";
import type { StripePaymentsProvider } from "../src/server/providers/payments/stripe";
import { type StripeFake, startStripeFake } from "./fakes/stripe";
import { createTestApp, signUp, type TestApp } from "./helpers";

/**
 * A test app on the Stripe payments provider (the real SDK) against its own fake Stripe API, for the
 * enclosing describe block: both started in a beforeAll and closed in an afterAll registered here, so
 * they are ready in the block's own hooks and tests as `app.t` and `app.fake`. `webhookSecret` and
 * `secretKey` are STRIPE_WEBHOOK_SECRET and STRIPE_SECRET_KEY. `sendSigned(event)` POSTs the event
 * to /api/webhooks/stripe as Stripe delivers it (JSON, Stripe-Signature from the SDK's own
 * generateTestHeaderString) and returns the response; `deliver(event)` does the same and expects a
 * 200 (failing the test with the response body otherwise).
 */
export function stripeTestApp(webhookSecret: string, secretKey: string) {
  const app = {} as { t: TestApp; fake: StripeFake };
  beforeAll(async () => {
    app.fake = await startStripeFake();
    app.t = await createTestApp({
      PAYMENTS_PROVIDER: "stripe",
      STRIPE_SECRET_KEY: secretKey,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_API_HOST: app.fake.url,
    });
  });
  afterAll(async () => {
    await app.t?.close();
    await app.fake?.close();
  });
  const provider = () => app.t.providers.payments as StripePaymentsProvider;
  const sendSigned = (event: unknown) => {
    const payload = JSON.stringify(event);
    const header = provider().client.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    return app.t.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": header },
      payload,
    });
  };
  const deliver = async (event: unknown) => {
    const res = await sendSigned(event);
    expect(res.statusCode, res.body).toBe(200);
  };
  return { app, provider, sendSigned, deliver };
}

/**
 * POSTs `payload` (an event's JSON text) to /api/webhooks/stripe as the local payments provider
 * delivers it: content-type application/json and a Stripe-Signature header made by the provider's
 * signPayload with `secret` (by default the app's LOCAL_PAYMENTS_WEBHOOK_SECRET, the one the route
 * checks). Returns the response.
 */
export function sendLocalSigned(t: TestApp, payload: string, secret = t.env.LOCAL_PAYMENTS_WEBHOOK_SECRET) {
  return t.app.inject({
    method: "POST",
    url: "/api/webhooks/stripe",
    headers: { "content-type": "application/json", "stripe-signature": signPayload(payload, secret) },
    payload,
  });
}

/**
 * A new account whose workspace subscribes to `plan` through the local test checkout, as a person
 * pays it (POST /api/payment/create-checkout-session, then the checkout page with the success card
 * 4242 4242 4242 4242). Expects the workspace to end on `plan`, active. Returns the signUp result with
 * the workspace row.
 */
export async function subscribeLocally(t: TestApp, plan: "professional" | "business") {
  const u = await signUp(t.app);
  const start = await u.client.post("/api/payment/create-checkout-session", {
    priceId: `price_${plan}`,
    planName: plan,
  });
  expect(start.statusCode, start.body).toBe(200);
  const paid = await t.app.inject({
    method: "POST",
    url: new URL(start.json().url as string).pathname,
    payload: { card_number: "4242424242424242" },
  });
  expect(paid.statusCode).toBe(303);
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, u.user.id));
  expect(w).toMatchObject({ plan, subscriptionStatus: "active" });
  return { ...u, workspace: w! };
}
