import { afterAll, beforeAll, expect } from "vitest";
import { signPayload } from "../src/server/providers/payments/local";
import type { StripePaymentsProvider } from "../src/server/providers/payments/stripe";
import { type StripeFake, startStripeFake } from "./fakes/stripe";
import { createTestApp, type TestApp } from "./helpers";

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
