import { describe, expect, it } from "vitest";
import {
  assertPlanFeature,
  assertWithinPlan,
  type PlanFeature,
  type PlanLimit,
  planRefusalOf,
} from "../../src/server/features/billing/billing.plans";
import {
  addMonths,
  billingPeriod,
  contactsLimitReason,
  effectivePlan,
} from "../../src/server/features/billing/billing.service";
import { AppError } from "../../src/server/lib/errors";
import { normalizeStatus } from "../../src/server/providers/payments";
import { addMonth, signPayload } from "../../src/server/providers/payments/local";

const ws = (
  o: Partial<{
    plan: string;
    cancelAtPeriodEnd: boolean;
    currentPeriodEnd: Date | null;
    subscriptionStatus: string | null;
  }>,
) => ({
  plan: "free",
  cancelAtPeriodEnd: false,
  currentPeriodEnd: null,
  subscriptionStatus: null,
  ...o,
});

describe("billing periods (issue 12: calendar month on Free, the subscription's month on paid plans)", () => {
  it("Free counts by calendar month, UTC", () => {
    const p = billingPeriod(ws({}), new Date("2026-03-31T23:59:59Z"));
    expect(p.start.toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(p.end.toISOString()).toBe("2026-04-01T00:00:00.000Z");
  });

  it("a paid plan counts from one renewal to the next, anchored on current_period_end", () => {
    const w = ws({
      plan: "professional",
      subscriptionStatus: "active",
      currentPeriodEnd: new Date("2026-04-15T10:00:00Z"),
    });
    const p = billingPeriod(w, new Date("2026-04-01T00:00:00Z"));
    expect(p.start.toISOString()).toBe("2026-03-15T10:00:00.000Z");
    expect(p.end.toISOString()).toBe("2026-04-15T10:00:00.000Z");
    // a renewal not recorded yet: the next month's period
    const later = billingPeriod(w, new Date("2026-04-20T00:00:00Z"));
    expect(later.start.toISOString()).toBe("2026-04-15T10:00:00.000Z");
    expect(later.end.toISOString()).toBe("2026-05-15T10:00:00.000Z");
  });

  it("month arithmetic clamps to the month's last day", () => {
    expect(addMonths(new Date("2026-01-31T12:00:00Z"), 1).toISOString()).toBe("2026-02-28T12:00:00.000Z");
    expect(addMonths(new Date("2026-03-31T12:00:00Z"), -1).toISOString()).toBe("2026-02-28T12:00:00.000Z");
    expect(addMonth(new Date("2028-01-31T00:00:00Z")).toISOString()).toBe("2028-02-29T00:00:00.000Z");
  });
});

describe("effective plan", () => {
  const end = new Date("2026-05-01T00:00:00Z");
  it("keeps a canceled-at-period-end plan until the period ends, then Free", () => {
    const w = ws({
      plan: "business",
      cancelAtPeriodEnd: true,
      currentPeriodEnd: end,
      subscriptionStatus: "active",
    });
    expect(effectivePlan(w, new Date("2026-04-30T23:59:59Z"))).toBe("business");
    expect(effectivePlan(w, end)).toBe("free");
  });
  it("keeps a renewing plan past its recorded period end; unknown plans are Free", () => {
    expect(
      effectivePlan(
        ws({ plan: "business", currentPeriodEnd: end, subscriptionStatus: "active" }),
        new Date("2026-06-01T00:00:00Z"),
      ),
    ).toBe("business");
    expect(effectivePlan(ws({ plan: "gold" }))).toBe("free");
  });
  it("an unpaid or paused subscription counts as Free while it has that status; past_due keeps the plan", () => {
    const at = new Date("2026-04-15T00:00:00Z");
    for (const subscriptionStatus of ["unpaid", "paused"])
      expect(effectivePlan(ws({ plan: "business", currentPeriodEnd: end, subscriptionStatus }), at)).toBe(
        "free",
      );
    expect(
      effectivePlan(ws({ plan: "business", currentPeriodEnd: end, subscriptionStatus: "past_due" }), at),
    ).toBe("business");
  });
});

/** The 402 sentence `check` (an assertWithinPlan or assertPlanFeature call) throws; fails the test when it passes. */
function refusal(check: () => void): string {
  try {
    check();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe("PAYMENT_REQUIRED");
    return (e as AppError).message;
  }
  throw new Error("the check passed");
}
const limitRefusal = (w: ReturnType<typeof ws>, limit: PlanLimit, amount: number, used: number) =>
  refusal(() => assertWithinPlan(w, limit, amount, used));
const featureRefusal = (w: ReturnType<typeof ws>, feature: PlanFeature) =>
  refusal(() => assertPlanFeature(w, feature));

describe("plan refusals (billing.plans): upgrade sentences, and the payment for a held plan", () => {
  it("a workspace on Free (or on a live paid plan) is told which plan to upgrade to, as before", () => {
    expect(limitRefusal(ws({}), "seats", 1, 1)).toBe(
      "Your Free plan includes 1 team member, counting the owner, and it is taken. Upgrade to Business for up to 5 team members.",
    );
    // the owner holds one of the seats (Professional's "1 team member" was read as one teammate)
    expect(limitRefusal(ws({ plan: "professional", subscriptionStatus: "active" }), "seats", 1, 1)).toBe(
      "Your Professional plan includes 1 team member, counting the owner, and it is taken. Upgrade to Business for up to 5 team members.",
    );
    expect(limitRefusal(ws({ plan: "business", subscriptionStatus: "active" }), "seats", 1, 5)).toBe(
      "Your Business plan includes 5 team members, counting the owner, and all 5 are taken. Upgrade to Enterprise for unlimited team members.",
    );
    expect(limitRefusal(ws({ plan: "business", subscriptionStatus: "active" }), "seats", 2, 4)).toBe(
      "Your Business plan includes 5 team members, counting the owner; 1 is left and this needs 2. Upgrade to Enterprise for unlimited team members.",
    );
    expect(limitRefusal(ws({}), "videoMessages", 1, 0)).toBe(
      "Your Free plan does not include video messages. Upgrade to Professional for up to 100 video messages a month.",
    );
    for (const subscriptionStatus of ["active", "past_due", "trialing"])
      expect(limitRefusal(ws({ plan: "business", subscriptionStatus }), "smsMessages", 10, 2495)).toBe(
        "Your Business plan includes 2,500 SMS messages a month; this needs 10 and 5 are left. Upgrade to Enterprise for up to 10,000 SMS messages a month.",
      );
    expect(featureRefusal(ws({}), "apiAccess")).toBe(
      "API access is not included in your Free plan. Upgrade to Business to use API access.",
    );
    expect(contactsLimitReason({ plan: "free" })).toBe(
      "Your Free plan includes 100 contacts. Upgrade to Professional for up to 5,000 contacts.",
    );
  });

  it("unpaid: the Free plan's limits apply and paying the open invoice restores the held plan's", () => {
    const w = ws({ plan: "business", subscriptionStatus: "unpaid" });
    expect(limitRefusal(w, "seats", 1, 1)).toBe(
      "Your Business subscription is unpaid, so the Free plan's limits apply: 1 team member, counting the owner, and it is taken. Pay the open invoice in Settings > Billing to restore up to 5 team members.",
    );
    expect(limitRefusal(w, "emails", 5, 99)).toBe(
      "Your Business subscription is unpaid, so the Free plan's limits apply: 100 emails a month; this needs 5 and 1 is left. Pay the open invoice in Settings > Billing to restore unlimited emails.",
    );
    expect(limitRefusal(w, "videoMessages", 1, 0)).toBe(
      "Your Business subscription is unpaid, so the Free plan's limits apply: no video messages. Pay the open invoice in Settings > Billing to restore up to 1,000 video messages a month.",
    );
    expect(featureRefusal(w, "smsVoiceCampaigns")).toBe(
      "SMS and voice campaigns are not included in your Free plan, which applies while your Business subscription is unpaid. Pay the open invoice in Settings > Billing to restore them.",
    );
    expect(contactsLimitReason({ plan: "business", subscriptionStatus: "unpaid" })).toBe(
      "Your Business subscription is unpaid, so the Free plan's limits apply: 100 contacts. Pay the open invoice in Settings > Billing to restore up to 25,000 contacts.",
    );
  });

  it("paused: adding a payment method restores the held plan", () => {
    const w = ws({ plan: "business", subscriptionStatus: "paused" });
    expect(limitRefusal(w, "leadSearches", 1, 10)).toBe(
      "Your Business subscription is paused, so the Free plan's limits apply: 10 lead searches a month; this needs 1 and 0 are left. Add a payment method in Settings > Billing to restore up to 2,000 lead searches a month.",
    );
    expect(featureRefusal(w, "apiAccess")).toBe(
      "API access is not included in your Free plan, which applies while your Business subscription is paused. Add a payment method in Settings > Billing to restore it.",
    );
  });

  it("a held plan that would not allow it either: pay to restore it, then upgrade", () => {
    const w = ws({ plan: "professional", subscriptionStatus: "unpaid" });
    expect(limitRefusal(w, "seats", 1, 1)).toBe(
      "Your Professional subscription is unpaid, so the Free plan's limits apply: 1 team member, counting the owner, and it is taken. Pay the open invoice in Settings > Billing to restore your Professional plan (up to 1 team member), then upgrade to Business for up to 5 team members.",
    );
    expect(featureRefusal(w, "apiAccess")).toBe(
      "API access is not included in your Free plan, which applies while your Professional subscription is unpaid. Pay the open invoice in Settings > Billing to restore your Professional plan, then upgrade to Business to use API access.",
    );
    // within the Free plan's limits a held workspace passes
    expect(() => assertWithinPlan(w, "contacts", 10, 90)).not.toThrow();
  });
});

/** The structured refusal (`details.planRefusal`) the 402 of `check` carries; fails the test when it passes. */
function detailOf(check: () => void) {
  try {
    check();
  } catch (e) {
    expect((e as AppError).code).toBe("PAYMENT_REQUIRED");
    return planRefusalOf(e);
  }
  throw new Error("the check passed");
}

describe("plan refusals as data (details.planRefusal): what the sentence says, for the client's link", () => {
  it("Free or a live plan: upgrade to the plan the sentence names; none when no plan allows more", () => {
    expect(detailOf(() => assertWithinPlan(ws({}), "seats", 1, 1))).toEqual({
      action: "upgrade",
      plan: "free",
      held_plan: null,
      suggested_plan: "business",
      limit: "seats",
    });
    expect(detailOf(() => assertPlanFeature(ws({}), "smsVoiceCampaigns"))).toEqual({
      action: "upgrade",
      plan: "free",
      held_plan: null,
      suggested_plan: "professional",
      feature: "smsVoiceCampaigns",
    });
    const enterprise = ws({ plan: "enterprise", subscriptionStatus: "active" });
    expect(detailOf(() => assertWithinPlan(enterprise, "voiceCalls", 1, 2500))).toEqual({
      action: "none",
      plan: "enterprise",
      held_plan: null,
      suggested_plan: null,
      limit: "voiceCalls",
    });
  });

  it("a held plan: pay (unpaid or paused), with the upgrade after it only when the held plan is not enough", () => {
    for (const subscriptionStatus of ["unpaid", "paused"]) {
      const w = ws({ plan: "business", subscriptionStatus });
      expect(detailOf(() => assertWithinPlan(w, "seats", 1, 1))).toEqual({
        action: "pay",
        plan: "free",
        held_plan: "business",
        suggested_plan: null,
        limit: "seats",
      });
      expect(detailOf(() => assertPlanFeature(w, "apiAccess"))).toEqual({
        action: "pay",
        plan: "free",
        held_plan: "business",
        suggested_plan: null,
        feature: "apiAccess",
      });
    }
    const professional = ws({ plan: "professional", subscriptionStatus: "unpaid" });
    expect(detailOf(() => assertWithinPlan(professional, "seats", 1, 1))).toMatchObject({
      action: "pay",
      held_plan: "professional",
      suggested_plan: "business",
    });
    expect(detailOf(() => assertPlanFeature(professional, "apiAccess"))).toMatchObject({
      action: "pay",
      held_plan: "professional",
      suggested_plan: "business",
    });
  });
});

describe("payments helpers", () => {
  // unpaid and paused keep their own names (they used to read as past_due, which kept the plan):
  // Stripe documents them as "revoke access", so billing must be able to tell them from past_due
  it("maps vendor statuses onto ours", () => {
    expect(
      [
        "active",
        "trialing",
        "past_due",
        "canceled",
        "incomplete",
        "unpaid",
        "paused",
        "incomplete_expired",
      ].map(normalizeStatus),
    ).toEqual(["active", "trialing", "past_due", "canceled", "incomplete", "unpaid", "paused", "canceled"]);
  });
  it("signs like Stripe: t=<seconds>,v1=<HMAC-SHA256 hex of 't.payload'>", () => {
    // HMAC-SHA256("k", "1.{}") computed independently with openssl
    expect(signPayload("{}", "k", 1)).toBe(
      "t=1,v1=3dd49b2593d0f9a349e9e71c4bde3e2b862c2be4003fe9b4ba81332029310158",
    );
  });
});
