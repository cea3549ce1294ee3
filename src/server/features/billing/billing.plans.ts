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
 * The paid plan a workspace's `unpaid` or `paused` subscription holds (HELD_STATUSES: its stored plan,
 * which counts as Free until it is paid), or null when none is held.
 */
export function heldPlanOf(ws: PlanHolder): PlanId | null {
  const plan = planOf(ws.plan).id;
  return plan !== "free" && ws.subscriptionStatus != null && HELD_STATUSES.has(ws.subscriptionStatus)
    ? plan
    : null;
}

/**
 * A plan refusal in structured form: what the workspace's plan refused and what gets it more, decided
 * here with the sentence, so that a client chooses its link (Settings > Billing, /pricing, or Settings >
 * Team for a plan change refused for its seats) from this and never from the sentence's wording.
 * assertWithinPlan, assertPlanFeature and assertSeatsFitPlan put it in their AppError's details as
 * `planRefusal` (read it with planRefusalOf); the REST error body carries it as
 * `plan_refusal` and tRPC as `error.data.planRefusal`, each with `actor_can_pay` for the person asking
 * (billing.service planRefusalFor).
 */
export type PlanRefusal = PlanLimitRefusal | SeatsChangeRefusal;

/** A limit or feature the plan in force refused (limitRefusal, featureRefusal). */
export interface PlanLimitRefusal {
  /**
   * what gets the workspace more: "pay" when its paid plan is held by an unpaid or paused subscription
   * (HELD_STATUSES; paid in Settings > Billing, then an upgrade to `suggested_plan` if that is set too),
   * "upgrade" to `suggested_plan` (/pricing), "none" when no plan allows more
   */
  action: "pay" | "upgrade" | "none";
  /** the plan in force (effectivePlan): "free" while a paid plan is held */
  plan: PlanId;
  /** the paid plan an unpaid or paused subscription holds (action "pay"), else null */
  held_plan: PlanId | null;
  /**
   * the cheapest plan (above the held plan, when one is held) that allows what was asked; null when
   * none does, or when paying for the held plan is enough
   */
  suggested_plan: PlanId | null;
  /** the limit refused (seats, contacts or a monthly meter); absent when a feature was refused */
  limit?: PlanLimit;
  /** the feature (entitlement) refused; absent when a limit was refused */
  feature?: PlanFeature;
}

/**
 * A plan change refused because the workspace's members and pending invitations exceed the seats of
 * the plan it asked for (assertSeatsFitPlan): what gets it there is removing members or revoking
 * invitations in Settings > Team ("remove_members"), not a payment or an upgrade.
 */
export interface SeatsChangeRefusal {
  action: "remove_members";
  /** the plan in force (effectivePlan) */
  plan: PlanId;
  /** the paid plan an unpaid or paused subscription holds, else null */
  held_plan: PlanId | null;
  /** no plan is suggested: the workspace chose `target_plan` */
  suggested_plan: null;
  limit: "seats";
  /** the plan the workspace asked to move to */
  target_plan: PlanId;
  /** how many members or invitations to remove before switching */
  excess: number;
}

/**
 * The structured refusal of `needed` units of `limit` under the plan the workspace has at `now`
 * (what moreSentence says, as data): for a held plan "pay", with the upgrade after the payment when
 * the held plan would not allow `needed` either; otherwise "upgrade" to the cheapest plan that allows
 * it, or "none".
 */
export function limitRefusal(
  ws: PlanHolder,
  limit: PlanLimit,
  needed: number,
  now = new Date(),
): PlanLimitRefusal {
  const plan = effectivePlan(ws, now);
  const held = plan === "free" ? heldPlanOf(ws) : null;
  if (held) {
    const heldMax = PLANS[held].limits[limit];
    const after = heldMax === null || heldMax >= needed ? null : planAllowing(limit, needed, held);
    return { action: "pay", plan, held_plan: held, suggested_plan: after?.id ?? null, limit };
  }
  const upgrade = planAllowing(limit, needed, plan);
  return {
    action: upgrade ? "upgrade" : "none",
    plan,
    held_plan: null,
    suggested_plan: upgrade?.id ?? null,
    limit,
  };
}

/**
 * The structured refusal of `feature` under the plan the workspace has at `now` (assertPlanFeature's
 * sentence, as data): "pay" for a held plan (with `suggested_plan` when the held plan lacks the
 * feature too), else "upgrade" to the cheapest plan that includes it, or "none".
 */
