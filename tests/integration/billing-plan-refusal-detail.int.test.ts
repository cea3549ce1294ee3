/**
 * A plan refusal (402 of billing.plans: a limit such as seats, a feature such as API access) carries
 * its structured form beside the sentence, so that the client chooses its link from what the server
 * decided rather than from the sentence's wording: REST `plan_refusal`, tRPC `error.data.planRefusal`
 * (billing.service PlanRefusalDetail). `actor_can_pay` says whether the member asking may act on it
 * in Settings > Billing: only the owner may; an admin is told to ask the owner. A campaign paused by
 * its plan gets the same in its report (`pausedRefusal`).
 */
import crypto from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, contacts, workspaces } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import {
  type AuthedClient,
  createTestApp,
  daytimeZone,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

/** A tRPC mutation's or query's raw error body (`error.json`: message, code, data). */
async function rpcError(client: AuthedClient, path: string, input: unknown, kind: "query" | "mutation") {
  const res =
    kind === "query"
      ? await client.get(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`)
      : await client.inject({ method: "POST", url: `/trpc/${path}`, payload: { json: input } });
  return { status: res.statusCode, body: res.json() };
}

/** An owner and an admin of one workspace (the admin joined while it was on Business), now on `plan`. */
async function ownerAndAdmin(plan: string) {
  const owner = await signUp(t.app, { name: "Olga Owner" });
  await setPlan(t, owner.user.id, "business");
  const admin = await joinWorkspace(t, owner.client, "admin", { name: "Adam Admin" });
  await setPlan(t, owner.user.id, plan);
  return { owner, admin, workspaceId: owner.user.id };
}

describe("plan refusals carry a structured detail over REST and tRPC", () => {
  it("the seat limit on Free: upgrade to Business; the owner may act on it, an admin may not", async () => {
    const { owner, admin } = await ownerAndAdmin("free");
    const sentence =
      "Your Free plan includes 1 team member, counting the owner, and it is taken. Upgrade to Business for up to 5 team members.";
    const detail = {
      action: "upgrade",
      plan: "free",
      held_plan: null,
      suggested_plan: "business",
      limit: "seats",
    };
    for (const [who, client, canPay] of [
      ["owner", owner.client, true],
      ["admin", admin.client, false],
    ] as const) {
      const rest = await client.post("/api/workspaces/current/invites", {
        email: uniqueEmail(who),
        role: "member",
      });
      expect(rest.statusCode, rest.body).toBe(402);
      // the sentence and the existing fields are unchanged; plan_refusal is added
      expect(rest.json()).toEqual({
        success: false,
        error: sentence,
        plan_refusal: { ...detail, actor_can_pay: canPay },
      });
      const rpc = await rpcError(
        client,
        "workspaces.invite",
        { email: uniqueEmail(who), role: "member" },
        "mutation",
      );
      expect(rpc.status).toBe(403);
      expect(rpc.body.error.json.message).toBe(sentence);
      expect(rpc.body.error.json.data.planRefusal).toEqual({ ...detail, actor_can_pay: canPay });
    }
  });

  it("a feature (API keys on Free): upgrade to Business, named as the feature", async () => {
    const { owner, admin } = await ownerAndAdmin("free");
    const detail = {
      action: "upgrade",
      plan: "free",
      held_plan: null,
      suggested_plan: "business",
      feature: "apiAccess",
    };
    for (const [client, canPay] of [
      [owner.client, true],
      [admin.client, false],
    ] as const) {
      const rest = await client.post("/api/api-keys", { name: "CI", scopes: ["contacts:read"] });
      expect(rest.statusCode, rest.body).toBe(402);
      expect(rest.json()).toMatchObject({
        success: false,
        error: "API access is not included in your Free plan. Upgrade to Business to use API access.",
        plan_refusal: { ...detail, actor_can_pay: canPay },
      });
      const rpc = await rpcError(
        client,
        "apiKeys.create",
        { name: "CI", scopes: ["contacts:read"] },
        "mutation",
      );
      expect(rpc.body.error.json.data.planRefusal).toEqual({ ...detail, actor_can_pay: canPay });
    }
  });

  it("a Business plan held by an unpaid subscription: pay, no upgrade; the admin may not pay", async () => {
    const { owner, admin, workspaceId } = await ownerAndAdmin("business");
    await t.db.update(workspaces).set({ subscriptionStatus: "unpaid" }).where(eq(workspaces.id, workspaceId));
    // owner + admin hold 2 seats; the Free plan in force has 1, the held Business plan 5
    const detail = {
      action: "pay",
      plan: "free",
      held_plan: "business",
      suggested_plan: null,
      limit: "seats",
    };
    for (const [client, canPay] of [
      [owner.client, true],
      [admin.client, false],
    ] as const) {
      const rest = await client.post("/api/workspaces/current/invites", {
        email: uniqueEmail("h"),
        role: "member",
      });
      expect(rest.statusCode, rest.body).toBe(402);
      expect(rest.json().error).toContain(
        "Pay the open invoice in Settings > Billing to restore up to 5 team members.",
      );
      expect(rest.json().plan_refusal).toEqual({ ...detail, actor_can_pay: canPay });
      const rpc = await rpcError(
        client,
        "workspaces.invite",
        { email: uniqueEmail("h"), role: "member" },
        "mutation",
      );
      expect(rpc.body.error.json.data.planRefusal).toEqual({ ...detail, actor_can_pay: canPay });
    }
  });

  it("an error that is no plan refusal has no plan_refusal (REST) and planRefusal null (tRPC)", async () => {
    const u = await signUp(t.app);
    const rest = await u.client.post("/api/workspaces/current/invites", {
      email: "not an email",
      role: "member",
    });
    expect(rest.statusCode).toBe(400);
    expect(rest.json()).not.toHaveProperty("plan_refusal");
    const rpc = await rpcError(
      u.client,
      "workspaces.invite",
      { email: "not an email", role: "member" },
      "mutation",
    );
    expect(rpc.status).toBe(400);
    expect(rpc.body.error.json.data.planRefusal).toBeNull();
  });

  it("a campaign its plan paused: the report's pausedRefusal says what the plan needs now, per reader", async () => {
    const { owner, admin, workspaceId } = await ownerAndAdmin("business");
    const phone = await uniquePhone("212");
    const [id] = await findOrCreateContacts(t.ctx, workspaceId, [{ name: "P", phone }]);
    await t.db
      .update(contacts)
      .set({ timezone: daytimeZone() })
      .where(inArray(contacts.id, [id!]));
    const sms = await createAndLaunchCampaign(t.ctx, workspaceId, {
      name: `Later texts ${crypto.randomBytes(3).toString("hex")}`,
      channel: "sms",
      content: { message: "Hi" },
      recipients: { contactIds: [id!] },
      includeNotOptedIn: true,
      scheduledAt: new Date(Date.now() + 3_600_000),
    });
    const campaignId = sms.campaign.id;
    // the send engine pauses a campaign the plan no longer allows with the plan's sentence in `error`
    // and the cause 'plan' (campaigns.queries pauseCampaignForPlan)
    const reason = "SMS and voice campaigns are not included in your Free plan. (stored when it paused)";
    await t.db
      .update(campaigns)
      .set({ status: "paused", error: reason, pauseCause: "plan" })
      .where(eq(campaigns.id, campaignId));

    // Business now: SMS campaigns are included, more SMS a month come with Enterprise
    let report = await owner.client.get(`/api/campaigns/${campaignId}`);
    expect(report.json()).toMatchObject({
      campaign: { pausedReason: reason },
      pausedRefusal: {
        action: "upgrade",
        plan: "business",
        held_plan: null,
        suggested_plan: "enterprise",
        limit: "smsMessages",
        actor_can_pay: true,
      },
    });

    // the subscription is unpaid: pay to restore SMS campaigns
    await t.db.update(workspaces).set({ subscriptionStatus: "unpaid" }).where(eq(workspaces.id, workspaceId));
    const held = {
      action: "pay",
      plan: "free",
      held_plan: "business",
      suggested_plan: null,
      feature: "smsVoiceCampaigns",
    };
    report = await owner.client.get(`/api/campaigns/${campaignId}`);
    expect(report.json().pausedRefusal).toEqual({ ...held, actor_can_pay: true });
    const rpc = await rpcError(admin.client, "campaigns.report", { id: campaignId }, "query");
    expect(rpc.status).toBe(200);
    expect(rpc.body.result.data.json.pausedRefusal).toEqual({ ...held, actor_can_pay: false });

    // genuinely on Free: upgrade to Professional
    await setPlan(t, workspaceId, "free");
    const rpcOwner = await rpcError(owner.client, "campaigns.report", { id: campaignId }, "query");
    expect(rpcOwner.body.result.data.json.pausedRefusal).toEqual({
      action: "upgrade",
      plan: "free",
      held_plan: null,
      suggested_plan: "professional",
      feature: "smsVoiceCampaigns",
      actor_can_pay: true,
    });

    // Enterprise's SMS are limited too, but no plan has more: nothing to link to
    await setPlan(t, workspaceId, "enterprise");
    report = await owner.client.get(`/api/campaigns/${campaignId}`);
    expect(report.json().pausedRefusal).toMatchObject({ action: "none", suggested_plan: null });
    // a campaign that is not paused by its plan has none
    await t.db.update(campaigns).set({ error: null, pauseCause: null }).where(eq(campaigns.id, campaignId));
    report = await owner.client.get(`/api/campaigns/${campaignId}`);
    expect(report.json().pausedRefusal).toBeNull();

    // back on Free with the pause reason: resuming it is refused with the same detail as the report
    await setPlan(t, workspaceId, "free");
    await t.db
      .update(campaigns)
      .set({ error: reason, pauseCause: "plan" })
      .where(eq(campaigns.id, campaignId));
    const resume = await admin.client.post(`/api/campaigns/${campaignId}/resume`);
    expect(resume.statusCode, resume.body).toBe(402);
    expect(resume.json().plan_refusal).toEqual({
      action: "upgrade",
      plan: "free",
      held_plan: null,
      suggested_plan: "professional",
      feature: "smsVoiceCampaigns",
      actor_can_pay: false,
    });
    expect(resume.json().error).toMatch(/ Upgrade to resume this campaign, or cancel it\.$/);

    // a held Business plan: its resume says to pay, not to upgrade to the plan it has
    await setPlan(t, workspaceId, "business");
    await t.db.update(workspaces).set({ subscriptionStatus: "unpaid" }).where(eq(workspaces.id, workspaceId));
    const heldResume = await owner.client.post(`/api/campaigns/${campaignId}/resume`);
    expect(heldResume.statusCode, heldResume.body).toBe(402);
    expect(heldResume.json().plan_refusal).toMatchObject({ action: "pay", held_plan: "business" });
    expect(heldResume.json().error).not.toContain("Upgrade");
    expect(heldResume.json().error).toMatch(/ Once it is paid, resume this campaign, or cancel it\.$/);
  });
});

describe("the usage banners' data says who may pay", () => {
  it("billing.usage and GET /api/billing/usage: actor_can_pay for the owner only", async () => {
    const { owner, admin, workspaceId } = await ownerAndAdmin("business");
    await t.db.update(workspaces).set({ subscriptionStatus: "unpaid" }).where(eq(workspaces.id, workspaceId));
    for (const [client, canPay] of [
      [owner.client, true],
      [admin.client, false],
    ] as const) {
      const rest = await client.get("/api/billing/usage");
      expect(rest.statusCode, rest.body).toBe(200);
      expect(rest.json()).toMatchObject({ held_plan: "business", actor_can_pay: canPay });
      const rpc = await rpcError(client, "billing.usage", undefined, "query");
      expect(rpc.status).toBe(200);
      expect(rpc.body.result.data.json).toMatchObject({ held_plan: "business", actor_can_pay: canPay });
    }
  });
});
