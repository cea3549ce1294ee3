import { afterAll, beforeAll } from "vitest";
import type { StripePaymentsProvider } from "../src/server/providers/payments/stripe";
import { type StripeFake, startStripeFake } from "./fakes/stripe";
import { createTestApp, type TestApp } from "./helpers";

/**
 * A test app on the Stripe payments provider (the real SDK) against its own fake Stripe API, for the
 * enclosing describe block: both started in a beforeAll and closed in an afterAll registered here, so
 * they are ready in the block's own hooks and tests as `app.t` and `app.fake`. `webhookSecret` and
 * `secretKey` are STRIPE_WEBHOOK_SECRET and STRIPE_SECRET_KEY. `sendSigned(event)` POSTs the event
 * to /api/webhooks/stripe as Stripe delivers it (JSON, Stripe-Signature from the SDK's own
 * generateTestHeaderString) and returns the response.
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
  return { app, provider, sendSigned };
}