export function featureRefusal(ws: PlanHolder, feature: PlanFeature, now = new Date()): PlanLimitRefusal {
  const plan = effectivePlan(ws, now);
  const held = plan === "free" ? heldPlanOf(ws) : null;
  const upgrade = planWithFeature(feature);
  if (held) {
    const after = PLANS[held].features[feature] ? null : upgrade;
    return { action: "pay", plan, held_plan: held, suggested_plan: after?.id ?? null, feature };
  }
  return {
    action: upgrade ? "upgrade" : "none",
    plan,
    held_plan: null,
    suggested_plan: upgrade?.id ?? null,
    feature,
  };
}

/** The PlanRefusal an AppError carries (`details.planRefusal`), or null for any other error. */
export function planRefusalOf(err: unknown): PlanRefusal | null {
  if (!(err instanceof AppError)) return null;
  return (err.details as { planRefusal?: PlanRefusal } | undefined)?.planRefusal ?? null;
}

/**
 * What a held workspace is told to do to get its plan back, in the words of the billing screens
 * (Settings > Billing opens the billing portal): an `unpaid` subscription has an open invoice to pay,
 * a `paused` one (a trial ended without a payment method) needs a payment method.
 */
function payAction(status: string): string {
  return status === "paused"
    ? "Add a payment method in Settings > Billing"
    : "Pay the open invoice in Settings > Billing";
}

/** "up to 5 team members", "up to 2,500 SMS messages a month" or "unlimited emails": what `max` allows. */
function allowance(limit: PlanLimit, max: number | null): string {
  const words = LIMIT_WORDS[limit];
  return max === null
    ? `unlimited ${words.unit(2)}`
    : `up to ${max.toLocaleString("en-US")} ${words.unit(max)}${words.period}`;
}

/**
 * The start of a refusal of `limit`, naming the plan in force (effectivePlan at `now`) and its limit:
 * "Your Free plan includes 100 emails a month" ("Your Free plan does not include video messages" for a
 * limit of 0). For a paid plan held by an unpaid or paused subscription it says so, since that
 * workspace did choose the paid plan: "Your Business subscription is unpaid, so the Free plan's limits
 * apply: 100 emails a month" ("...: no video messages"). Callers end the sentence (assertWithinPlan,
 * billing's contactsLimitReason and campaign stop sentence) and add `moreSentence`.
 */
export function includesPhrase(ws: PlanHolder, limit: PlanLimit, now = new Date()): string {
  const plan = PLANS[effectivePlan(ws, now)];
  const max = plan.limits[limit];
  const words = LIMIT_WORDS[limit];
  const held = plan.id === "free" ? heldPlanOf(ws) : null;
  if (held) {
    const amount =
      max === null
        ? `unlimited ${words.unit(2)}`
        : max === 0
          ? `no ${words.unit(2)}`
          : `${max.toLocaleString("en-US")} ${words.unit(max)}${words.period}`;
    return `Your ${PLANS[held].name} subscription is ${ws.subscriptionStatus}, so the ${plan.name} plan's limits apply: ${amount}`;
  }
  if (max === 0) return `Your ${plan.name} plan does not include ${words.unit(2)}`;
  return max === null
    ? `Your ${plan.name} plan includes unlimited ${words.unit(2)}`
    : `Your ${plan.name} plan includes ${max.toLocaleString("en-US")} ${words.unit(max)}${words.period}`;
}

/**
 * The sentence after a refusal of `limit` that says how to get `needed` units (with a leading space):
 * - a paid plan held by an unpaid or paused subscription: the payment that restores it, " Pay the open
 *   invoice in Settings > Billing to restore up to 5 team members." (" Add a payment method ..." when
 *   paused), and when the held plan would not allow `needed` either, the upgrade after the payment
 *   (" ... to restore your Professional plan (up to 1 team member), then upgrade to Business for up to
 *   5 team members.");
 * - otherwise upgradeSentence for the cheapest plan above the one in force that allows `needed`
 *   (" Upgrade to Business for up to 5 team members."), "" when none does.
 */
