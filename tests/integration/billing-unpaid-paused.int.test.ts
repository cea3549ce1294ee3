import crypto from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  campaigns,
  contacts,
  localCheckoutSessions,
  localSubscriptions,
  outboxMessages,
  workspaces,
} from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import type { StripeFake } from "../fakes/stripe";
import { type AuthedClient, createTestApp, daytimeZone, signUp, type TestApp } from "../helpers";
import { sendLocalSigned, stripeTestApp, subscribeLocally } from "../stripe-app";

// Stripe's subscription statuses (https://docs.stripe.com/api/subscriptions/object#subscription_object-status):
// past_due keeps access while Stripe retries the payment; `unpaid` (retries exhausted, invoices left
// open) and `paused` (a trial ended without a payment method) grant nothing. The workspace is then
// treated as Free, keeps its subscription, shows the real status, and gets its plan back once a live
// status returns. Every change arrives as a signed webhook event, as the provider sends it.

async function workspaceOf(t: TestApp, id: string) {
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
  return w!;
}

/** An SMS launch (a Professional feature): 402 on Free before any contact is created. */
function launchSms(client: AuthedClient) {
  return client.post("/api/campaigns/sms/launch", {
    campaignName: "Held plan",
    message: "Hello",
    contacts: [{ name: "A", phone: "+12025550123" }],
    includeNotOptedIn: true,
  });
}

