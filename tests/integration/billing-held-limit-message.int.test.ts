import crypto from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  campaigns,
  contacts,
  localSubscriptions,
  outboxMessages,
  workspaceInvites,
  workspaces,
} from "../../src/server/db/schema";
import { reserveUsage } from "../../src/server/features/billing/billing.service";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";
import { sendLocalSigned, subscribeLocally } from "../stripe-app";
import { uniquePhone } from "../unique-phone";

// A Business workspace whose subscription is `unpaid` (payment retries exhausted) or `paused` (a trial
// ended without a payment method) counts as Free until it is paid (billing.plans effectivePlan). A
// limit it meets then is the Free plan's, but the workspace already has Business: the refusal says the
// subscription is held and that paying restores the Business limit, never "Upgrade to Business".

const ACTION = {
  unpaid: "Pay the open invoice in Settings > Billing",
  paused: "Add a payment method in Settings > Billing",
} as const;

describe("a held (unpaid or paused) Business subscription: plan refusals say to pay, not to upgrade", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  });
  afterAll(() => t.close());

  /** A fresh owner subscribed to Business through the local checkout. */
  const business = () => subscribeLocally(t, "business");

  /** Sets the local subscription of `u`'s Business workspace to `status`, through the signed webhook. */
  async function hold(u: Awaited<ReturnType<typeof signUp>>, status: "unpaid" | "paused") {
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, u.user.id));
    await t.db
      .update(localSubscriptions)
      .set({ status })
      .where(eq(localSubscriptions.id, w!.stripeSubscriptionId!));
    const res = await sendLocalSigned(
      t,
      JSON.stringify({
        id: `evt_local_${crypto.randomBytes(12).toString("base64url")}`,
        object: "event",
        type: "customer.subscription.updated",
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            object: "subscription",
            id: w!.stripeSubscriptionId,
            customer: w!.stripeCustomerId,
            metadata: { workspace_id: u.user.id },
          },
        },
      }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect((await u.client.get("/api/billing/usage")).json()).toMatchObject({
      plan: "free",
      status,
      held_plan: "business",
    });
  }

  /** A fresh owner on Business whose subscription is then `status`. */
  async function heldBusiness(status: "unpaid" | "paused") {
    const u = await business();
    await hold(u, status);
    return u;
  }

  async function pendingInvites(workspaceId: string) {
    return (await t.db.select().from(workspaceInvites).where(eq(workspaceInvites.workspaceId, workspaceId)))
      .length;
  }

  it.each(["unpaid", "paused"] as const)(
    "%s: inviting a teammate (REST and tRPC) is refused with 402 saying the subscription is held and paying restores 5 seats",
    async (status) => {
      const u = await heldBusiness(status);
      const expected =
        `Your Business subscription is ${status}, so the Free plan's limits apply: 1 team member, ` +
        `counting the owner, and it is taken. ${ACTION[status]} to restore up to 5 team members.`;
      const rest = await u.client.post("/api/workspaces/current/invites", {
        email: uniqueEmail("held"),
        role: "member",
      });
      expect(rest.statusCode, rest.body).toBe(402);
      expect(rest.json()).toMatchObject({ success: false, error: expected });
      expect(rest.json().error).not.toContain("Upgrade to");
      const rpc = await trpcCall(u.client, "workspaces.invite", {
        email: uniqueEmail("held"),
        role: "member",
      });
      expect(rpc.status).toBe(403);
      expect(rpc.error?.message).toBe(expected);
      expect(await pendingInvites(u.user.id)).toBe(0);
    },
  );

  it.each(["unpaid", "paused"] as const)(
    "%s: the contacts limit (create over REST and tRPC, import's rejected rows) and the email meter say to pay, not to upgrade",
    async (status) => {
      const u = await heldBusiness(status);
      const s = crypto.randomBytes(4).toString("hex");
      // the Free plan's 100 contacts fit while held
      const [first] = await findOrCreateContacts(
        t.ctx,
        u.user.id,
        Array.from({ length: 100 }, (_, i) => ({ name: `C ${i}`, email: `c${i}-${s}@example.com` })),
      );
      const contactsRefusal =
        `Your Business subscription is ${status}, so the Free plan's limits apply: 100 contacts; ` +
        `this needs 1 and 0 are left. ${ACTION[status]} to restore up to 25,000 contacts.`;
      const add = await u.client.post("/api/contacts", { first_name: "One", email: `one-${s}@example.com` });
      expect(add.statusCode, add.body).toBe(402);
      expect(add.json().error).toBe(contactsRefusal);
      const rpcAdd = await trpcCall(u.client, "crm.create", {
        first_name: "Two",
        email: `two-${s}@example.com`,
      });
      expect(rpcAdd.error?.message).toBe(contactsRefusal);
      const imported = await u.client.post("/api/contacts/import", {
        contacts: [{ first_name: "Imp", email: `imp-${s}@example.com` }],
      });
      expect(imported.statusCode, imported.body).toBe(200);
      expect(imported.json()).toMatchObject({ imported: 0, errors: 1 });
      expect(imported.json().error_rows[0].reason).toBe(
        `Your Business subscription is ${status}, so the Free plan's limits apply: 100 contacts. ` +
          `${ACTION[status]} to restore up to 25,000 contacts.`,
      );

      // the Free plan's 100 emails of this month are used: one more is refused
      await reserveUsage(t.ctx, u.user.id, "emails", 100);
      const emailRefusal =
        `Your Business subscription is ${status}, so the Free plan's limits apply: 100 emails a month; ` +
        `this needs 1 and 0 are left. ${ACTION[status]} to restore unlimited emails.`;
      const sent = await u.client.post(`/api/contacts/${first}/send-email`, { subject: "Hi", body: "Hello" });
      expect(sent.statusCode, sent.body).toBe(402);
      expect(sent.json().error).toBe(emailRefusal);
      const rpcSent = await trpcCall(u.client, "crm.sendEmail", { id: first, subject: "Hi", body: "Hello" });
      expect(rpcSent.error?.message).toBe(emailRefusal);
    },
  );

  it.each(["unpaid", "paused"] as const)(
    "%s: a feature of the held plan (SMS and voice campaigns) is refused naming the hold and the payment",
    async (status) => {
      const u = await heldBusiness(status);
      const res = await u.client.post("/api/campaigns/sms/launch", {
        campaignName: "Held plan",
        message: "Hello",
        contacts: [{ name: "A", phone: "+12025550123" }],
        includeNotOptedIn: true,
      });
      expect(res.statusCode, res.body).toBe(402);
      expect(res.json().error).toBe(
        `SMS and voice campaigns are not included in your Free plan, which applies while your Business ` +
          `subscription is ${status}. ${ACTION[status]} to restore them.`,
      );
    },
  );

  it.each(["unpaid", "paused"] as const)(
    "%s: scheduled campaigns launched on Business pause when they come due, saying to pay rather than to upgrade",
    async (status) => {
      const u = await business();
      const s = crypto.randomBytes(4).toString("hex");
      const phone = await uniquePhone("212");
      const ids = await findOrCreateContacts(t.ctx, u.user.id, [
        { name: "E", email: `e-${s}@example.com` },
        { name: "P", phone },
      ]);
      await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
      const later = new Date(Date.now() + 3_600_000);
      const email = await createAndLaunchCampaign(t.ctx, u.user.id, {
        name: "Later emails",
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        recipients: { contactIds: [ids[0]!] },
        includeNotOptedIn: true,
        scheduledAt: later,
      });
      const sms = await createAndLaunchCampaign(t.ctx, u.user.id, {
        name: "Later texts",
        channel: "sms",
        content: { message: "Hi" },
        recipients: { contactIds: [ids[1]!] },
        includeNotOptedIn: true,
        scheduledAt: later,
      });
      await hold(u, status);
      // the Free plan's 100 emails of this month are used meanwhile
      await reserveUsage(t.ctx, u.user.id, "emails", 100);
      await t.db
        .update(campaigns)
        .set({ scheduledAt: new Date(Date.now() - 1000) })
        .where(inArray(campaigns.id, [email.campaign.id, sms.campaign.id]));
      await t.jobs.runDeferred();
      const paused =
        " The campaign was paused with its remaining messages unsent: resume it once your subscription is paid, or cancel it.";
      const [e] = await t.db.select().from(campaigns).where(eq(campaigns.id, email.campaign.id));
      expect(e).toMatchObject({
        status: "paused",
        error:
          `Your Business subscription is ${status}, so the Free plan's limits apply: 100 emails a month and 100 ` +
          `are already used or reserved this billing period. ${ACTION[status]} to restore unlimited emails.${paused}`,
      });
      const [p] = await t.db.select().from(campaigns).where(eq(campaigns.id, sms.campaign.id));
      expect(p).toMatchObject({
        status: "paused",
        error:
          `SMS and voice campaigns are not included in your Free plan, which applies while your Business ` +
          `subscription is ${status}. ${ACTION[status]} to restore them.${paused}`,
      });
      expect(await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, phone))).toHaveLength(0);
    },
  );

  it("a workspace genuinely on Free keeps its upgrade sentences", async () => {
    const u = await signUp(t.app);
    const rest = await u.client.post("/api/workspaces/current/invites", {
      email: uniqueEmail("free"),
      role: "member",
    });
    expect(rest.statusCode).toBe(402);
    expect(rest.json().error).toBe(
      "Your Free plan includes 1 team member, counting the owner, and it is taken. Upgrade to Business for up to 5 team members.",
    );
    const sms = await u.client.post("/api/campaigns/sms/launch", {
      campaignName: "Free plan",
      message: "Hello",
      contacts: [{ name: "A", phone: "+12025550123" }],
      includeNotOptedIn: true,
    });
    expect(sms.statusCode).toBe(402);
    expect(sms.json().error).toBe(
      "SMS and voice campaigns are not included in your Free plan. Upgrade to Professional to use SMS and voice campaigns.",
    );
  });
});