export function moreSentence(ws: PlanHolder, limit: PlanLimit, needed: number, now = new Date()): string {
  const plan = effectivePlan(ws, now);
  const held = plan === "free" ? heldPlanOf(ws) : null;
  if (!held) return upgradeSentence(limit, planAllowing(limit, needed, plan));
  const action = payAction(ws.subscriptionStatus ?? "");
  const heldMax = PLANS[held].limits[limit];
  if (heldMax === null || heldMax >= needed) return ` ${action} to restore ${allowance(limit, heldMax)}.`;
  const upgrade = planAllowing(limit, needed, held);
  return (
    ` ${action} to restore your ${PLANS[held].name} plan (${allowance(limit, heldMax)})` +
    (upgrade ? `, then upgrade to ${upgrade.name} for ${allowance(limit, upgrade.limits[limit])}.` : ".")
  );
}

/**
 * Whether `amount` more of `limit` fits the plan the workspace has at `now` after `used`
 * (assertWithinPlan's rule without the refusal), for a screen that must know before the person
 * asks, e.g. the Team screen's Send invitation (workspaces listMembers `seats.full`). Same
 * arguments as assertWithinPlan; true when the plan has no such limit (null).
 */
export function withinPlan(
  workspace: PlanHolder,
  limit: PlanLimit,
  amount: number,
  used: number,
  now = new Date(),
): boolean {
  const max = PLANS[effectivePlan(workspace, now)].limits[limit];
  return max === null || used + amount <= max;
}

/**
 * The one plan check (issue 10/12), against the plan the workspace has at `now` (`effectivePlan`: an
 * ended, unpaid or paused subscription counts as Free). `used` is what the workspace has already used
 * of `limit` (a total such as seats or contacts, or this period's count of a monthly meter); `amount`
 * is what the request adds. Passes when `used + amount` stays within the plan's limit (null =
 * unlimited).
 *
 * @throws AppError PAYMENT_REQUIRED (402) with a sentence naming the limit, what is left and the
 *   plan that allows more, e.g. "Your Professional plan includes 5,000 contacts; this needs 20 and 10
 *   are left. Upgrade to Business for up to 25,000 contacts." (seats say the owner holds one:
 *   seatsTaken); for a paid plan held by an unpaid or paused subscription (HELD_STATUSES) the hold
 *   and the payment that restores it instead (includesPhrase, moreSentence): "Your Business
 *   subscription is unpaid, so the Free plan's limits apply: 1 team member, counting the owner, and
 *   it is taken. Pay the open invoice in Settings > Billing to restore up to 5 team members." Details: `{limit, used, amount, max, planRefusal}` (limitRefusal).
 */
export function assertWithinPlan(
  workspace: PlanHolder,
  limit: PlanLimit,
  amount: number,
  used: number,
  now = new Date(),
): void {
  if (withinPlan(workspace, limit, amount, used, now)) return;
  const max = PLANS[effectivePlan(workspace, now)].limits[limit] as number;
  const left = Math.max(0, max - used);
  const needed = used + amount;
  const includes =
    max === 0
      ? `${includesPhrase(workspace, limit, now)}.`
      : limit === "seats"
        ? `${includesPhrase(workspace, limit, now)}${seatsTaken(max, left, amount)}`
        : `${includesPhrase(workspace, limit, now)}; ` +
          `this needs ${amount.toLocaleString("en-US")} and ${left.toLocaleString("en-US")} ${left === 1 ? "is" : "are"} left.`;
  throw new AppError("PAYMENT_REQUIRED", `${includes}${moreSentence(workspace, limit, needed, now)}`, {
    limit,
    used,
    amount,
    max,
    planRefusal: limitRefusal(workspace, limit, needed, now),
  });
}

/**
 * The end of a seat refusal's first sentence: the owner holds one of the plan's `max` seats (a QA
 * tester read Professional's "1 team member" as one teammate besides the owner), so it says so and
 * what is taken: ", counting the owner, and it is taken." (max 1), ", counting the owner, and all 5
 * are taken.", or with `left` seats free for a request of `amount`: ", counting the owner; 1 is left
 * and this needs 2."
 */
function seatsTaken(max: number, left: number, amount: number): string {
  if (left === 0)
    return max === 1
      ? ", counting the owner, and it is taken."
      : `, counting the owner, and all ${max.toLocaleString("en-US")} are taken.`;
  return `, counting the owner; ${left.toLocaleString("en-US")} ${left === 1 ? "is" : "are"} left and this needs ${amount.toLocaleString("en-US")}.`;
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
  return upgrade ? ` Upgrade to ${upgrade.name} for ${allowance(limit, upgrade.limits[limit])}.` : "";
}