describe("local provider: an unpaid or paused subscription grants nothing until it is live again", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Posts a signed customer.subscription.updated event for the local subscription `subId`. */
  async function subscriptionUpdated(subId: string, customerId: string, workspaceId: string) {
    const payload = JSON.stringify({
      id: `evt_local_${crypto.randomBytes(12).toString("base64url")}`,
      object: "event",
      type: "customer.subscription.updated",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          object: "subscription",
          id: subId,
          customer: customerId,
          metadata: { workspace_id: workspaceId },
        },
      },
    });
    const res = await sendLocalSigned(t, payload);
    expect(res.statusCode, res.body).toBe(200);
  }

  async function subscribeProfessional() {
    const { workspace: w, ...u } = await subscribeLocally(t, "professional");
    return { ...u, subId: w.stripeSubscriptionId!, customerId: w.stripeCustomerId! };
  }

  it.each(["unpaid", "paused"] as const)(
    "%s: the workspace is treated as Free (no SMS or voice, 402 on an SMS launch), shows the status, keeps its subscription; active again restores Professional",
    async (status) => {
      const u = await subscribeProfessional();
      expect((await u.client.get("/api/billing/usage")).json().features.smsVoiceCampaigns).toBe(true);

      await t.db.update(localSubscriptions).set({ status }).where(eq(localSubscriptions.id, u.subId));
      await subscriptionUpdated(u.subId, u.customerId, u.user.id);

      const usage = (await u.client.get("/api/billing/usage")).json();
      expect(usage).toMatchObject({
        plan: "free",
        plan_name: "Free",
        status,
        past_due: false,
        held_plan: "professional",
        held_plan_name: "Professional",
      });
      expect(usage.features.smsVoiceCampaigns).toBe(false);
      expect(usage.usage.sms_messages.limit).toBe(0);
      expect(usage.usage.voice_calls.limit).toBe(0);
      const refused = await launchSms(u.client);
      expect(refused.statusCode, refused.body).toBe(402);
      expect(refused.json().error).toMatch(/not included in your Free plan/);
      // the pricing data: Free is the current plan
      expect((await u.client.get("/api/billing/plans")).json()).toMatchObject({ current: "free", status });
      // the subscription and customer stay, so a payment brings the plan back
      let w = await workspaceOf(t, u.user.id);
      expect(w).toMatchObject({
        stripeSubscriptionId: u.subId,
        stripeCustomerId: u.customerId,
        subscriptionStatus: status,
      });
      // the owner can still reach the portal to update the card
      expect((await u.client.post("/api/payment/portal")).statusCode).toBe(200);

      // the open invoice is paid / a payment method is added: active again
      await t.db
        .update(localSubscriptions)
        .set({ status: "active" })
        .where(eq(localSubscriptions.id, u.subId));
      await subscriptionUpdated(u.subId, u.customerId, u.user.id);
      w = await workspaceOf(t, u.user.id);
      expect(w).toMatchObject({
        plan: "professional",
        subscriptionStatus: "active",
        stripeSubscriptionId: u.subId,
      });
      const back = (await u.client.get("/api/billing/usage")).json();
      expect(back).toMatchObject({ plan: "professional", status: "active", held_plan: null });
      expect(back.features.smsVoiceCampaigns).toBe(true);
    },
  );

  it.each(["unpaid", "paused"] as const)(
    "%s: choosing a plan on /pricing opens the billing portal (no second checkout, no second subscription); paying there restores the held plan",
    async (status) => {
      const u = await subscribeProfessional();
      await t.db.update(localSubscriptions).set({ status }).where(eq(localSubscriptions.id, u.subId));
      await subscriptionUpdated(u.subId, u.customerId, u.user.id);
      // the pricing data names the held plan, so the screen can say where a plan choice leads
      expect((await u.client.get("/api/billing/plans")).json()).toMatchObject({
        current: "free",
        status,
        held_plan: "professional",
        held_plan_name: "Professional",
      });
      for (const plan of ["business", "professional"] as const) {
        const res = await u.client.post("/api/payment/create-checkout-session", {
          priceId: `price_${plan}`,
          planName: plan,
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toMatchObject({ success: true, portal: true });
        expect(new URL(res.json().url as string).pathname).toBe("/local-portal");
      }
      // the one checkout is the original one: no new session, no new subscription
      const sessions = await t.db
        .select()
        .from(localCheckoutSessions)
        .where(eq(localCheckoutSessions.workspaceId, u.user.id));
      expect(sessions).toHaveLength(1);

      // the portal shows the held plan and takes the payment; a plan change waits for it
      const page = await u.client.get("/local-portal");
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain("Professional");
      expect(page.body).toContain('action="/local-portal/pay?return_url=');
      const change = await u.client.inject({
        method: "POST",
        url: "/local-portal/change",
        payload: { plan: "business" },
      });
      expect(change.statusCode).toBe(400);
      expect(change.body).toContain("Pay to resume it first");
      const declined = await u.client.inject({
        method: "POST",
        url: "/local-portal/pay",
        payload: { card_number: "4000 0000 0000 0002" },
      });
      expect(declined.statusCode).toBe(402);
      expect(declined.body).toContain("Your card was declined.");
      expect(await workspaceOf(t, u.user.id)).toMatchObject({ subscriptionStatus: status });
      const pay = await u.client.inject({
        method: "POST",
        url: "/local-portal/pay",
        payload: { card_number: "4242 4242 4242 4242" },
      });
      expect(pay.statusCode, pay.body).toBe(200);
      expect(pay.body).toContain("Your Professional plan is active again.");
      expect(await workspaceOf(t, u.user.id)).toMatchObject({
        plan: "professional",
        subscriptionStatus: "active",
        stripeSubscriptionId: u.subId,
      });
      expect(
        await t.db.select().from(localSubscriptions).where(eq(localSubscriptions.workspaceId, u.user.id)),
      ).toHaveLength(1);
      expect((await u.client.get("/api/billing/usage")).json()).toMatchObject({
        plan: "professional",
        held_plan: null,
      });
    },
  );

  it("a scheduled SMS campaign launched on Professional does not send once the subscription is unpaid: it pauses with the Free plan's sentence", async () => {
    const u = await subscribeProfessional();
    const phone = `+1202555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
    const ids = await findOrCreateContacts(t.ctx, u.user.id, [{ name: "P", phone }]);
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
      name: "Later texts",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
      scheduledAt: new Date(Date.now() + 3_600_000),
    });
    expect(launched.campaign.status).toBe("scheduled");

    await t.db.update(localSubscriptions).set({ status: "unpaid" }).where(eq(localSubscriptions.id, u.subId));
    await subscriptionUpdated(u.subId, u.customerId, u.user.id);
    // the schedule comes due
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, launched.campaign.id));
    await t.jobs.runDeferred();
    const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, launched.campaign.id));
    expect(c).toMatchObject({ status: "paused" });
    expect(c!.error).toMatch(/Free plan/);
    expect(await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, phone))).toHaveLength(0);
  });

  it("past_due keeps the plan while the payment is retried (unchanged)", async () => {
    const u = await subscribeProfessional();
    await t.db
      .update(localSubscriptions)
      .set({ status: "past_due" })
      .where(eq(localSubscriptions.id, u.subId));
    await subscriptionUpdated(u.subId, u.customerId, u.user.id);
    const usage = (await u.client.get("/api/billing/usage")).json();
    expect(usage).toMatchObject({
      plan: "professional",
      status: "past_due",
      past_due: true,
      held_plan: null,
    });
    expect(usage.features.smsVoiceCampaigns).toBe(true);
  });
});

describe("Stripe provider (fake Stripe API): unpaid and paused subscriptions", () => {
  let t: TestApp;
  let fake: StripeFake;
  const stripe = stripeTestApp("whsec_test_secret", "sk_test_123");
  beforeAll(() => {
    ({ t, fake } = stripe.app);
  });

  const { deliver } = stripe;
  async function subscribed() {
    const u = await signUp(t.app);
    const res = await u.client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = (res.json().url as string).split("/").pop()!;
    for (const e of fake.completeCheckout(id, 14900)) await deliver(e);
    expect((await workspaceOf(t, u.user.id)).plan).toBe("business");
    return { ...u, sub: fake.sessions.get(id)!.subscription as string };
  }

  it("retries exhausted: past_due keeps Business, customer.subscription.updated with status unpaid ends it, invoice.paid restores it", async () => {
    const u = await subscribed();
    await deliver(fake.failPayment(u.sub));
    expect((await u.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "business",
      past_due: true,
    });
    await deliver(fake.updateSubscription(u.sub, { status: "unpaid" }));
    const usage = (await u.client.get("/api/billing/usage")).json();
    expect(usage).toMatchObject({ plan: "free", status: "unpaid", past_due: false, held_plan: "business" });
    expect(usage.features.smsVoiceCampaigns).toBe(false);
    expect((await launchSms(u.client)).statusCode).toBe(402);
    expect(await workspaceOf(t, u.user.id)).toMatchObject({
      stripeSubscriptionId: u.sub,
      subscriptionStatus: "unpaid",
    });
    await deliver(fake.payRenewal(u.sub));
    expect((await u.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "business",
      status: "active",
      held_plan: null,
    });
  });

  it.each(["unpaid", "paused"] as const)(
    "%s: choosing a plan gets a Customer Portal session for the held subscription's customer, never a new Checkout Session",
    async (status) => {
      const u = await subscribed();
      await deliver(fake.updateSubscription(u.sub, { status }));
      const customer = (await workspaceOf(t, u.user.id)).stripeCustomerId;
      const checkoutsBefore = fake.requests.filter((r) => r.path === "/v1/checkout/sessions").length;
      const res = await u.client.post("/api/payment/create-checkout-session", {
        priceId: "price_enterprise",
        planName: "enterprise",
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ success: true, portal: true });
      expect(res.json().url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
      expect(fake.requests.filter((r) => r.path === "/v1/checkout/sessions")).toHaveLength(checkoutsBefore);
      const portal = fake.requests.filter((r) => r.path === "/v1/billing_portal/sessions").at(-1)!;
      expect(new URLSearchParams(portal.body).get("customer")).toBe(customer);
    },
  );

  it("a trial that ended without a payment method (paused) grants nothing; resumed restores the plan", async () => {
    const u = await subscribed();
    const paused = fake.updateSubscription(u.sub, { status: "paused" });
    await deliver({ ...paused, type: "customer.subscription.paused" });
    expect((await u.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "free",
      status: "paused",
      held_plan: "business",
    });
    const resumed = fake.updateSubscription(u.sub, { status: "active" });
    await deliver({ ...resumed, type: "customer.subscription.resumed" });
    expect((await u.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "business",
      status: "active",
    });
  });
});
