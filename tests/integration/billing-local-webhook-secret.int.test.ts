import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/env";
import { createTestApp, type TestApp } from "../helpers";
import { sendLocalSigned } from "../stripe-app";

// The local payments provider signs its checkout's events the way Stripe does, and
// POST /api/webhooks/stripe believes any event that carries a valid signature. Its secret defaulted to
// the literal "whsec_local_pitchwise", printed in the source: on a deploy that keeps the local provider
// (a demo, LOCAL_CHECKOUT_ENABLED) anyone could sign "your subscription is active" for their workspace.
// Unset, the secret is now derived from APP_SECRET (which production requires to be the deploy's own).

const PUBLIC_DEFAULT = "whsec_local_pitchwise";
const APP_SECRET = crypto.randomBytes(24).toString("hex");

function event() {
  return JSON.stringify({
    id: `evt_local_${crypto.randomBytes(12).toString("base64url")}`,
    object: "event",
    type: "customer.subscription.updated",
    created: Math.floor(Date.now() / 1000),
    data: { object: { object: "subscription", id: "sub_local_forged", customer: "cus_local_forged" } },
  });
}

describe("the local payments provider's webhook secret", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ APP_SECRET });
  });
  afterAll(() => t?.close());

  it("is not the public default when unset: an event signed with that literal is refused", async () => {
    expect(t.env.LOCAL_PAYMENTS_WEBHOOK_SECRET).not.toBe(PUBLIC_DEFAULT);
    const payload = event();
    const forged = await sendLocalSigned(t, payload, PUBLIC_DEFAULT);
    expect(forged.statusCode).toBe(400);
    expect(forged.body).toContain("No signature matches the payload");
    // the same event signed with the deploy's secret passes the signature check (and is then handled)
    const signed = await sendLocalSigned(t, payload);
    expect(signed.body).not.toContain("signature");
  });

  it("differs between deploys with different APP_SECRETs, and an explicit secret wins", () => {
    const a = loadEnv({ LOG_LEVEL: "silent", APP_SECRET: "a".repeat(40) }).LOCAL_PAYMENTS_WEBHOOK_SECRET;
    const b = loadEnv({ LOG_LEVEL: "silent", APP_SECRET: "b".repeat(40) }).LOCAL_PAYMENTS_WEBHOOK_SECRET;
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(
      loadEnv({
        LOG_LEVEL: "silent",
        APP_SECRET: "a".repeat(40),
        LOCAL_PAYMENTS_WEBHOOK_SECRET: "whsec_mine",
      }).LOCAL_PAYMENTS_WEBHOOK_SECRET,
    ).toBe("whsec_mine");
  });
});
