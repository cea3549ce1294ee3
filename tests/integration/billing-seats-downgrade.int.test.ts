import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import type { StripeFake } from "../fakes/stripe";
import {
  type AuthedClient,
  createTestApp,
  joinWorkspace,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";
import { stripeTestApp } from "../stripe-app";

/**
 * A plan change to fewer seats than the workspace's members and pending invitations (GitHub, HubSpot):
 * - where we decide the change (the checkout / plan choice, the local portal's plan change) it is
 *   refused with a sentence saying how many to remove in Settings > Team, and nothing changes; once
 *   enough members are removed (and invitations revoked) the change goes through;
 * - where we do not (Stripe's hosted portal, a failed payment or a refund ending the plan: the
 *   subscription webhook) it still lands, and the workspace is then over its seats: billing.usage
 *   reports it to owners and admins (`seats_over`, the seats meter used above its limit) and new
 *   invitations stay refused.
 * Before this, a Business workspace of 4 moved to Professional (1 team member) and kept all 4.
 */

const PRO_REFUSAL =
  "Professional includes 1 team member; this workspace has 4. Remove 3 members in Settings > Team before switching.";

async function workspaceOf(t: TestApp, id: string) {
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
  return w!;
}

/** The HTML-escaped form of a sentence as the local portal page shows it. */
const html = (s: string) => s.replaceAll(">", "&gt;");

describe("a plan change we decide is refused while the members exceed the new plan's seats", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** An owner subscribed to Business through the local checkout, with three more members. */
  async function businessOfFour() {
    const owner = await signUp(t.app, { name: "Olga Owner" });
    const checkout = await owner.client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(checkout.statusCode, checkout.body).toBe(200);
    const path = new URL(checkout.json().url as string).pathname;
    await t.app.inject({ method: "POST", url: path, payload: { card_number: "4242424242424242" } });
    expect((await workspaceOf(t, owner.user.id)).plan).toBe("business");
    const others = [
      await joinWorkspace(t, owner.client, "admin", { name: "Ada Admin" }),
      await joinWorkspace(t, owner.client, "member", { name: "Mo Member" }),
      await joinWorkspace(t, owner.client, "member", { name: "Max Member" }),
    ];
    return { owner, others };
  }

  const remove = async (owner: AuthedClient, userId: string) => {
    const res = await owner.del(`/api/workspaces/current/members/${userId}`);
    expect(res.statusCode, res.body).toBe(200);
  };

  it("the local portal's change to Professional is refused with the sentence, and nothing changes", async () => {
    const { owner } = await businessOfFour();
    const change = await owner.client.inject({
      method: "POST",
      url: "/local-portal/change",
      payload: { plan: "professional" },
    });
    expect(change.statusCode).toBe(409);
    expect(change.body).toContain(html(PRO_REFUSAL));
    const w = await workspaceOf(t, owner.user.id);
    expect(w).toMatchObject({ plan: "business", subscriptionStatus: "active" });
    // the provider's subscription was not changed either
    const sub = await t.providers.payments.retrieveSubscription(w.stripeSubscriptionId!);
    expect(sub?.priceId).toBe("price_business");
    expect((await owner.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "business",
      usage: { seats: { used: 4, limit: 5 } },
      seats_over: null,
    });
    // Enterprise (unlimited seats) is no downgrade of seats: allowed
    const up = await owner.client.inject({
      method: "POST",
      url: "/local-portal/change",
      payload: { plan: "enterprise" },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await workspaceOf(t, owner.user.id)).plan).toBe("enterprise");
  });

  it("choosing Professional on /pricing (tRPC and REST) is refused with the sentence and a Settings > Team refusal", async () => {
    const { owner } = await businessOfFour();
    const rpc = await owner.client.inject({
      method: "POST",
      url: "/trpc/billing.checkout",
      payload: { json: { priceId: "price_professional", planName: "professional" } },
    });
    expect(rpc.statusCode).toBe(409);
    const err = rpc.json().error.json;
    expect(err.message).toBe(PRO_REFUSAL);
    expect(err.data.planRefusal).toEqual({
      action: "remove_members",
      plan: "business",
      held_plan: null,
      suggested_plan: null,
      limit: "seats",
      target_plan: "professional",
      excess: 3,
      actor_can_pay: true,
    });
    const rest = await owner.client.post("/api/payment/create-checkout-session", {
      priceId: "price_professional",
      planName: "professional",
    });
    expect(rest.statusCode).toBe(409);
    expect(rest.json()).toMatchObject({ success: false, error: PRO_REFUSAL });
    expect((await workspaceOf(t, owner.user.id)).plan).toBe("business");
  });

  it("pending invitations hold seats too; the change goes through once members are removed and invitations revoked", async () => {
    const { owner, others } = await businessOfFour();
    await remove(owner.client, others[1]!.user.id);
    await remove(owner.client, others[2]!.user.id);
    const invited = await owner.client.post("/api/workspaces/current/invites", { email: uniqueEmail("ivy") });
    expect(invited.statusCode, invited.body).toBe(201);

    const refused = await owner.client.inject({
      method: "POST",
      url: "/local-portal/change",
      payload: { plan: "professional" },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain(
      html(
        "Professional includes 1 team member; this workspace has 3 (2 members and 1 pending invitation). Remove 2 members or invitations in Settings > Team before switching.",
      ),
    );
    expect((await workspaceOf(t, owner.user.id)).plan).toBe("business");

    const revoked = await owner.client.del(`/api/workspaces/current/invites/${invited.json().invite.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    await remove(owner.client, others[0]!.user.id);
    const change = await owner.client.inject({
      method: "POST",
      url: "/local-portal/change",
      payload: { plan: "professional" },
    });
    expect(change.statusCode, change.body).toBe(200);
    expect(change.body).toContain("Your plan is now Professional.");
    expect((await workspaceOf(t, owner.user.id)).plan).toBe("professional");
    expect((await owner.client.get("/api/billing/usage")).json()).toMatchObject({
      usage: { seats: { used: 1, limit: 1 } },
      seats_over: null,
    });
  });
});

describe("a downgrade we do not decide (the subscription webhook) lands and leaves the workspace over its seats", () => {
  let t: TestApp;
  let fake: StripeFake;
  const stripe = stripeTestApp("whsec_seats_secret", "sk_test_seats");
  beforeAll(() => {
    ({ t, fake } = stripe.app);
  });

  it("Stripe's portal moves Business to Professional, then the plan ends: usage reports the seats over, invitations are refused", async () => {
    const owner = await signUp(t.app, { name: "Stella Owner" });
    const res = await owner.client.post("/api/payment/create-checkout-session", {
      priceId: "price_business",
      planName: "business",
    });
    expect(res.statusCode, res.body).toBe(200);
    const session = (res.json().url as string).split("/").pop()!;
    for (const e of fake.completeCheckout(session, 14900)) await stripe.deliver(e);
    const sub = fake.sessions.get(session)!.subscription as string;
    const admin = await joinWorkspace(t, owner.client, "admin", { name: "Ari Admin" });
    const member = await joinWorkspace(t, owner.client, "member", { name: "Meg Member" });
    await joinWorkspace(t, owner.client, "member", { name: "Mia Member" });

    // the change made in Stripe's hosted portal arrives as customer.subscription.updated
    await stripe.deliver(fake.updateSubscription(sub, { price: "price_professional" }));
    expect((await workspaceOf(t, owner.user.id)).plan).toBe("professional");
    const over = {
      used: 4,
      limit: 1,
      excess: 3,
      plan: "professional",
      sentence: "This workspace has 4 members; Professional includes 1. Remove 3 members or upgrade.",
    };
    expect((await owner.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "professional",
      usage: { seats: { used: 4, limit: 1 } },
      seats_over: over,
    });
    const rpc = await trpcCall(owner.client, "billing.usage", undefined, "query");
    expect(rpc.data.seats_over).toEqual(over);
    // an admin manages members and is told too; a member is not
    expect((await admin.client.get("/api/billing/usage")).json().seats_over).toEqual(over);
    expect((await member.client.get("/api/billing/usage")).json().seats_over).toBeNull();
    // invitations stay refused
    const invite = await owner.client.post("/api/workspaces/current/invites", { email: uniqueEmail("late") });
    expect(invite.statusCode).toBe(402);

    // the plan ends (a failed payment's retries exhausted, a refund): Free, still over
    await stripe.deliver(fake.endSubscription(sub));
    expect((await owner.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "free",
      seats_over: {
        used: 4,
        limit: 1,
        excess: 3,
        plan: "free",
        sentence: "This workspace has 4 members; Free includes 1. Remove 3 members or upgrade.",
      },
    });
  });
});