/**
 * Whether the plan the workspace has at `now` (effectivePlan: an unpaid, paused or ended subscription
 * counts as Free) includes `feature`: assertPlanFeature's test, for work that stops quietly instead of
 * answering a 402 (e.g. an outbound webhook delivery of a workspace that lost API access).
 */
export function hasPlanFeature(workspace: PlanHolder, feature: PlanFeature, now = new Date()): boolean {
  return PLANS[effectivePlan(workspace, now)].features[feature];
}

/**
 * Feature gate of spec section 9, for the plan the workspace has at `now` (`effectivePlan`).
 * @throws AppError PAYMENT_REQUIRED naming the feature and the cheapest plan that includes it ("SMS
 *   and voice campaigns are not included in your Free plan. Upgrade to Professional to use SMS and
 *   voice campaigns."); for a paid plan held by an unpaid or paused subscription (HELD_STATUSES) the
 *   hold and the payment that restores it instead ("... not included in your Free plan, which applies
 *   while your Business subscription is unpaid. Pay the open invoice in Settings > Billing to restore
 *   them."). Details: `{feature, planRefusal}` (featureRefusal).
 */
export function assertPlanFeature(workspace: PlanHolder, feature: PlanFeature, now = new Date()): void {
  if (hasPlanFeature(workspace, feature, now)) return;
  const plan = PLANS[effectivePlan(workspace, now)];
  const upgrade = planWithFeature(feature);
  const singular = feature === "apiAccess" || feature === "premiumEditor";
  const refused = `${FEATURE_WORDS[feature]} ${singular ? "is" : "are"} not included in your ${plan.name} plan`;
  const held = plan.id === "free" ? heldPlanOf(workspace) : null;
  if (held) {
    const action = payAction(workspace.subscriptionStatus ?? "");
    const upgradeAfter = PLANS[held].features[feature] ? null : planWithFeature(feature);
    throw new AppError(
      "PAYMENT_REQUIRED",
      `${refused}, which applies while your ${PLANS[held].name} subscription is ${workspace.subscriptionStatus}. ` +
        (upgradeAfter
          ? `${action} to restore your ${PLANS[held].name} plan, then upgrade to ${upgradeAfter.name} to use ${lowerFirst(FEATURE_WORDS[feature])}.`
          : `${action} to restore ${singular ? "it" : "them"}.`),
      { feature, planRefusal: featureRefusal(workspace, feature, now) },
    );
  }
  throw new AppError(
    "PAYMENT_REQUIRED",
    `${refused}.` +
      (upgrade ? ` Upgrade to ${upgrade.name} to use ${lowerFirst(FEATURE_WORDS[feature])}.` : ""),
    { feature, planRefusal: featureRefusal(workspace, feature, now) },
  );
}

/**
 * The seats a workspace holds (spec section 9 "team members"), as workspaces counts them
 * (countWorkspaceSeats): its members, owner included, and its pending invitations (not accepted,
 * revoked or expired), which hold a seat each.
 */
export interface SeatsHeld {
  members: number;
  pending: number;
}

