import { AppError } from "../../lib/errors";

/**
 * Every plan fact of spec section 9 ("Plans"), and the one check every feature asks. No other file
 * hard-codes a plan limit or feature (issue 10, "one home per concern").
 *
 * Limits are per workspace; monthly limits count per billing period (calendar month on Free).
 * `null` means unlimited.
 */
export const PLAN_IDS = ["free", "professional", "business", "enterprise"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** Monthly or total quantities a plan limits. */
export type PlanLimit =
  | "seats"
  | "contacts"
  | "leadSearches"
  | "emails"
  | "videoMessages"
  | "smsMessages"
  | "voiceCalls";

/** The monthly meters counted per workspace and billing period (a subset of PlanLimit). */
export const METERS = ["leadSearches", "emails", "videoMessages", "smsMessages", "voiceCalls"] as const;
export type Meter = (typeof METERS)[number];

/** Features a plan includes or not. */
export type PlanFeature =
  | "videoCampaigns"
  | "smsVoiceCampaigns"
  | "apiAccess"
  | "whiteLabel"
  | "premiumEditor";

export interface PlanFacts {
  id: PlanId;
  /** shown name: 'Free', 'Professional', ... */
  name: string;
  /** US dollars per month */
  priceMonthlyUsd: number;
  /** the spec's price id (Stripe lookup key), null for Free */
  priceId: string | null;
  /** the card's feature lines, in the spec's words */
  highlights: string[];
  limits: Record<PlanLimit, number | null>;
  features: Record<PlanFeature, boolean>;
}

/** Spec section 9, "Plans" table. */
export const PLANS: Record<PlanId, PlanFacts> = {
  free: {
    id: "free",
    name: "Free",
    priceMonthlyUsd: 0,
    priceId: null,
    highlights: [
      "10 searches per month",
      "100 contacts",
      "Basic email campaigns (100/month)",
      "Community support",
    ],
    limits: {
      seats: 1,
      contacts: 100,
      leadSearches: 10,
      emails: 100,
      videoMessages: 0,
      smsMessages: 0,
      voiceCalls: 0,
    },
    features: {
      videoCampaigns: false,
      smsVoiceCampaigns: false,
      apiAccess: false,
      whiteLabel: false,
      premiumEditor: false,
    },
  },
  professional: {
    id: "professional",
    name: "Professional",
    priceMonthlyUsd: 49,
    priceId: "price_professional",
    highlights: [
      "500 searches per month",
      "5,000 contacts",
      "Unlimited email campaigns",
      "100 video messages per month",
      "500 SMS per month",
      "100 voice calls per month",
      "Email support",
      "1 team member",
    ],
    limits: {
      seats: 1,
      contacts: 5000,
      leadSearches: 500,
      emails: null,
      videoMessages: 100,
      smsMessages: 500,
      voiceCalls: 100,
    },
    features: {
      videoCampaigns: true,
      smsVoiceCampaigns: true,
      apiAccess: false,
      whiteLabel: false,
      premiumEditor: true,
    },
  },
  business: {
    id: "business",
    name: "Business",
    priceMonthlyUsd: 149,
    priceId: "price_business",
    highlights: [
      "2,000 searches per month",
      "25,000 contacts",
      "Unlimited campaigns of all types",
      "1,000 video messages per month",
      "2,500 SMS per month",
      "500 voice calls per month",
      "Priority support",
      "5 team members",
      "API access",
    ],
    limits: {
      seats: 5,
      contacts: 25000,
      leadSearches: 2000,
      emails: null,
      videoMessages: 1000,
      smsMessages: 2500,
      voiceCalls: 500,
    },
    features: {
      videoCampaigns: true,
      smsVoiceCampaigns: true,
      apiAccess: true,
      whiteLabel: false,
      premiumEditor: true,
    },
  },
  enterprise: {
    id: "enterprise",
    name: "Enterprise",
    priceMonthlyUsd: 499,
    priceId: "price_enterprise",
    highlights: [
      "10,000 searches per month",
      "Unlimited contacts",
      "Unlimited campaigns",
      "Unlimited video",
      "10,000 SMS per month",
      "2,500 voice calls per month",
      "Dedicated support",
      "Unlimited team members",
      "White-label options",
      "Custom integrations",
    ],
    limits: {
      seats: null,
      contacts: null,
      leadSearches: 10000,
      emails: null,
      videoMessages: null,
      smsMessages: 10000,
      voiceCalls: 2500,
    },
    features: {
      videoCampaigns: true,
      smsVoiceCampaigns: true,
      apiAccess: true,
      whiteLabel: true,
      premiumEditor: true,
    },
  },
};

/** The plan of a stored value; unknown or missing values count as Free (spec: 'Starter' label). */
export function planOf(plan: string | null | undefined): PlanFacts {
  return plan && plan in PLANS ? PLANS[plan as PlanId] : PLANS.free;
}

/** What a limit counts, in a sentence's words. */
const LIMIT_WORDS: Record<PlanLimit, { unit: (n: number) => string; period: string }> = {
  seats: { unit: (n) => (n === 1 ? "team member" : "team members"), period: "" },
  contacts: { unit: (n) => (n === 1 ? "contact" : "contacts"), period: "" },
  leadSearches: { unit: (n) => (n === 1 ? "lead search" : "lead searches"), period: " a month" },
  emails: { unit: (n) => (n === 1 ? "email" : "emails"), period: " a month" },
  videoMessages: { unit: (n) => (n === 1 ? "video message" : "video messages"), period: " a month" },
  smsMessages: { unit: (n) => (n === 1 ? "SMS message" : "SMS messages"), period: " a month" },
  voiceCalls: { unit: (n) => (n === 1 ? "voice call" : "voice calls"), period: " a month" },
};

const FEATURE_WORDS: Record<PlanFeature, string> = {
  videoCampaigns: "Video campaigns",
  smsVoiceCampaigns: "SMS and voice campaigns",
  apiAccess: "API access",
  whiteLabel: "White-label options",
  premiumEditor: "The premium editor",
};

/** "Video campaigns" -> "video campaigns"; acronyms stay ("SMS and voice campaigns", "API access"). */
function lowerFirst(words: string): string {
  return /^[A-Z][a-z]/.test(words) ? words[0].toLowerCase() + words.slice(1) : words;
}

/** The cheapest plan (in PLAN_IDS order) above `from` whose limit fits `needed`, or null. */
export function planAllowing(limit: PlanLimit, needed: number, from: PlanId = "free"): PlanFacts | null {
  for (const id of PLAN_IDS.slice(PLAN_IDS.indexOf(from) + 1)) {
    const max = PLANS[id].limits[limit];
    if (max === null || max >= needed) return PLANS[id];
  }
  return null;
}

/** The cheapest plan that includes `feature`, or null. */
export function planWithFeature(feature: PlanFeature): PlanFacts | null {
  return PLAN_IDS.map((id) => PLANS[id]).find((p) => p.features[feature]) ?? null;
}

/**
 * The part of a workspace the plan checks read: its stored plan and, when the caller has them (a
 * workspace row does), the subscription fields that say whether that plan has ended.
 */
export interface PlanHolder {
  plan: string;
  cancelAtPeriodEnd?: boolean;
  currentPeriodEnd?: Date | null;
  subscriptionStatus?: string | null;
}

/**
 * Subscription statuses that hold the paid plan without granting it (Stripe's documented semantics,
 * https://docs.stripe.com/api/subscriptions/object#subscription_object-status): `unpaid` (payment
 * retries exhausted, the invoices left open) and `paused` (a trial ended without a payment method).
 * The workspace keeps its stored plan and subscription, so a payment brings the plan back, but counts
 * as Free until a live status (active, trialing, past_due) returns.
 */
export const HELD_STATUSES: ReadonlySet<string> = new Set(["unpaid", "paused"]);

/**
 * The plan a workspace has now: its stored plan, except that
 * - a subscription set to cancel (or canceled) falls back to Free once its period has ended (spec
 *   section 9; Stripe's own `customer.subscription.deleted` does the same when it arrives, and
 *   billing's loadBillingWorkspace writes the fallback back);
 * - an `unpaid` or `paused` subscription (HELD_STATUSES) counts as Free for as long as it has that
 *   status (the stored plan stays: it is the one a payment restores).
 * A holder without the subscription fields has its stored plan.
 */
export function effectivePlan(ws: PlanHolder, now = new Date()): PlanId {
  const plan = planOf(ws.plan).id;
  if (plan === "free") return plan;
  if (ws.subscriptionStatus && HELD_STATUSES.has(ws.subscriptionStatus)) return "free";
  const ended = ws.currentPeriodEnd != null && ws.currentPeriodEnd.getTime() <= now.getTime();
  if (ended && (ws.cancelAtPeriodEnd || ws.subscriptionStatus === "canceled")) return "free";
  return plan;
}

/**
 * The one plan check (issue 10/12), against the plan the workspace has now (`effectivePlan`: an ended
 * subscription counts as Free). `used` is what the workspace has already used of `limit` (a
 * total such as seats or contacts, or this period's count of a monthly meter); `amount` is what the
 * request adds. Passes when `used + amount` stays within the plan's limit (null = unlimited).
 *
 * @throws AppError PAYMENT_REQUIRED (402) with a sentence naming the limit, what is left and the
 *   plan that allows more, e.g. "Your Free plan includes 1 team member; this needs 2. Upgrade to
 *   Business for up to 5 team members."
 */
export function assertWithinPlan(
  workspace: PlanHolder,
  limit: PlanLimit,
  amount: number,
  used: number,
): void {
  const plan = PLANS[effectivePlan(workspace)];
  const max = plan.limits[limit];
  if (max === null || used + amount <= max) return;
  const words = LIMIT_WORDS[limit];
  const left = Math.max(0, max - used);
  const needed = used + amount;
  const upgrade = planAllowing(limit, needed, plan.id);
  const includes =
    max === 0
      ? `Your ${plan.name} plan does not include ${words.unit(2)}.`
      : `Your ${plan.name} plan includes ${max.toLocaleString("en-US")} ${words.unit(max)}${words.period}; ` +
        `this needs ${amount.toLocaleString("en-US")} and ${left.toLocaleString("en-US")} ${left === 1 ? "is" : "are"} left.`;
  throw new AppError("PAYMENT_REQUIRED", `${includes}${upgradeSentence(limit, upgrade)}`, {
    limit,
    used,
    amount,
    max,
  });
}

/**
 * What `limit` counts, in the plural ("lead searches", "SMS messages"): for sentences about a meter
 * (billing's campaignPlanStop, the usage warning email).
 */
export function limitUnits(limit: PlanLimit): string {
  return LIMIT_WORDS[limit].unit(2);
}

/**
 * " Upgrade to Business for up to 2,500 SMS messages a month." (or "for unlimited ..."): the plan
 * `upgrade` (planAllowing's answer) and what it allows of `limit`; "" without one.
 */
export function upgradeSentence(limit: PlanLimit, upgrade: PlanFacts | null): string {
  if (!upgrade) return "";
  const words = LIMIT_WORDS[limit];
  const max = upgrade.limits[limit];
  return ` Upgrade to ${upgrade.name} for ${
    max === null
      ? `unlimited ${words.unit(2)}`
      : `up to ${max.toLocaleString("en-US")} ${words.unit(max)}${words.period}`
  }.`;
}

/**
 * Whether the plan the workspace has now (effectivePlan: an unpaid, paused or ended subscription
 * counts as Free) includes `feature`: assertPlanFeature's test, for work that stops quietly instead of
 * answering a 402 (e.g. an outbound webhook delivery of a workspace that lost API access).
 */
export function hasPlanFeature(workspace: PlanHolder, feature: PlanFeature): boolean {
  return PLANS[effectivePlan(workspace)].features[feature];
}

/**
 * Feature gate of spec section 9, for the plan the workspace has now (`effectivePlan`).
 * @throws AppError PAYMENT_REQUIRED naming the feature and the cheapest plan that includes it.
 */
export function assertPlanFeature(workspace: PlanHolder, feature: PlanFeature): void {
  if (hasPlanFeature(workspace, feature)) return;
  const plan = PLANS[effectivePlan(workspace)];
  const upgrade = planWithFeature(feature);
  throw new AppError(
    "PAYMENT_REQUIRED",
    `${FEATURE_WORDS[feature]} ${feature === "apiAccess" || feature === "premiumEditor" ? "is" : "are"} not included in your ${plan.name} plan.` +
      (upgrade ? ` Upgrade to ${upgrade.name} to use ${lowerFirst(FEATURE_WORDS[feature])}.` : ""),
    { feature },
  );
}
