import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import type { StripeFake } from "../fakes/stripe";
import { type AuthedClient, createTestApp, joinWorkspace, setPlan, signUp, type TestApp } from "../helpers";
import { stripeTestApp } from "../stripe-app";

/**
 * The payments vendor's customer carries the workspace owner's email: Stripe sends receipts,
 * failed-payment emails and invoices there, and the billing portal shows it. When the owner changes
 * (ownership transfer) or the owner's own address changes, the customer's email must follow
 * (Stripe "Update a customer": POST /v1/customers/{id}, form-encoded `email`).
 */

/** The owner invites a new person as admin, who registers and accepts. */
const addAdmin = (t: TestApp, owner: AuthedClient, name = "Ada Admin") =>
  joinWorkspace(t, owner, "admin", { name });

async function workspaceOf(t: TestApp, id: string) {
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
  return w!;
}

describe("the Stripe customer's email follows the workspace owner", () => {
  let t: TestApp;
  let fake: StripeFake;
  const stripe = stripeTestApp("whsec_owner_email", "sk_test_owner_email");
  beforeAll(() => {
    ({ t, fake } = stripe.app);
  });

  /** A workspace subscribed to Business through Stripe Checkout: its owner and the customer id. */
  async function subscribed() {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    const res = await owner.client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(res.statusCode, res.body).toBe(200);
    for (const e of fake.completeCheckout((res.json().url as string).split("/").pop()!, 14900)) {
      const d = await stripe.sendSigned(e);
      expect(d.statusCode, d.body).toBe(200);
    }
    const ws = await workspaceOf(t, owner.user.id);
    expect(ws.plan).toBe("business");
    const customerId = ws.stripeCustomerId!;
    expect(fake.customers.get(customerId)).toMatchObject({ email: owner.user.email });
    return { owner, customerId };
  }

  /** The Update a customer requests the fake received for `customerId`, as form fields. */
  const updatesOf = (customerId: string) =>
    fake.requests
      .filter((r) => r.method === "POST" && r.path === `/v1/customers/${customerId}`)
      .map((r) => Object.fromEntries(new URLSearchParams(r.body)));

  it("an ownership transfer updates the customer's email to the new owner's", async () => {
    const { owner, customerId } = await subscribed();
    const admin = await addAdmin(t, owner.client);
    const tr = await owner.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id });
    expect(tr.statusCode, tr.body).toBe(200);

    expect(updatesOf(customerId)).toEqual([expect.objectContaining({ email: admin.user.email })]);
    expect(fake.customers.get(customerId)).toMatchObject({ id: customerId, email: admin.user.email });
    expect((await workspaceOf(t, owner.user.id)).ownerId).toBe(admin.user.id);
  });

  it("the owner changing their own account email updates the customer of the workspace they own, and a recovery moves it back", async () => {
    const { owner, customerId } = await subscribed();
    const newEmail = `moved-${owner.user.email}`;
    const res = await owner.client.put("/api/user/profile", {
      name: "Olive Owner",
      email: newEmail,
      currentPassword: owner.password,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(updatesOf(customerId)).toEqual([expect.objectContaining({ email: newEmail })]);
    expect(fake.customers.get(customerId)).toMatchObject({ email: newEmail });

    // "this wasn't me": the recovery link of the notice moves the account, and the customer, back
    const outbox = await t.app.inject({
      method: "GET",
      url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(owner.user.email)}`,
    });
    const token = (outbox.json().messages as { body: string }[])
      .map((m) => m.body.match(/\/account\/recover-email\?token=([a-z2-7]+)/)?.[1])
      .find(Boolean);
    expect(token).toBeTruthy();
    const recovered = await t.app.inject({
      method: "POST",
      url: "/api/auth/recover-email",
      payload: { token },
    });
    expect(recovered.statusCode, recovered.body).toBe(200);
    expect(updatesOf(customerId).at(-1)).toMatchObject({ email: owner.user.email });
    expect(fake.customers.get(customerId)).toMatchObject({ email: owner.user.email });
  });

  it("a workspace without a customer yet: the transfer asks nothing of Stripe", async () => {
    const owner = await signUp(t.app);
    await setPlan(t, owner.user.id, "business");
    const admin = await addAdmin(t, owner.client);
    const before = fake.requests.length;
    const tr = await owner.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id });
    expect(tr.statusCode, tr.body).toBe(200);
    expect(fake.requests.slice(before).filter((r) => r.path.startsWith("/v1/customers"))).toEqual([]);
    expect((await workspaceOf(t, owner.user.id)).stripeCustomerId).toBeNull();
  });

  it("Stripe failing does not undo the transfer; the update is retried through the job queue", async () => {
    const { owner, customerId } = await subscribed();
    const admin = await addAdmin(t, owner.client);
    const down = { status: 500, json: { error: { type: "api_error", message: "Stripe is down" } } };
    fake.failNext(down, down, down);
    const tr = await owner.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id });
    expect(tr.statusCode, tr.body).toBe(200);
    expect((await workspaceOf(t, owner.user.id)).ownerId).toBe(admin.user.id);
    // the job's first attempt met the outage; a retry made the update
    expect(updatesOf(customerId).length).toBeGreaterThan(1);
    expect(fake.customers.get(customerId)).toMatchObject({ email: admin.user.email });
  });

  it("a customer Stripe no longer knows (404) fails the job once, without undoing the transfer", async () => {
    const { owner, customerId } = await subscribed();
    const admin = await addAdmin(t, owner.client);
    fake.customers.delete(customerId);
    const failuresBefore = t.jobs.failures.length;
    const tr = await owner.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id });
    expect(tr.statusCode, tr.body).toBe(200);
    expect((await workspaceOf(t, owner.user.id)).ownerId).toBe(admin.user.id);
    // not retried: Stripe's resource_missing will not change by asking again
    expect(updatesOf(customerId)).toHaveLength(1);
    expect(t.jobs.failures.slice(failuresBefore).map((f) => f.job)).toEqual(["billing.sync-customer-email"]);
  });
});

describe("the local payments provider on an ownership transfer", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("keeps no customer email (its updateCustomer is a no-op): the transfer succeeds and the job does not fail", async () => {
    const owner = await signUp(t.app);
    const res = await owner.client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(res.statusCode, res.body).toBe(200);
    const paid = await t.app.inject({
      method: "POST",
      url: new URL(res.json().url as string).pathname,
      payload: { card_number: "4242 4242 4242 4242" },
    });
    expect(paid.statusCode, paid.body).toBe(303);
    expect((await workspaceOf(t, owner.user.id)).stripeCustomerId).toMatch(/^cus_local_/);
    const admin = await addAdmin(t, owner.client);
    const failuresBefore = t.jobs.failures.length;
    const tr = await owner.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id });
    expect(tr.statusCode, tr.body).toBe(200);
    expect((await workspaceOf(t, owner.user.id)).ownerId).toBe(admin.user.id);
    expect(t.jobs.failures.slice(failuresBefore)).toEqual([]);
  });
});