/** "1 pending invitation", "3 members": `n` of `word` with its plural. */
function countOf(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? word : `${word}s`}`;
}

/**
 * The words a seats refusal or notice uses for `seats` and the `excess` to remove: `held` "2 members
 * and 1 pending invitation" (without pending invitations "2 members"), `remove` "3 members or
 * invitations" ("3 members"), and whether invitations are pending.
 */
function seatsWords(seats: SeatsHeld, excess: number): { held: string; remove: string; pending: boolean } {
  const pending = seats.pending > 0;
  return {
    held: pending
      ? `${countOf(seats.members, "member")} and ${countOf(seats.pending, "pending invitation")}`
      : countOf(seats.members, "member"),
    remove: pending
      ? `${countOf(excess, "member")} or invitation${excess === 1 ? "" : "s"}`
      : countOf(excess, "member"),
    pending,
  };
}

/**
 * What a plan change to `target` would leave over its seats: how many members and pending invitations
 * the workspace holds (`used`), the target plan's seats (`max`, null = unlimited) and how many are too
 * many (`excess`, 0 when they fit).
 */
export function seatsExcess(
  target: PlanId,
  seats: SeatsHeld,
): { used: number; max: number | null; excess: number } {
  const used = seats.members + seats.pending;
  const max = PLANS[target].limits.seats;
  return { used, max, excess: max === null ? 0 : Math.max(0, used - max) };
}

/**
 * The seat rule of a plan change the workspace asks us for (a checkout or the local portal's plan
 * change; billing.service createCheckout, localPortalChangePlan): it may move to `target` only while
 * its members plus pending invitations (`seats`) fit the target plan's seats, as GitHub and HubSpot
 * refuse a downgrade below the seats in use (members are never removed by a plan change). `ws` is the
 * workspace as it is (the refusal's `plan` / `held_plan`). A change made where we do not decide (Stripe's
 * hosted portal, a failed payment or a refund ending the plan) still lands: seatsOverPlan then reports
 * the workspace over its seats.
 * @throws AppError CONFLICT (409): "Professional includes 1 team member; this workspace has 4. Remove 3
 *   members in Settings > Team before switching." (with pending invitations: "...; this workspace has 4
 *   (2 members and 2 pending invitations). Remove 3 members or invitations in Settings > Team before
 *   switching."). Details: `{limit: "seats", used, max, planRefusal}`, the refusal's action
 *   "remove_members" with `target_plan` and `excess`.
 */
export function assertSeatsFitPlan(ws: PlanHolder, target: PlanId, seats: SeatsHeld, now = new Date()): void {
  const { used, max, excess } = seatsExcess(target, seats);
  if (max === null || excess === 0) return;
  const plan = PLANS[target];
  const words = seatsWords(seats, excess);
  throw new AppError(
    "CONFLICT",
    `${plan.name} includes ${max.toLocaleString("en-US")} ${LIMIT_WORDS.seats.unit(max)}; this workspace has ` +
      `${used.toLocaleString("en-US")}${words.pending ? ` (${words.held})` : ""}. Remove ${words.remove} in Settings > Team before switching.`,
    {
      limit: "seats",
      used,
      max,
      planRefusal: {
        action: "remove_members",
        plan: effectivePlan(ws, now),
        held_plan: heldPlanOf(ws),
        suggested_plan: null,
        limit: "seats",
        target_plan: target,
        excess,
      } satisfies SeatsChangeRefusal,
    },
  );
}

/** A workspace holding more seats than its plan includes (seatsOverPlan). */
export interface SeatsOver {
  /** members plus pending invitations */
  used: number;
  /** the plan's seats */
  limit: number;
  /** how many members or invitations to remove */
  excess: number;
  /** the plan whose seats are exceeded */
  plan: PlanId;
  /**
   * "This workspace has 4 members; Professional includes 1. Remove 3 members or upgrade." (with
   * pending invitations: "This workspace has 2 members and 2 pending invitations; Professional
   * includes 1. Remove 3 members or invitations, or upgrade.")
   */
  sentence: string;
}

/**
 * Whether the workspace holds more seats (`seats`) than its plan includes, after a downgrade we did not
 * decide (Stripe's hosted portal, a failed payment or a refund ending the plan: the subscription
 * webhook applies it whatever the seats), or null when they fit. The plan is the one in force at `now`
 * (effectivePlan), except that a paid plan held by an unpaid or paused subscription is read as that
 * plan: its payment, not a removal, is what brings its seats back (the held plan's own notices say so),
 * so such a workspace is over only when the held plan's seats are exceeded too. New invitations stay
 * refused meanwhile (assertWithinPlan on seats, in workspaces); nobody loses access.
 */
export function seatsOverPlan(ws: PlanHolder, seats: SeatsHeld, now = new Date()): SeatsOver | null {
  const plan = heldPlanOf(ws) ?? effectivePlan(ws, now);
  const { used, max, excess } = seatsExcess(plan, seats);
  if (max === null || excess === 0) return null;
  const words = seatsWords(seats, excess);
  return {
    used,
    limit: max,
    excess,
    plan,
    sentence:
      `This workspace has ${words.held}; ${PLANS[plan].name} includes ${max.toLocaleString("en-US")}. ` +
      `Remove ${words.remove}${words.pending ? ", or upgrade." : " or upgrade."}`,
  };
}
