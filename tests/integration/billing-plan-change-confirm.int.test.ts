import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { ProviderError } from "../../src/server/providers/errors";
import { StripePaymentsProvider } from "../../src/server/providers/payments/stripe";
import { createTestApp, joinWorkspace, signUp, type TestApp } from "../helpers";
import { stripeTestApp, subscribeLocally } from "../stripe-app";

/**
 * A subscriber who picks another plan on /pricing is sent to the billing portal. It used to open on
 * the portal's home page, where the plan had to be found and picked again, and where any plan could
 * be picked: one with fewer seats than the workspace holds too, although the plan chosen here had
 * passed the seat check. It now opens on the confirmation of the plan chosen (Stripe's
 * subscription_update_confirm deep link; the local portal's `?plan=`), which returns to /pricing.
 * "Manage billing" still opens the home page, on a portal configuration Pitchwise keeps in the account
 * with plan changes off (else any plan could be picked there, past the seat check), or on
 * STRIPE_PORTAL_CONFIGURATION; STRIPE_PORTAL_PLAN_CHANGE_CONFIGURATION lets the confirmation use a
 * configuration of its own (the account's default otherwise).
 */

async function workspaceOf(t: TestApp, id: string) {
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
  return w!;
}

describe("Stripe: a plan chosen on /pricing opens the portal on its confirmation (real SDK, fake Stripe API)", () => {
  const secret = "whsec_plan_change_confirm";
  const { app: s, deliver } = stripeTestApp(secret, "sk_test_plan_change");

  /** A Professional subscriber: the owner's client, workspace id and Stripe subscription id. */
  async function professionalSubscriber() {
    const { client, user } = await signUp(s.t.app);
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(res.statusCode, res.body).toBe(200);
    const session = (res.json().url as string).split("/").pop()!;
    for (const e of s.fake.completeCheckout(session)) await deliver(e);
    const subscriptionId = s.fake.sessions.get(session)!.subscription as string;
    return { client, user, subscriptionId };
  }
  const lastPortalRequest = () =>
    new URLSearchParams(s.fake.requests.filter((r) => r.path === "/v1/billing_portal/sessions").at(-1)!.body);

  it("Business chosen: a subscription_update_confirm session for the subscription's item and Business's price, back to /pricing; confirming it changes the plan", async () => {
    const { client, user, subscriptionId } = await professionalSubscriber();
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ portal: true });
    expect(res.json().url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\/bps_\w+\/flow$/);
    const form = lastPortalRequest();
    const itemId = s.fake.subscriptions.get(subscriptionId)!.items.data[0].id as string;
    expect(Object.fromEntries(form)).toEqual({
      customer: (await workspaceOf(s.t, user.id)).stripeCustomerId,
      return_url: "http://localhost:80/pricing",
      "flow_data[type]": "subscription_update_confirm",
      "flow_data[subscription_update_confirm][subscription]": subscriptionId,
      "flow_data[subscription_update_confirm][items][0][id]": itemId,
      "flow_data[subscription_update_confirm][items][0][price]": "price_business",
      "flow_data[subscription_update_confirm][items][0][quantity]": "1",
      "flow_data[after_completion][type]": "redirect",
      "flow_data[after_completion][redirect][return_url]": "http://localhost:80/pricing",
    });
    // the customer confirms in the portal: Stripe moves the item to the price and says so by webhook
    expect((await workspaceOf(s.t, user.id)).plan).toBe("professional");
    await deliver(s.fake.updateSubscription(subscriptionId, { price: "price_business" }));
    expect((await workspaceOf(s.t, user.id)).plan).toBe("business");
  });

  it("Manage billing, paying nothing new, and taking back a cancel open the portal's home page (no flow) on a configuration that cannot change plans", async () => {
    const { client, user, subscriptionId } = await professionalSubscriber();
    expect((await client.post("/api/payment/portal")).statusCode).toBe(200);
    const home = lastPortalRequest();
    expect(home.get("flow_data[type]")).toBeNull();
    // not the account's default (which allows plan changes, for the confirmation): the one Pitchwise
    // keeps, made once through the API and found by its metadata
    const managed = home.get("configuration")!;
    expect(managed).not.toBe(s.fake.defaultPortalConfiguration);
    expect(s.fake.portalConfigurations.get(managed)).toMatchObject({
      active: true,
      is_default: false,
      metadata: { pitchwise_portal: "manage" },
      features: {
        subscription_update: { enabled: false },
        subscription_cancel: { enabled: true, mode: "at_period_end" },
        invoice_history: { enabled: true },
        payment_method_update: { enabled: true },
      },
    });
    await deliver(s.fake.updateSubscription(subscriptionId, { cancel_at_period_end: true }));
    const renew = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(renew.statusCode, renew.body).toBe(200);
    expect(lastPortalRequest().get("flow_data[type]")).toBeNull();
    expect(lastPortalRequest().get("configuration")).toBe(managed);
    const creates = s.fake.requests.filter(
      (r) => r.method === "POST" && r.path === "/v1/billing_portal/configurations",
    );
    expect(creates).toHaveLength(1);
    // that configuration cannot confirm a plan change: Stripe refuses the deep link on it, so the
    // only way to another plan is /pricing, through the seat check
    const customerId = (await workspaceOf(s.t, user.id)).stripeCustomerId!;
    await expect(
      new StripePaymentsProvider({
        secretKey: "sk_test_plan_change",
        webhookSecret: secret,
        apiHost: s.fake.url,
        planChangeConfiguration: managed,
      }).createPortalSession({
        customerId,
        returnUrl: "http://x/pricing",
        planChange: { subscriptionId, plan: "business", priceId: "price_business" },
      }),
    ).rejects.toThrow(/subscription updates disabled/);
  });

  it("the provider: the managed configuration is found again by a new process, STRIPE_PORTAL_CONFIGURATION replaces it, and a failed lookup is asked again", async () => {
    const { user } = await signUp(s.t.app);
    const ws = await workspaceOf(s.t, user.id);
    const customerId = await s.t.providers.payments.createCustomer({
      workspaceId: ws.id,
      email: "owner@example.com",
      name: "Owner",
    });
    const configRequests = () =>
      s.fake.requests.filter((r) => r.path === "/v1/billing_portal/configurations");
    const provider = (opts: { secretKey?: string; manageConfiguration?: string } = {}) =>
      new StripePaymentsProvider({
        secretKey: opts.secretKey ?? "sk_test_plan_change",
        webhookSecret: secret,
        apiHost: s.fake.url,
        manageConfiguration: opts.manageConfiguration,
      });
    // a first process makes it (or finds the one an earlier test's process made)
    const first = await provider().manageConfiguration();
    // a second process lists and finds it among other configurations, creating none
    for (let i = 0; i < 3; i++) s.fake.addPortalConfiguration({ metadata: { other: String(i) } });
    const before = configRequests().length;
    const p2 = provider();
    expect(await p2.manageConfiguration()).toBe(first);
    expect(await p2.manageConfiguration()).toBe(first);
    const asked = configRequests().slice(before);
    expect(asked.map((r) => r.method)).toEqual(["GET"]);
    // an operator's own configuration is used as given, nothing listed or made
    const own = s.fake.addPortalConfiguration({ subscriptionUpdate: false });
    const p3 = provider({ manageConfiguration: own });
    const n = configRequests().length;
    await p3.createPortalSession({ customerId, returnUrl: "http://x/settings" });
    expect(lastPortalRequest().get("configuration")).toBe(own);
    expect(configRequests().length).toBe(n);
    // deactivated in the Dashboard: the session refused on it is a ProviderError, the next one makes
    // another (the same day's idempotent replay hands back the deactivated one, which is not used)
    s.fake.portalConfigurations.get(first)!.active = false;
    await expect(
      p2.createPortalSession({ customerId, returnUrl: "http://x/settings" }),
    ).rejects.toBeInstanceOf(ProviderError);
    await p2.createPortalSession({ customerId, returnUrl: "http://x/settings" });
    const replacement = lastPortalRequest().get("configuration")!;
    expect(replacement).not.toBe(first);
    expect(s.fake.portalConfigurations.get(replacement)).toMatchObject({
      active: true,
      metadata: { pitchwise_portal: "manage" },
      features: { subscription_update: { enabled: false } },
    });
    // a refused lookup (a wrong key: 401) is a ProviderError, and the next call asks Stripe again
    const bad = provider({ secretKey: "wrong_key" });
    const fails = configRequests().length;
    await expect(
      bad.createPortalSession({ customerId, returnUrl: "http://x/settings" }),
    ).rejects.toBeInstanceOf(ProviderError);
    await expect(bad.manageConfiguration()).rejects.toBeInstanceOf(ProviderError);
    expect(configRequests().length).toBe(fails + 2);
  });

  it("a plan with fewer seats than the workspace holds is refused before any portal session", async () => {
    const { client, user, subscriptionId } = await professionalSubscriber();
    await deliver(s.fake.updateSubscription(subscriptionId, { price: "price_business" }));
    expect((await workspaceOf(s.t, user.id)).plan).toBe("business");
    await joinWorkspace(s.t, client, "member", { name: "Mo Member" });
    const sessions = () => s.fake.requests.filter((r) => r.path === "/v1/billing_portal/sessions").length;
    const before = sessions();
    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toContain("Professional includes 1 team member; this workspace has 2.");
    expect(sessions()).toBe(before);
  });

  it("the provider: STRIPE_PORTAL_PLAN_CHANGE_CONFIGURATION names the confirmation's configuration only; an unknown one or subscription is a ProviderError", async () => {
    const { user, subscriptionId } = await professionalSubscriber();
    const customerId = (await workspaceOf(s.t, user.id)).stripeCustomerId!;
    const configuration = s.fake.addPortalConfiguration();
    const provider = (planChangeConfiguration?: string) =>
      new StripePaymentsProvider({
        secretKey: "sk_test_plan_change",
        webhookSecret: secret,
        apiHost: s.fake.url,
        planChangeConfiguration,
      });
    const planChange = { subscriptionId, plan: "business" as const, priceId: "price_business" };
    await provider(configuration).createPortalSession({
      customerId,
      returnUrl: "http://x/pricing",
      planChange,
    });
    expect(lastPortalRequest().get("configuration")).toBe(configuration);
    await provider(configuration).createPortalSession({ customerId, returnUrl: "http://x/settings" });
    expect(lastPortalRequest().get("configuration")).not.toBe(configuration);
    expect(lastPortalRequest().get("configuration")).not.toBe(s.fake.defaultPortalConfiguration);
    await expect(
      provider("bpc_unknown").createPortalSession({ customerId, returnUrl: "http://x/pricing", planChange }),
    ).rejects.toBeInstanceOf(ProviderError);
    await expect(
      provider().createPortalSession({
        customerId,
        returnUrl: "http://x/pricing",
        planChange: { ...planChange, subscriptionId: "sub_unknown" },
      }),
    ).rejects.toBeInstanceOf(ProviderError);
  });
});

describe("local portal: a plan chosen on /pricing opens on its confirmation", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("?plan=business shows 'Confirm your new plan' with one button; confirming changes the plan; the current plan or an unknown one shows none", async () => {
    const { client, user } = await subscribeLocally(t, "professional");

    const res = await client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().url as string);
    expect(url.pathname).toBe("/local-portal");
    expect(url.searchParams.get("plan")).toBe("business");
    expect(url.searchParams.get("return_url")).toBe("http://localhost:80/pricing");
    const page = await client.get(`${url.pathname}${url.search}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Confirm your new plan");
    expect(page.body).toContain("Switch from <strong>Professional</strong> to <strong>Business</strong>");
    expect(page.body).toContain("Confirm Business</button>");
    for (const other of ["professional", "platinum"]) {
      const p = await client.get(`/local-portal?plan=${other}`);
      expect(p.body).not.toContain("Confirm your new plan");
    }
    const change = await client.inject({
      method: "POST",
      url: "/local-portal/change",
      payload: { plan: "business" },
    });
    expect(change.statusCode).toBe(200);
    expect(change.body).toContain("Your plan is now Business.");
    expect(change.body).not.toContain("Confirm your new plan");
    expect((await workspaceOf(t, user.id)).plan).toBe("business");
  });
});
