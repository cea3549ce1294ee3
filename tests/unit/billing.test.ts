import { describe, expect, it } from "vitest";
import { addMonths, billingPeriod, effectivePlan } from "../../src/server/features/billing/billing.service";
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
