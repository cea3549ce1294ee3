import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { createTestApp, joinWorkspace, signUp, type TestApp } from "../helpers";

/**
 * QA finding: an owner who cancelled in the local billing portal (after the 14 days, so the plan runs
 * to its period end) had no way to take the cancel back. The portal then offered only switches to
 * the other plans, /pricing showed the plan as a disabled 'Current Plan', and Settings > Billing said
 * "Ends on ...; then the Free plan applies." Stripe's portal offers "Renew plan" for a subscription set
 * to cancel; the local portal now does too.
 */
describe("local billing portal: taking back a cancel at period end", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("a subscription set to cancel can be kept, and the workspace renews again on its plan", async () => {
    const { client, user } = await signUp(t.app);
    const checkout = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    const path = new URL(checkout.json().url as string).pathname;
    await t.app.inject({ method: "POST", url: path, payload: { card_number: "4242424242424242" } });
    // first payment 20 days ago: the cancel is not refunded, the plan runs to its period end
    await t.db
      .update(workspaces)
      .set({ firstPaidAt: new Date(Date.now() - 20 * 86_400_000) })
      .where(eq(workspaces.id, user.id));
    // Cancel subscription asks first, saying the plan runs to the period's end (no refund now)
    const portal = await client.get("/local-portal");
    expect(portal.body).toContain('href="/local-portal/cancel?return_url=');
    const ask = await client.get("/local-portal/cancel");
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain("Cancel your Professional subscription?");
    expect(ask.body).toContain("You keep Professional until");
    expect(ask.body).toContain('action="/local-portal/cancel?return_url=');
    expect(ask.body).toContain("Keep my Professional plan");
    expect((await client.get("/api/billing/usage")).json()).toMatchObject({ cancel_at_period_end: false });
    const cancel = await client.inject({ method: "POST", url: "/local-portal/cancel" });
    expect(cancel.body).toContain("end at the end of the current period");
    expect((await client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "professional",
      cancel_at_period_end: true,
    });

    // the portal offers to keep the subscription
    const page = await client.get("/local-portal");
    expect(page.body).toContain('action="/local-portal/renew?return_url=');
    expect(page.body).toContain("Keep my Professional plan");

    const renew = await client.inject({ method: "POST", url: "/local-portal/renew" });
    expect(renew.statusCode, renew.body).toBe(200);
    expect(renew.body).toContain("Your Professional plan will renew");
    expect(renew.body).toContain("Renews on");
    expect(renew.body).toContain('href="/local-portal/cancel?return_url=');
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, user.id));
    expect(w).toMatchObject({ plan: "professional", cancelAtPeriodEnd: false, subscriptionStatus: "active" });
    expect((await client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "professional",
      cancel_at_period_end: false,
    });

    // nothing to take back any more: a second renew is a 400 with a sentence
    const again = await client.inject({ method: "POST", url: "/local-portal/renew" });
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain("is not set to cancel");
  });

  it("within the 14 days the cancel's question says it refunds now; an admin is shown a page, not a JSON error", async () => {
    const { client } = await signUp(t.app);
    const checkout = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    const path = new URL(checkout.json().url as string).pathname;
    await t.app.inject({ method: "POST", url: path, payload: { card_number: "4242424242424242" } });
    const ask = await client.get("/local-portal/cancel");
    expect(ask.body).toContain("Cancel your Business subscription?");
    expect(ask.body).toContain("your payment is refunded in full and the workspace moves to the Free plan");

    const admin = await joinWorkspace(t, client, "admin");
    for (const url of ["/local-portal", "/local-portal/cancel"]) {
      const refused = await admin.client.get(url);
      expect(refused.statusCode, url).toBe(403);
      expect(refused.headers["content-type"], url).toContain("text/html");
      expect(refused.body).toContain("Only the workspace owner can manage billing.");
      expect(refused.body).toContain('href="/settings?tab=billing"');
    }
    const posted = await admin.client.inject({ method: "POST", url: "/local-portal/cancel" });
    expect(posted.statusCode).toBe(403);
    expect(posted.headers["content-type"]).toContain("text/html");
  });
});
