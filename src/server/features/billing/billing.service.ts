import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { inTransaction } from "../../db/reserved";
import type { Workspace } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { ProviderError } from "../../providers/errors";
import type { PaidPlanId, PaymentEvent, SubscriptionState } from "../../providers/payments";
import { WebhookSignatureError } from "../../providers/payments";
import { LocalPaymentsProvider, type SignedEvent } from "../../providers/payments/local";
import { getUserProfiles } from "../user/user.service";
import {
  assertCan,
  can,
  type Tenant,
  withSeatChangesHeld,
  workspaceSeatsOf,
} from "../workspaces/workspaces.service";
import { usageWarningJob } from "./billing.jobs";
import {
  assertPlanFeature,
  assertSeatsFitPlan,
  assertWithinPlan,
  effectivePlan,
  HELD_STATUSES,
  heldPlanOf,
  includesPhrase,
  limitRefusal,
  METERS,
  type Meter,
  moreSentence,
  PLAN_IDS,
  PLANS,
  type PlanFeature,
  type PlanHolder,
  type PlanId,
  type PlanLimitRefusal,
  type PlanRefusal,
  planRefusalOf,
  type SeatsHeld,
  seatsOverPlan,
} from "./billing.plans";
import * as q from "./billing.queries";

export { effectivePlan, METERS, type Meter };

type Ctx = Pick<AppContext, "db" | "env" | "providers" | "log" | "jobs">;

/** Spec section 9: 14-day money-back guarantee, counted from the first payment. Milliseconds. */
export const MONEY_BACK_MS = 14 * 24 * 60 * 60 * 1000;

export const PAID_PLAN_IDS = [
  "professional",
  "business",
  "enterprise",
] as const satisfies readonly PaidPlanId[];

/** The vendor price id configured for a paid plan (STRIPE_PRICE_*; defaults are the spec's ids). */
export function priceIdOf(env: AppContext["env"], plan: PaidPlanId): string {
  return {
    professional: env.STRIPE_PRICE_PROFESSIONAL,
    business: env.STRIPE_PRICE_BUSINESS,
    enterprise: env.STRIPE_PRICE_ENTERPRISE,
  }[plan];
}

/** The paid plan whose configured (or spec) price id is `priceId`, or null. */
export function planOfPrice(env: AppContext["env"], priceId: string | null): PaidPlanId | null {
  if (!priceId) return null;
  return PAID_PLAN_IDS.find((p) => priceIdOf(env, p) === priceId || PLANS[p].priceId === priceId) ?? null;
}

/** Whether the local test checkout pages are served (always outside production; LOCAL_CHECKOUT_ENABLED in it). */
export function localCheckoutEnabled(env: AppContext["env"]): boolean {
  return env.PAYMENTS_PROVIDER === "local" && (!env.isProduction || env.LOCAL_CHECKOUT_ENABLED);
}

/** UTC month arithmetic: `d` moved by `n` calendar months (day clamped to the month's length). */
export function addMonths(d: Date, n: number): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const out = new Date(d);
  out.setUTCFullYear(y, m, Math.min(d.getUTCDate(), last));
  return out;
}

/**
 * The billing period holding `now` (issue 12): on a paid plan the subscription's monthly period
 * (anchored on `current_period_end`), on Free the calendar month (UTC). `start` is inclusive, `end`
 * exclusive.
 */
export function billingPeriod(
  ws: Pick<Workspace, "plan" | "cancelAtPeriodEnd" | "currentPeriodEnd" | "subscriptionStatus">,
  now = new Date(),
): { start: Date; end: Date } {
  if (effectivePlan(ws, now) !== "free" && ws.currentPeriodEnd) {
    let end = ws.currentPeriodEnd;
    while (end.getTime() <= now.getTime()) end = addMonths(end, 1);
    let start = addMonths(end, -1);
    while (start.getTime() > now.getTime()) {
      end = start;
      start = addMonths(end, -1);
    }
    return { start, end };
  }
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { start, end: addMonths(start, 1) };
}

/**
 * The workspace row a plan check reads: the one the caller already holds (the request's tenant loaded
 * it when the request began: no second read) or, given an id, a fresh read.
 */
async function billingRowOf(ctx: Pick<AppContext, "db">, workspace: string | Workspace): Promise<Workspace> {
  return typeof workspace === "string" ? loadBillingWorkspace(ctx, workspace) : workspace;
}

/**
 * Loads a workspace's billing row, applying the lazy period-end fallback (written back once). A plan
 * held by an unpaid or paused subscription (billing.plans HELD_STATUSES) is not written back: it
 * counts as Free (effectivePlan) but stays stored, as the plan a payment restores. The fallback is
 * written only onto the row as it was read (q.updateBilling's ifVersion): a webhook that wrote the row
 * meanwhile (a renewal, the cancel taken back) is not overwritten, and the row as it now is is returned.
 * Read inside a transaction (`ctx.db` a drizzle transaction or db/reserved openTransactionDb: a
 * reschedule's, a resend's, a launch with inline rows), the fallback is applied to the row returned
 * but not written: that UPDATE would hold the workspace row's lock until the commit, and two such
 * transactions, which hold the row FOR SHARE (workspaces assertWorkspaceNotBeingDeleted) or the
 * contact-creation lock, would each wait for the other (Postgres aborts one: a deadlock). Such callers
 * read once on the pool before their transaction (campaigns rescheduleCampaign, resendFailed,
 * createAndLaunchCampaign), which writes it in its own one-statement transaction.
 * @throws AppError NOT_FOUND 'Workspace not found.'
 */
export async function loadBillingWorkspace(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<Workspace> {
  const read = await q.findBillingWorkspaceVersion(ctx.db, workspaceId);
  if (!read) throw new AppError("NOT_FOUND", "Workspace not found.");
  const ws = read.row;
  if (ws.plan !== "free" && effectivePlan(ws) === "free" && !isHeld(ws)) {
    const fallback = {
      plan: "free",
      subscriptionStatus: "canceled",
      subscriptionTier: null,
      cancelAtPeriodEnd: false,
    } as const;
    // in a transaction: applied, not written (see above; the next read on the pool writes it)
    if (inTransaction(ctx.db)) return { ...ws, ...fallback };
    const updated = await q.updateBilling(ctx.db, ws.id, fallback, { ifVersion: read.version });
    if (updated) return updated;
    // written meanwhile: the row as it now is (its own fallback, if still due, is written next time)
    const now = await q.findBillingWorkspace(ctx.db, ws.id);
    if (!now) throw new AppError("NOT_FOUND", "Workspace not found.");
    return now;
  }
  return ws;
}

/** Whether the workspace's paid plan is held by an unpaid or paused subscription (HELD_STATUSES). */
function isHeld(ws: Pick<Workspace, "subscriptionStatus">): boolean {
  return ws.subscriptionStatus != null && HELD_STATUSES.has(ws.subscriptionStatus);
}

// ---------------------------------------------------------------- plans and checkout

/**
 * The four plan cards of /pricing (spec section 2, 9), with the workspace's current plan marked.
 * `held_plan` / `held_plan_name`: the paid plan an `unpaid` or `paused` subscription holds (the
 * workspace counts as Free until it is paid in the billing portal, where a plan choice also leads:
 * createCheckout), null otherwise.
 */
export async function listPlans(ctx: Pick<AppContext, "db" | "env">, tenant: Tenant) {
  const ws = await loadBillingWorkspace(ctx, tenant.workspaceId);
  const current = effectivePlan(ws);
  const held = heldPlanOf(ws);
  return {
    current,
    status: ws.subscriptionStatus,
    held_plan: held,
    held_plan_name: held ? PLANS[held].name : null,
    can_manage_billing: tenant.role === "owner",
    plans: PLAN_IDS.map((id) => ({
      id,
      name: PLANS[id].name,
      price_usd: PLANS[id].priceMonthlyUsd,
      price_id: id === "free" ? null : priceIdOf(ctx.env, id),
      highlights: PLANS[id].highlights,
      most_popular: id === "professional",
      current: id === current,
    })),
  };
}

/** Who reads a plan refusal: whether they may pay or change the plan. */
interface RefusalActor {
  /**
   * whether this person may act on `action` in Settings > Billing (pay, or change the plan): only the
   * workspace owner may (workspaces PERMISSIONS manageBilling); an admin or member is told to ask them
   */
  actor_can_pay: boolean;
}

/** A PlanRefusal (billing.plans) as the person who met it reads it. */
export type PlanRefusalDetail = PlanRefusal & RefusalActor;

/**
 * The structured plan refusal an error carries (billing.plans planRefusalOf: a 402 of assertWithinPlan
 * or assertPlanFeature, a 409 of assertSeatsFitPlan) for a member of `role` (null: nobody signed in, who can pay nothing), or null
 * when `err` is no plan refusal. What the REST error handler sends as `plan_refusal` and the tRPC error
 * formatter as `data.planRefusal`.
 */
export function planRefusalFor(
  err: unknown,
  role: Tenant["role"] | null | undefined,
): PlanRefusalDetail | null {
  return withActor(planRefusalOf(err), role);
}

/**
 * Whether a member of `role` may pay for or change the workspace's plan (workspaces PERMISSIONS
 * manageBilling: the owner only); false for nobody signed in. The `actor_can_pay` of plan refusals
 * and of billing.usage.
 */
function actorCanPay(role: Tenant["role"] | null | undefined): boolean {
  return role ? can(role, "manageBilling") : false;
}

function withActor<R extends PlanRefusal>(
  refusal: R | null,
  role: Tenant["role"] | null | undefined,
): (R & RefusalActor) | null {
  return refusal ? { ...refusal, actor_can_pay: actorCanPay(role) } : null;
}

async function ensureCustomer(ctx: Ctx, ws: Workspace): Promise<string> {
  if (ws.stripeCustomerId) return ws.stripeCustomerId;
  const id = await ctx.providers.payments.createCustomer({
    workspaceId: ws.id,
    email: await ownerEmail(ctx, ws),
    name: ws.name,
  });
  return (await q.claimCustomerId(ctx.db, ws.id, id)) ?? id;
}

async function ownerEmail(ctx: Pick<AppContext, "db">, ws: Workspace): Promise<string> {
  const owner = (await getUserProfiles(ctx, [ws.ownerId])).get(ws.ownerId);
  return owner?.email ?? "";
}

/**
 * Sets the payments vendor customer's email (Stripe: receipts, failed-payment emails, invoices, the
 * billing portal) to the owner's current account address, for one workspace (`{ workspaceId }`,
 * after an ownership transfer) or every workspace an account owns (`{ ownerId }`, after its address
 * changed). The customer was made with the owner's address (createCheckout's ensureCustomer) and
 * the vendor keeps it until told otherwise. A workspace without a customer yet has nothing to
 * update (its customer will be made with the owner's address then); nor has one whose owner's
 * account is gone. The address is read now, not taken from the caller, so a retried or late call
 * sends the current one. Work of the `billing.sync-customer-email` job (billing.jobs.ts), which
 * callers enqueue after their change commits. Returns how many customers were updated.
 * @throws ProviderError from the vendor (all customers are sent again on a retry: the update is
 *   idempotent)
 */
export async function syncCustomerEmail(
  ctx: Pick<AppContext, "db" | "providers">,
  target: { workspaceId: string } | { ownerId: string },
): Promise<number> {
  const rows =
    "workspaceId" in target
      ? [await q.findBillingWorkspace(ctx.db, target.workspaceId)]
      : await q.findCustomerWorkspacesOwnedBy(ctx.db, target.ownerId);
  const withCustomer = rows.filter((w): w is NonNullable<typeof w> & { stripeCustomerId: string } =>
    Boolean(w?.stripeCustomerId),
  );
  if (withCustomer.length === 0) return 0;
  const owners = await getUserProfiles(ctx, [...new Set(withCustomer.map((w) => w.ownerId))]);
  let updated = 0;
  for (const w of withCustomer) {
    const owner = owners.get(w.ownerId);
    if (!owner) continue;
    await ctx.providers.payments.updateCustomer(w.stripeCustomerId, { email: owner.email });
    updated++;
  }
  return updated;
}

function providerFailure(e: unknown, what: string): never {
  if (e instanceof ProviderError)
    throw new AppError("BAD_GATEWAY", `${what} failed at the payment provider. Please try again.`);
  throw e;
}

/**
 * Starts a checkout for a paid plan (spec section 7 `POST /api/payment/create-checkout-session`).
 * `priceId` must be the plan's price (the configured STRIPE_PRICE_* or the spec's `price_<plan>`);
 * the server charges its configured price whatever the client sent. A workspace that already has a
 * live subscription gets the billing portal instead (plan changes there are prorated), and so does one
 * whose subscription is held (`unpaid` or `paused`, HELD_STATUSES): that subscription still exists at
 * the provider, so a second checkout would make a second subscription for one workspace; Stripe's
 * guidance is the portal, where the open invoice is paid or a payment method added, which resumes it.
 * Returns `{ url, portal }` to redirect the browser to: `portal` true when `url` is the billing
 * portal rather than a checkout.
 * Choosing a plan other than the one the subscription holds (the plan in force, or a held one) is a
 * plan change, refused while the workspace's members and pending invitations exceed that plan's seats
 * (billing.plans assertSeatsFitPlan): nothing is started, neither checkout nor portal. Allowed, a plan
 * change of a subscription in force opens the portal on the confirmation of that plan only (Stripe's
 * subscription_update_confirm deep link; the local portal's `?plan=`), not on its home page where
 * another plan could be picked.
 * @throws AppError FORBIDDEN (not the owner), BAD_REQUEST (unknown plan or price, current plan),
 *   CONFLICT (too many members for the plan: "Professional includes 1 team member; this workspace has
 *   4. Remove 3 members in Settings > Team before switching."), BAD_GATEWAY (provider down)
 */
export async function createCheckout(ctx: Ctx, tenant: Tenant, input: { priceId: string; planName: string }) {
  assertCan(tenant, "manageBilling");
  if (ctx.env.PAYMENTS_PROVIDER === "local" && !localCheckoutEnabled(ctx.env))
    throw new AppError(
      "BAD_REQUEST",
      "Online payments are not set up on this server yet. Please contact support.",
    );
  const plan = PAID_PLAN_IDS.find((p) => p === input.planName.toLowerCase());
  if (!plan)
    throw new AppError(
      "BAD_REQUEST",
      `There is no paid plan called '${input.planName}'. Choose Professional, Business or Enterprise.`,
    );
  if (input.priceId !== priceIdOf(ctx.env, plan) && input.priceId !== PLANS[plan].priceId)
    throw new AppError(
      "BAD_REQUEST",
      `That price does not belong to the ${PLANS[plan].name} plan. Please reload the page and try again.`,
    );
  const ws = await loadBillingWorkspace(ctx, tenant.workspaceId);
  const current = effectivePlan(ws);
  const live = ws.stripeSubscriptionId && ws.subscriptionStatus !== "canceled" && current !== "free";
  if (live && current === plan && !ws.cancelAtPeriodEnd)
    throw new AppError("BAD_REQUEST", `You are already on the ${PLANS[plan].name} plan.`);
  const held = Boolean(ws.stripeSubscriptionId) && isHeld(ws);
  // paying for the plan a subscription already holds (a held one, or taking back a cancel) changes no plan
  const holds = held ? heldPlanOf(ws) : live ? current : null;
  if (plan !== holds) assertSeatsFitPlan(ws, plan, await workspaceSeatsOf(ctx, ws.id));
  try {
    const customerId = await ensureCustomer(ctx, ws);
    if (live || held) {
      // a plan change of a subscription in force opens on the confirmation of the plan chosen (and
      // checked) here; paying a held one, or taking back a cancel, on the portal's home page
      const change =
        live && !held && plan !== holds && ws.stripeSubscriptionId
          ? { subscriptionId: ws.stripeSubscriptionId, plan, priceId: priceIdOf(ctx.env, plan) }
          : undefined;
      const { url } = await ctx.providers.payments.createPortalSession({
        customerId,
        returnUrl: `${ctx.env.APP_URL}/pricing`,
        ...(change ? { planChange: change } : {}),
      });
      return { url, portal: true };
    }
    const { url } = await ctx.providers.payments.createCheckoutSession({
      workspaceId: ws.id,
      customerId,
      plan,
      planName: PLANS[plan].name,
      amountCents: PLANS[plan].priceMonthlyUsd * 100,
      priceId: priceIdOf(ctx.env, plan),
      successUrl: `${ctx.env.APP_URL}/pricing?success=true&session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${ctx.env.APP_URL}/pricing?canceled=true`,
    });
    return { url, portal: false };
  } catch (e) {
    providerFailure(e, "Starting the checkout");
  }
}

/**
 * The billing portal for the workspace's customer (`POST /api/payment/portal`): card, invoices,
 * plan change, cancel. Returns `{ url }`.
 * @throws AppError FORBIDDEN (not the owner), BAD_REQUEST (never subscribed), BAD_GATEWAY
 */
export async function createPortal(ctx: Ctx, tenant: Tenant) {
  assertCan(tenant, "manageBilling");
  const ws = await loadBillingWorkspace(ctx, tenant.workspaceId);
  if (!ws.stripeCustomerId)
    throw new AppError(
      "BAD_REQUEST",
      "There is no subscription to manage yet. Choose a plan on the Pricing page first.",
    );
  try {
    return await ctx.providers.payments.createPortalSession({
      customerId: ws.stripeCustomerId,
      returnUrl: `${ctx.env.APP_URL}/settings?tab=billing`,
    });
  } catch (e) {
    providerFailure(e, "Opening the billing portal");
  }
}

// ---------------------------------------------------------------- webhooks

/** What applying one event did (for logs and tests). */
export interface WebhookOutcome {
  eventId: string;
  duplicate: boolean;
  workspaceId: string | null;
  plan?: PlanId;
  refunded?: boolean;
  /**
   * set when the event's subscription was a second live one of a workspace that has a live one
   * (endSecondSubscription): its id, and whether it was ended and refunded
   */
  secondSubscription?: { id: string; ended: boolean };
  /**
   * set when the event was about a workspace this deployment deleted (applyDeletedWorkspaceEvent):
   * the workspace, and the subscription that was still charging and has now been ended (null if none)
   */
  deletedWorkspace?: { id: string; endedSubscription: string | null };
}

/**
 * `POST /api/webhooks/stripe` (and the local checkout's signed events): verifies the signature on the
 * raw body (300 s tolerance), then applies the event once (its id is stored; a redelivery or replay
 * changes nothing). Events are applied by re-reading the subscription from the provider, so the
 * workspace converges on the provider's current state whatever order events arrive in.
 * Handles checkout.session.completed, customer.subscription.created|updated|deleted|paused|resumed,
 * invoice.paid, invoice.payment_failed; other types are stored and ignored.
 * @throws AppError BAD_REQUEST for a missing, forged or stale signature
 */
export async function handlePaymentWebhook(
  ctx: Ctx,
  rawBody: string | Buffer,
  signature: string | undefined,
): Promise<WebhookOutcome> {
  let event: PaymentEvent;
  try {
    event = ctx.providers.payments.parseWebhook(rawBody, signature);
  } catch (e) {
    if (e instanceof WebhookSignatureError) throw new AppError("BAD_REQUEST", e.message);
    throw new AppError("BAD_REQUEST", "The webhook body is not a valid event.");
  }
  return applyPaymentEvent(ctx, event);
}

const HANDLED = new Set([
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed",
  "invoice.paid",
  "invoice.payment_failed",
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Attempts of applyPaymentEvent when other writes keep overtaking its read of the subscription. */
const APPLY_ATTEMPTS = 8;

/** Thrown inside applyPaymentEvent's transaction to roll it back and read the subscription again. */
class StaleRead extends Error {}

/**
 * Applies a verified event once (see handlePaymentWebhook). Stripe delivers events concurrently and
 * retries them late, so a delivery that re-read the subscription before a change must not write that
 * older state over a newer one another delivery wrote meanwhile (an invoice.paid read while active,
 * written after the customer.subscription.deleted read as canceled, would keep a plan Stripe ended).
 * Optimistic concurrency on the workspace row: its version (Postgres `xmin`, q.findBillingWorkspaceVersion)
 * is read before the subscription and checked again under the row lock before writing; when any write
 * to the row came in between, the transaction rolls back (the event is not stored) and the subscription
 * is read again, up to APPLY_ATTEMPTS times. The provider is read outside any transaction, so no
 * database connection waits on it (the local provider reads its subscriptions through the same pool).
 * @throws AppError BAD_GATEWAY when the provider cannot be reached, CONFLICT when the workspace kept
 *   changing on every attempt (nothing stored either way: the provider redelivers)
 */
export async function applyPaymentEvent(ctx: Ctx, event: PaymentEvent): Promise<WebhookOutcome> {
  if (await q.eventSeen(ctx.db, event.id)) return { eventId: event.id, duplicate: true, workspaceId: null };
  // the workspace: the id we sent (client_reference_id / metadata), else the customer's workspace
  let found =
    event.workspaceId && UUID.test(event.workspaceId)
      ? await q.findBillingWorkspace(ctx.db, event.workspaceId)
      : null;
  if (!found && event.customerId) found = await q.findWorkspaceByCustomer(ctx.db, event.customerId);
  if (!found) {
    // a workspace this deployment deleted: its subscription, if one was made since, must not charge
    const gone = await q.findDeletedWorkspace(
      ctx.db,
      event.workspaceId && UUID.test(event.workspaceId) ? event.workspaceId : null,
      event.customerId,
    );
    if (gone) return applyDeletedWorkspaceEvent(ctx, event, gone.workspaceId);
  }
  const workspaceId = found?.id ?? null;
  for (let attempt = 1; ; attempt++) {
    const read = workspaceId ? await q.findBillingWorkspaceVersion(ctx.db, workspaceId) : null;
    const subscriptionId = event.subscriptionId ?? read?.row.stripeSubscriptionId ?? null;
    let state: SubscriptionState | null = null;
    if (read && HANDLED.has(event.type) && subscriptionId) {
      try {
        state = await ctx.providers.payments.retrieveSubscription(subscriptionId);
      } catch (e) {
        // not stored: the provider redelivers and we try again
        webhookProviderFailure(e);
      }
    }
    let outcome: WebhookOutcome;
    try {
      outcome = await ctx.db.transaction(async (tx): Promise<WebhookOutcome> => {
        // the row lock first: the event's insert below references the workspace (a key-share lock of
        // the row), and two events each holding that while waiting for the row lock would deadlock
        const current =
          read && state ? await q.findBillingWorkspaceVersion(tx, read.row.id, { forUpdate: true }) : null;
        // another write since the subscription was read: read it again (rolls the event back)
        if (current && current.version !== read?.version) throw new StaleRead();
        const locked = current?.row ?? null;
        const fresh = await q.recordEvent(tx, {
          id: event.id,
          provider: ctx.providers.payments.name,
          type: event.type,
          workspaceId: read?.row.id ?? null,
        });
        if (!fresh) return { eventId: event.id, duplicate: true, workspaceId: read?.row.id ?? null };
        if (!read || !state)
          return { eventId: event.id, duplicate: false, workspaceId: read?.row.id ?? null };
        if (!locked) return { eventId: event.id, duplicate: false, workspaceId: null };
        // a customer whose id we did not store yet (checkout raced the customer write)
        if (!locked.stripeCustomerId && state.customerId)
          await q.updateBilling(tx, locked.id, { stripeCustomerId: state.customerId });
        if (isSecondLiveSubscription(locked, state)) {
          ctx.log.warn({ workspaceId: locked.id, subscriptionId: state.id }, "second live subscription");
          return {
            eventId: event.id,
            duplicate: false,
            workspaceId: locked.id,
            secondSubscription: { id: state.id, ended: false },
          };
        }
        const applied = await applySubscriptionState(ctx, tx, locked, state);
        return {
          eventId: event.id,
          duplicate: false,
          workspaceId: locked.id,
          plan: applied ? effectivePlan(applied) : undefined,
        };
      });
    } catch (e) {
      if (!(e instanceof StaleRead)) throw e;
      if (attempt < APPLY_ATTEMPTS) {
        // a short random pause, so events of one workspace arriving together stop overtaking each other
        await new Promise((r) => setTimeout(r, Math.random() * 25 * attempt));
        continue;
      }
      throw new AppError(
        "CONFLICT",
        "The workspace's billing changed while this event was applied. Please deliver it again.",
      );
    }
    if (outcome.secondSubscription && workspaceId) {
      const ended = await endSecondSubscription(
        ctx,
        workspaceId,
        outcome.secondSubscription.id,
        state?.priceId ?? null,
      );
      return { ...outcome, secondSubscription: { id: outcome.secondSubscription.id, ended } };
    }
    if (!outcome.duplicate && workspaceId && state) {
      const refunded = await maybeMoneyBack(ctx, workspaceId, state);
      return { ...outcome, refunded };
    }
    return outcome;
  }
}

/**
 * Whether `state` is a live subscription other than the workspace's current one while that one is live
 * too: a second subscription to one workspace, paid through a checkout opened before the first was
 * (two tabs, a double click; createCheckout sends a workspace with a live subscription to the portal,
 * so only such checkouts can make one). It can grant nothing (one plan per workspace).
 */
function isSecondLiveSubscription(ws: Workspace, state: SubscriptionState): boolean {
  if (!LIVE.has(state.status) || !ws.stripeSubscriptionId || ws.stripeSubscriptionId === state.id)
    return false;
  return Boolean(ws.subscriptionStatus && LIVE.has(ws.subscriptionStatus) && ws.plan !== "free");
}

/**
 * Ends a second live subscription of a workspace (isSecondLiveSubscription) now and refunds its latest
 * payment in full: it grants nothing, so it must not go on charging the customer. The workspace keeps
 * its current subscription and plan (a plan change is made in the billing portal). This refund is not
 * the 14-day money-back guarantee: nothing is stored in billing_refunds, so the guarantee stays for the
 * real subscription. Both provider calls are idempotent per subscription (a redelivered event of the
 * same subscription repeats them harmlessly). Returns true when it was ended; a provider failure is
 * logged and retried on the subscription's next event (its re-read shows it still live).
 */
async function endSecondSubscription(
  ctx: Ctx,
  workspaceId: string,
  subscriptionId: string,
  priceId: string | null,
): Promise<boolean> {
  try {
    const refund = await refundAndEndNow(ctx, subscriptionId, true);
    ctx.log.warn({ workspaceId, subscriptionId, refund }, "second subscription ended and refunded");
    await tellOwnerSecondRefunded(ctx, workspaceId, subscriptionId, priceId, refund?.amountCents ?? null);
    return true;
  } catch (e) {
    ctx.log.error({ err: e, workspaceId, subscriptionId }, "ending a second subscription failed");
    return false;
  }
}

/**
 * Emails the owner of workspace `workspaceId` that the subscription `subscriptionId` (of price
 * `priceId`, as the event's read of it gave) their second checkout made was ended and its payment
 * (`amountCents`, null when nothing was charged) refunded,
 * because the workspace already had a paid plan, and where plans are changed instead (Billing). The
 * success page says the same (checkoutResult); the email reaches an owner who paid with Stripe and
 * left before its events arrived. A failure to send is logged: the refund stands either way.
 */
async function tellOwnerSecondRefunded(
  ctx: Ctx,
  workspaceId: string,
  subscriptionId: string,
  priceId: string | null,
  amountCents: number | null,
): Promise<void> {
  try {
    const ws = await loadBillingWorkspace(ctx, workspaceId);
    const owner = (await getUserProfiles(ctx, [ws.ownerId])).get(ws.ownerId);
    if (!owner) return;
    const paidFor = planOfPrice(ctx.env, priceId);
    const current = PLANS[effectivePlan(ws)].name;
    const what = paidFor ? `${PLANS[paidFor].name} payment` : "second payment";
    const money = amountCents ? ` ($${(amountCents / 100).toFixed(2)})` : "";
    await ctx.providers.email.send({
      to: owner.email,
      subject: `Your ${what} for ${ws.name} was refunded`,
      text:
        `Hi ${owner.name},\n\n${ws.name} already has the ${current} plan, so the ${what}${money} ` +
        "made through a second checkout was refunded in full and that subscription ended. Nothing else changed.\n\n" +
        `To change plans, open Billing: ${ctx.env.APP_URL}/settings?tab=billing\n`,
      tag: "billing-second-refund",
      workspaceId,
      metadata: { kind: "billing-second-refund", subscription_id: subscriptionId },
    });
  } catch (e) {
    ctx.log.warn({ err: e, workspaceId, subscriptionId }, "the second-payment refund email was not sent");
  }
}

/**
 * What a checkout the owner just returned from did (`/pricing?success=true&session_id=...`): read
 * from the payments vendor (retrieveCheckoutSession) and the workspace, so the page says what
 * happened instead of assuming the payment made the plan. Returns `{ status }`:
 * - `"active"` with `plan_name`: the session's subscription is the workspace's;
 * - `"refunded"` with `plan_name` (what was paid for, when known) and `current_plan_name`: a second
 *   checkout of a workspace that had a paid plan, ended and refunded (endSecondSubscription);
 * - `"pending"`: not paid yet, or its events are not applied yet (ask again in a moment).
 * @throws AppError FORBIDDEN (not the owner: who may pay, manageBilling); NOT_FOUND when the vendor
 *   does not know the session or it belongs to another workspace; BAD_GATEWAY when the vendor
 *   cannot be reached.
 */
export async function checkoutResult(ctx: Ctx, tenant: Tenant, sessionId: string) {
  assertCan(tenant, "manageBilling");
  const vendor = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (e) {
      ctx.log.warn({ err: e, sessionId }, "a checkout session could not be read");
      throw new AppError(
        "BAD_GATEWAY",
        "We could not check this payment with the payment provider. Check Billing for your plan.",
      );
    }
  };
  const session = await vendor(() => ctx.providers.payments.retrieveCheckoutSession(sessionId));
  if (!session || session.workspaceId !== tenant.workspaceId)
    throw new AppError("NOT_FOUND", "This payment was not found for this workspace.");
  if (!session.complete || !session.subscriptionId) return { status: "pending" as const };
  const ws = await loadBillingWorkspace(ctx, tenant.workspaceId);
  if (ws.stripeSubscriptionId === session.subscriptionId)
    return { status: "active" as const, plan_name: PLANS[effectivePlan(ws)].name };
  // another subscription holds the workspace: this one's state says whether it was ended as a second
  const subscriptionId = session.subscriptionId;
  const state = await vendor(() => ctx.providers.payments.retrieveSubscription(subscriptionId));
  const paidFor = planOfPrice(ctx.env, state?.priceId ?? null);
  if (state?.status === "canceled" && ws.stripeSubscriptionId)
    return {
      status: "refunded" as const,
      plan_name: paidFor ? PLANS[paidFor].name : null,
      current_plan_name: PLANS[effectivePlan(ws)].name,
    };
  return { status: "pending" as const };
}

/**
 * Refunds the latest payment of subscription `subscriptionId` in full (when `refund`) and cancels
 * it now: a subscription that grants nothing (a second one of a workspace, one of a deleted
 * workspace). Both vendor calls are idempotent per subscription. Returns the refund, if any.
 * @throws ProviderError when the vendor cannot be reached
 */
async function refundAndEndNow(ctx: Ctx, subscriptionId: string, refund: boolean) {
  const refunded = refund ? await ctx.providers.payments.refundLatestPayment(subscriptionId) : null;
  await ctx.providers.payments.cancelSubscriptionNow(subscriptionId);
  return refunded;
}

/** The 502 of a payment webhook whose subscription could not be read or changed: not recorded, so the vendor delivers it again. */
function webhookProviderFailure(e: unknown): never {
  if (e instanceof ProviderError)
    throw new AppError("BAD_GATEWAY", "The payment provider could not be reached.");
  throw e;
}

/**
 * Ends the workspace's subscription now, before the workspace is deleted (features/account), so its
 * customer is never charged again for a workspace that no longer exists: the vendor's current state
 * is read and, unless it has already ended, cancelled at once (Stripe "Cancel a subscription",
 * DELETE /v1/subscriptions/{id}: no further invoices, automatic collection of open ones stops). No
 * refund: what was paid covered the period until now (the 14-day guarantee is asked for by cancelling
 * from the billing portal first). Nothing to do without a subscription. The vendor customer and its
 * invoices are kept (the vendor's receipts and tax records). The subscription's later events find no
 * workspace and are recorded and answered 200 (applyPaymentEvent). Returns the id of the subscription
 * it found ended or ended (null without one), for endSubscriptionAfterDeletion.
 * @throws AppError BAD_GATEWAY when the vendor cannot be reached: the caller then deletes nothing.
 */
export async function endSubscriptionForDeletion(ctx: Ctx, workspaceId: string): Promise<string | null> {
  const ws = await q.findBillingWorkspace(ctx.db, workspaceId);
  if (!ws?.stripeSubscriptionId) return null;
  try {
    const state = await ctx.providers.payments.retrieveSubscription(ws.stripeSubscriptionId);
    if (state && state.status !== "canceled") {
      await ctx.providers.payments.cancelSubscriptionNow(state.id);
      ctx.log.info({ workspaceId, subscriptionId: state.id }, "subscription ended: workspace deleted");
    }
    return ws.stripeSubscriptionId;
  } catch (e) {
    if (e instanceof ProviderError)
      throw new AppError(
        "BAD_GATEWAY",
        "The payment provider could not be reached to end this workspace's subscription, so nothing was deleted. Please try again in a minute.",
      );
    throw e;
  }
}

/**
 * In the transaction that deletes workspace `workspaceId` (workspaces deleteOwnedWorkspace's
 * `beforeDelete`, features/account): remembers its vendor customer and current subscription
 * (billing_deleted_workspaces), so a subscription made for it later, or one a checkout made while it
 * was being deleted, is ended (applyDeletedWorkspaceEvent, endSubscriptionAfterDeletion).
 */
export async function rememberDeletedWorkspace(db: DbOrTx, workspaceId: string): Promise<void> {
  const ws = await q.findBillingWorkspace(db, workspaceId);
  await q.insertDeletedWorkspace(db, {
    workspaceId,
    stripeCustomerId: ws?.stripeCustomerId ?? null,
    stripeSubscriptionId: ws?.stripeSubscriptionId ?? null,
  });
}

/**
 * Ends a subscription that still charges for a deleted workspace: refunds its latest payment in full
 * when it is live (it grants nothing: there is no workspace to have a plan) and cancels it now. Both
 * vendor calls are idempotent per subscription. Returns whether there was one to end.
 * @throws ProviderError when the vendor cannot be reached
 */
async function endDeletedWorkspaceSubscription(
  ctx: Ctx,
  workspaceId: string,
  subscriptionId: string,
): Promise<boolean> {
  const state = await ctx.providers.payments.retrieveSubscription(subscriptionId);
  if (!state || state.status === "canceled") return false;
  const refund = await refundAndEndNow(ctx, state.id, LIVE.has(state.status));
  ctx.log.warn(
    { workspaceId, subscriptionId: state.id, refund },
    "subscription of a deleted workspace ended and refunded",
  );
  return true;
}

/**
 * An event about a workspace this deployment deleted (billing_deleted_workspaces by the event's
 * workspace id or customer): a checkout opened before the deletion and paid after it (another tab)
 * makes a subscription no workspace holds, which Stripe would go on charging every month. It is
 * ended and its payment refunded (endDeletedWorkspaceSubscription); then the event is recorded. A
 * workspace of another deployment sharing the vendor account is never in the table, so its
 * subscriptions are left alone.
 * @throws AppError BAD_GATEWAY when the vendor cannot be reached (nothing recorded: it redelivers)
 */
async function applyDeletedWorkspaceEvent(
  ctx: Ctx,
  event: PaymentEvent,
  workspaceId: string,
): Promise<WebhookOutcome> {
  let ended: string | null = null;
  if (HANDLED.has(event.type) && event.subscriptionId) {
    try {
      if (await endDeletedWorkspaceSubscription(ctx, workspaceId, event.subscriptionId))
        ended = event.subscriptionId;
    } catch (e) {
      webhookProviderFailure(e);
    }
  }
  const fresh = await q.recordEvent(ctx.db, {
    id: event.id,
    provider: ctx.providers.payments.name,
    type: event.type,
    workspaceId: null,
  });
  return {
    eventId: event.id,
    duplicate: !fresh,
    workspaceId: null,
    deletedWorkspace: { id: workspaceId, endedSubscription: ended },
  };
}

/**
 * After workspace `workspaceId` was deleted (features/account, after rememberDeletedWorkspace
 * committed): ends the subscription it held at that moment if it still charges. endSubscriptionForDeletion
 * ended the one it had when the deletion began (`alreadyEnded`, its return: not asked about again); a
 * checkout paid while the deletion ran (its campaigns' cancels can take seconds) could have given it a
 * new one. A vendor failure is logged: that subscription's next event ends it (applyDeletedWorkspaceEvent).
 */
export async function endSubscriptionAfterDeletion(
  ctx: Ctx,
  workspaceId: string,
  alreadyEnded: string | null,
): Promise<void> {
  const gone = await q.findDeletedWorkspace(ctx.db, workspaceId, null);
  if (!gone?.stripeSubscriptionId || gone.stripeSubscriptionId === alreadyEnded) return;
  try {
    await endDeletedWorkspaceSubscription(ctx, workspaceId, gone.stripeSubscriptionId);
  } catch (e) {
    ctx.log.error({ err: e, workspaceId }, "ending a deleted workspace's subscription failed");
  }
}

const LIVE = new Set(["active", "trialing", "past_due"]);

/**
 * Writes a subscription's current state onto its workspace: a live one (active, trialing, past_due:
 * Stripe keeps retrying a past_due payment, so access stays) sets the plan of its price, status,
 * period end, cancel-at-period-end, tier 'premium' and the first payment time; an unpaid or paused one
 * (retries exhausted / a trial ended without a payment method: Stripe's documented "revoke access")
 * keeps the plan of its price stored with that status, so the workspace counts as Free (effectivePlan)
 * and shows why, and keeps its subscription and customer ids, so a payment (a live status again)
 * restores the plan; a canceled one falls back to Free. A subscription that is not the workspace's
 * current one and not live is ignored (an old subscription's late event never undoes a newer one).
 */
async function applySubscriptionState(
  ctx: Ctx,
  tx: Parameters<typeof q.updateBilling>[0],
  ws: Workspace,
  state: SubscriptionState,
): Promise<Workspace | null> {
  const isCurrent = !ws.stripeSubscriptionId || ws.stripeSubscriptionId === state.id;
  if (LIVE.has(state.status)) {
    const plan = planOfPrice(ctx.env, state.priceId);
    if (!plan) {
      ctx.log.warn({ priceId: state.priceId, workspaceId: ws.id }, "subscription price matches no plan");
      return null;
    }
    // a live subscription replaces a dead current one, never a live one it is not (applyPaymentEvent
    // ends such a second one: endSecondSubscription)
    if (!isCurrent && isSecondLiveSubscription(ws, state)) {
      ctx.log.warn({ workspaceId: ws.id, subscriptionId: state.id }, "second live subscription ignored");
      return null;
    }
    return q.updateBilling(tx, ws.id, {
      plan,
      subscriptionStatus: state.status,
      subscriptionTier: "premium",
      currentPeriodEnd: state.currentPeriodEnd,
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      stripeSubscriptionId: state.id,
      stripeCustomerId: ws.stripeCustomerId ?? state.customerId,
      firstPaidAt: ws.firstPaidAt ?? (state.status === "trialing" ? null : new Date()),
    });
  }
  if (!isCurrent) return null;
  if (HELD_STATUSES.has(state.status))
    return q.updateBilling(tx, ws.id, {
      plan: planOfPrice(ctx.env, state.priceId) ?? ws.plan,
      subscriptionStatus: state.status,
      subscriptionTier: null,
      currentPeriodEnd: state.currentPeriodEnd,
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      stripeSubscriptionId: state.id,
      stripeCustomerId: ws.stripeCustomerId ?? state.customerId,
    });
  if (state.status === "canceled")
    return q.updateBilling(tx, ws.id, {
      plan: "free",
      subscriptionStatus: "canceled",
      subscriptionTier: null,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: state.currentPeriodEnd,
      stripeSubscriptionId: state.id,
    });
  // incomplete: the first payment has not gone through; nothing is granted
  return q.updateBilling(tx, ws.id, { stripeSubscriptionId: state.id });
}

/**
 * Spec section 9 "14-day money-back guarantee": when the owner cancels (cancel at period end, or an
 * immediate cancel) within 14 days of the workspace's first payment, the latest payment is refunded
 * in full and the subscription ends now (plan back to Free). Once per workspace. The 14 days are
 * counted to when the cancel was asked for (`state.canceledAt`, Stripe's `canceled_at`; now when the
 * provider does not say), so a webhook Stripe retried for days still refunds a cancel made in time.
 * Returns true when this call refunded.
 */
async function maybeMoneyBack(ctx: Ctx, workspaceId: string, state: SubscriptionState): Promise<boolean> {
  const canceling = state.cancelAtPeriodEnd && LIVE.has(state.status);
  if (!canceling) return false;
  const ws = await q.findBillingWorkspace(ctx.db, workspaceId);
  if (!ws || ws.stripeSubscriptionId !== state.id) return false;
  // the time the owner asked to cancel, not the time its (possibly late, retried) webhook is applied
  const askedAt = Math.min(state.canceledAt?.getTime() ?? Date.now(), Date.now());
  if (!(await moneyBackOnCancel(ctx, ws, askedAt))) return false;
  try {
    const refund = await ctx.providers.payments.refundLatestPayment(state.id);
    const ended = await ctx.providers.payments.cancelSubscriptionNow(state.id);
    if (refund)
      await q.insertRefund(ctx.db, {
        workspaceId,
        provider: ctx.providers.payments.name,
        subscriptionId: state.id,
        refundId: refund.refundId,
        amountCents: refund.amountCents,
      });
    // the ended state is the newest there is (applyPaymentEvent's version check makes an event that
    // read the subscription before this cancel read it again rather than write over it)
    await ctx.db.transaction(async (tx) => {
      const locked = await q.findBillingWorkspace(tx, workspaceId, { forUpdate: true });
      if (locked) await applySubscriptionState(ctx, tx, locked, ended);
    });
    ctx.log.info({ workspaceId, subscriptionId: state.id, refund }, "money-back refund");
    return Boolean(refund);
  } catch (e) {
    // the cancel itself stands; the refund is retried on the next event of this subscription
    ctx.log.error({ err: e, workspaceId }, "money-back refund failed");
    return false;
  }
}

// ---------------------------------------------------------------- local checkout and portal

/** The local provider, or NOT_FOUND when payments are not local or the test checkout is off. */
export function localPayments(ctx: Pick<AppContext, "env" | "providers">): LocalPaymentsProvider {
  const p = ctx.providers.payments;
  if (!(p instanceof LocalPaymentsProvider) || !localCheckoutEnabled(ctx.env))
    throw new AppError("NOT_FOUND", "The test checkout is not available on this server.");
  return p;
}

/**
 * Redeliveries of a local event whose application conflicted (applyPaymentEvent's CONFLICT: the
 * workspace kept changing on each of its attempts, e.g. a dozen plan changes of one workspace at
 * once). Stripe answers our 409 by delivering the event again later; the local provider has no one to
 * do that for it, so deliverLocal does, after LOCAL_REDELIVERY_MS x 2^n plus up to as much at random.
 */
const LOCAL_REDELIVERIES = 6;
const LOCAL_REDELIVERY_MS = 50;

/**
 * Feeds the local provider's signed events, in order, through the same code as Stripe's webhook,
 * each delivered again (up to LOCAL_REDELIVERIES times, well inside the signature's 300 s tolerance)
 * when it conflicted with other writes to the workspace, as Stripe redelivers: the person who chose a
 * plan in the local portal must not be told to "deliver it again", nor the workspace be left on the
 * old plan while its subscription holds the new one.
 * @throws AppError as handlePaymentWebhook, CONFLICT only when every redelivery conflicted too.
 */
async function deliverLocal(ctx: Ctx, events: SignedEvent[]) {
  for (const e of events)
    for (let n = 0; ; n++) {
      try {
        await handlePaymentWebhook(ctx, e.payload, e.signature);
        break;
      } catch (err) {
        if (!(err instanceof AppError && err.code === "CONFLICT") || n >= LOCAL_REDELIVERIES) throw err;
        const wait = LOCAL_REDELIVERY_MS * 2 ** n;
        await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
      }
    }
}

/**
 * Pays a local checkout session with a test card (`POST /local-checkout/{session}`). On success the
 * signed checkout.session.completed and invoice.paid events are applied through the webhook code and
 * the success URL is returned; on a decline the sentence to show on the page.
 */
export async function payLocalCheckout(ctx: Ctx, sessionId: string, cardNumber: string) {
  const local = localPayments(ctx);
  const result = await local.payCheckoutSession(sessionId, cardNumber);
  if (!result.ok) return result;
  await deliverLocal(ctx, result.events);
  return { ok: true as const, redirect: result.session.successUrl };
}

/**
 * The local portal's view of the workspace's subscription: the row, the provider's subscription, the
 * plan in force and the plan an unpaid or paused subscription holds (null when none is held).
 */
export async function localPortalState(ctx: Ctx, tenant: Tenant) {
  assertCan(tenant, "manageBilling");
  const local = localPayments(ctx);
  const ws = await loadBillingWorkspace(ctx, tenant.workspaceId);
  const sub = ws.stripeSubscriptionId ? await local.retrieveSubscription(ws.stripeSubscriptionId) : null;
  return { ws, sub, plan: effectivePlan(ws), heldPlan: heldPlanOf(ws) };
}

/**
 * The 14-day money-back rule (spec section 9): whether a cancel asked for at `askedAt` (ms since the
 * epoch, default now) is refunded and ends at once: within MONEY_BACK_MS of the workspace's first
 * payment, and no money-back refund yet (once per workspace). maybeMoneyBack applies it; the local
 * portal's cancel confirmation says which of the two a cancel now does.
 */
export async function moneyBackOnCancel(
  ctx: Pick<AppContext, "db">,
  ws: Pick<Workspace, "id" | "firstPaidAt">,
  askedAt = Date.now(),
): Promise<boolean> {
  if (!ws.firstPaidAt || askedAt - ws.firstPaidAt.getTime() > MONEY_BACK_MS) return false;
  return !(await q.findRefundOfWorkspace(ctx.db, ws.id));
}

/** Local portal cancel: ends at period end (refunded and ended now within the 14-day guarantee). */
export async function localPortalCancel(ctx: Ctx, tenant: Tenant) {
  const { ws, sub } = await localPortalState(ctx, tenant);
  if (!sub || sub.status === "canceled" || !ws.stripeCustomerId)
    throw new AppError("BAD_REQUEST", "There is no active subscription to cancel.");
  const ev = await localPayments(ctx).scheduleCancel(sub.id, ws.stripeCustomerId);
  if (ev) await deliverLocal(ctx, [ev]);
}

/**
 * Local portal "Renew plan": takes back a cancel at period end (localPortalCancel after the 14 days),
 * so the subscription renews on its plan again, as Stripe's portal offers for a subscription set to
 * cancel. Applied through the webhook code like every local portal action.
 * @throws AppError FORBIDDEN (not the owner), BAD_REQUEST when the subscription is not set to cancel
 */
export async function localPortalRenew(ctx: Ctx, tenant: Tenant) {
  const { ws, sub } = await localPortalState(ctx, tenant);
  // resumeCancel changes only a live subscription set to cancel (and answers null otherwise)
  const ev =
    sub && ws.stripeCustomerId ? await localPayments(ctx).resumeCancel(sub.id, ws.stripeCustomerId) : null;
  if (!ev)
    throw new AppError(
      "BAD_REQUEST",
      "This subscription is not set to cancel, so there is nothing to take back.",
    );
  await deliverLocal(ctx, [ev]);
}

/**
 * Local portal payment of a held (`unpaid` or `paused`) subscription with a test card: the subscription
 * is active again and its plan restored through the webhook code, as a payment in Stripe's portal does.
 * @throws AppError BAD_REQUEST (nothing held to pay), PAYMENT_REQUIRED (the card is refused: its sentence)
 */
export async function localPortalPay(ctx: Ctx, tenant: Tenant, cardNumber: string) {
  const { ws, sub } = await localPortalState(ctx, tenant);
  if (!sub || !HELD_STATUSES.has(sub.status) || !ws.stripeCustomerId)
    throw new AppError("BAD_REQUEST", "This subscription has no open payment to make.");
  const result = await localPayments(ctx).payHeldSubscription(sub.id, ws.stripeCustomerId, cardNumber);
  if (!result.ok) throw new AppError("PAYMENT_REQUIRED", result.message);
  await deliverLocal(ctx, result.events);
}

/**
 * Local portal plan change (immediate, like Stripe's prorated change). Refused while the workspace's
 * members and pending invitations exceed the new plan's seats (billing.plans assertSeatsFitPlan), as
 * the checkout path refuses it. The check and the delivery of the change's event run under the
 * workspace's seat-change lock (workspaces withSeatChangesHeld), so no invitation slips in between.
 * @throws AppError BAD_REQUEST (unknown plan, no subscription, or a held one: pay it first), CONFLICT
 *   (too many members for the plan, with the sentence saying how many to remove in Settings > Team)
 */
export async function localPortalChangePlan(ctx: Ctx, tenant: Tenant, planName: string) {
  const plan = PAID_PLAN_IDS.find((p) => p === planName);
  if (!plan) throw new AppError("BAD_REQUEST", "Choose Professional, Business or Enterprise.");
  // the seat check and the plan's delivery under the seat-change lock: an invitation sent meanwhile
  // is refused for that moment (without it both passed their checks: the invitation against the old plan)
  await withSeatChangesHeld(ctx, tenant.workspaceId, () => changeLocalPlan(ctx, tenant, plan));
}

/** localPortalChangePlan's work, under the workspace's seat-change lock. */
async function changeLocalPlan(ctx: Ctx, tenant: Tenant, plan: PaidPlanId) {
  const { ws, sub } = await localPortalState(ctx, tenant);
  if (!sub || sub.status === "canceled" || !ws.stripeCustomerId)
    throw new AppError(
      "BAD_REQUEST",
      "There is no active subscription to change. Choose a plan on the Pricing page.",
    );
  if (HELD_STATUSES.has(sub.status))
    throw new AppError(
      "BAD_REQUEST",
      "This subscription is unpaid or paused. Pay to resume it first, then change the plan.",
    );
  if (plan !== effectivePlan(ws)) assertSeatsFitPlan(ws, plan, await workspaceSeatsOf(ctx, ws.id));
  const ev = await localPayments(ctx).changePlan(sub.id, ws.stripeCustomerId, {
    plan,
    priceId: priceIdOf(ctx.env, plan),
    amountCents: PLANS[plan].priceMonthlyUsd * 100,
  });
  if (ev) await deliverLocal(ctx, [ev]);
}

// ---------------------------------------------------------------- usage meters and limits

/** The monthly meters (spec section 9): each counts in the workspace's billing period. */

/** Usage reaching this share of a limit warns the owner (spec section 9: 80 %). */
export const WARNING_SHARE = 0.8;

/** A reservation made by `reserveUsage`, to give back with `releaseUsage` if the work is not done. */
export interface Reservation {
  workspaceId: string;
  meter: Meter;
  periodStart: Date;
  amount: number;
  /**
   * Set when a reservation made inside the caller's transaction crossed the 80 % warning line: the
   * caller sends the warning after its commit with `sendUsageWarningIfDue` (a rolled-back launch warns
   * nobody). Absent otherwise.
   */
  warning?: { used: number; limit: number };
}

/**
 * The one check before work is accepted (issue 12): checks the plan's feature (when given) and
 * reserves `amount` of a monthly meter in the current billing period atomically, so concurrent
 * requests together never pass the limit. `workspace` is the workspace's id, or its row when the caller
 * already holds it (a request's tenant): then the check is one statement, the meter's conditional upsert.
 *
 * Two ways to run it:
 * - on its own (no `opts.tx`): the upsert commits at once (asynchronously flushed, see
 *   `q.reserveMeter`); the caller gives it back with `releaseUsage` if its work fails; the
 *   once-per-period 80 % warning email (a job) is claimed and sent here.
 * - inside the caller's transaction (`opts.tx`, what a campaign launch does): the reservation commits or
 *   rolls back with the work it pays for, so nothing is ever given back by hand; it holds the meter
 *   row's lock until that commit (concurrent launches of one workspace queue on it, which is what keeps
 *   them under the limit). The statement can be pipelined with the transaction's first write, so the
 *   check costs the launch no round trip of its own. A crossed warning line is returned in
 *   `reservation.warning` for `sendUsageWarningIfDue` after the commit.
 * @throws AppError PAYMENT_REQUIRED (402) with the plan's sentence, e.g. "Your Free plan includes 100
 *   emails a month; this needs 250 and 30 are left. Upgrade to Professional for unlimited emails."
 */
export async function reserveUsage(
  ctx: Pick<AppContext, "db" | "jobs">,
  workspace: string | Workspace,
  meter: Meter,
  amount: number,
  opts: { feature?: PlanFeature; now?: Date; tx?: DbOrTx } = {},
): Promise<Reservation> {
  const db = opts.tx ?? ctx.db;
  const ws = await billingRowOf(ctx, workspace);
  const workspaceId = ws.id;
  const now = opts.now ?? new Date();
  if (opts.feature) assertPlanFeature(ws, opts.feature, now);
  const period = billingPeriod(ws, opts.now);
  const key = { workspaceId, meter, periodStart: period.start };
  const reservation: Reservation = { ...key, amount };
  if (amount <= 0) return reservation;
  const max = PLANS[effectivePlan(ws, now)].limits[meter];
  const row =
    max !== null && amount > max
      ? null
      : await q.reserveMeter(db, key, amount, max, { asyncCommit: !opts.tx });
  if (!row) {
    const used =
      (await q.meterUsage(db, workspaceId, period.start)).find((r) => r.meter === meter)?.used ?? 0;
    assertWithinPlan(ws, meter, amount, used, now);
    // the limit moved between the two reads: refuse rather than pass it
    throw new AppError(
      "PAYMENT_REQUIRED",
      "Your plan's limit was reached by another request. Please try again.",
    );
  }
  if (max !== null && max > 0 && !row.warnedAt && row.used >= Math.ceil(max * WARNING_SHARE)) {
    reservation.warning = { used: row.used, limit: max };
    if (!opts.tx) await sendUsageWarningIfDue(ctx, reservation);
  }
  return reservation;
}

/**
 * Sends the owner's once-per-period 80 % warning (a job; spec section 9) for a reservation that crossed
 * the line (`reservation.warning`), claiming it first so it goes out once per workspace, meter and
 * period. Call after the transaction that made the reservation committed. No-op without a warning.
 */
export async function sendUsageWarningIfDue(ctx: Pick<AppContext, "db" | "jobs">, r: Reservation) {
  if (!r.warning) return;
  if (await q.claimWarning(ctx.db, r))
    await ctx.jobs.send(usageWarningJob, {
      workspaceId: r.workspaceId,
      meter: r.meter,
      used: r.warning.used,
      limit: r.warning.limit,
    });
}

/** Gives back a reservation whose work was not accepted after all (never below zero). */
export async function releaseUsage(ctx: Pick<AppContext, "db">, r: Reservation): Promise<void> {
  if (r.amount > 0) await q.releaseMeter(ctx.db, r, r.amount);
}

/**
 * A campaign as its metering needs it: whose it is, its channel (planRuleOfChannel: the meter and
 * feature), when it was launched, and the start of the billing period whose meter holds the units of
 * its messages not sent yet (`meterPeriodStart`, set at launch; null for campaigns launched before it
 * was recorded: then the period its launch fell in, as read with the plan now).
 */
export interface CampaignMetering {
  workspaceId: string;
  channel: string;
  launchedAt: Date;
  meterPeriodStart: Date | null;
}

/** The period start whose meter holds `c`'s unsent units (CampaignMetering). */
function reservationPeriodOf(ws: Workspace, c: CampaignMetering): Date {
  return c.meterPeriodStart ?? billingPeriod(ws, c.launchedAt).start;
}

/**
 * The start of the billing period a campaign launched now and sending at `sendsAt` (its scheduled
 * time, or now) reserves its messages in: the period `sendsAt` falls in, as the workspace's plan and
 * subscription read now foresee it (a scheduled campaign's messages count in the month they are sent
 * in, not the month they were scheduled in). What `reserveUsage(..., { now: sendsAt })` reserves in.
 */
export function launchPeriodStart(ws: Workspace, sendsAt: Date): Date {
  return billingPeriod(ws, sendsAt).start;
}

/** What `chargeCampaignSend` allowed for a part of a campaign's messages about to be sent. */
export interface CampaignCharge {
  /** how many of the messages asked for may be sent now */
  allowed: number;
  /**
   * set when fewer than asked are allowed: why, the plan's sentence (the campaign pauses with it
   * after sending the allowed ones)
   */
  stop: string | null;
  /**
   * set when the campaign's units were reserved in another period than the current one (a
   * scheduled time or a month boundary passed, a plan change moved the periods): `allowed` units were
   * reserved in the current period (`to`) for this part; settleCampaignSend moves the sent ones'
   * units out of `from` and gives the unsent ones' back to `to`
   */
  moved?: { from: Date; to: Date; meter: Meter };
  /**
   * when a campaign `stop` paused may go on, for the pause's sentence: "after upgrading", or "once
   * your subscription is paid" for a paid plan held by an unpaid or paused subscription
   */
  resume: string;
}

/**
 * The plan's answer, now, for `wanted` messages of a campaign about to be sent (billing period and
 * plan as they are now; spec section 9). `pending` counts the campaign's unsent messages whose units
 * are still reserved (the send engine passes its queued ones plus the `wanted` ones: a part another
 * worker is sending counts as spent, so concurrent parts never pass the limit together, at worst they
 * stop a little short of it; asked only when the limit is not unlimited and the units are in the
 * current period). Three cases:
 * - the plan no longer includes the channel's feature (a downgrade since the launch): none allowed;
 * - the units are in the current period: the campaign may send while what the meter holds besides its
 *   own unsent units stays within the plan's limit (`max - (used - pending)`), so a downgrade to a
 *   smaller limit in the same period stops it at that limit, not before;
 * - the units are in another period: this part's units are reserved in the current period as far as
 *   the limit allows (atomically, so concurrent parts never pass it) and must be settled with
 *   `settleCampaignSend` once the part's outcomes are recorded.
 * When fewer than `wanted` are allowed, `stop` says why, e.g. "Your Free plan includes 100 emails a
 * month and 100 are already used or reserved this billing period. Upgrade to Professional for
 * unlimited emails." (the number is the current period's meter, as the usage screen shows it).
 */
export async function chargeCampaignSend(
  ctx: Pick<AppContext, "db">,
  c: CampaignMetering,
  pending: () => Promise<number>,
  wanted: number,
  now = new Date(),
): Promise<CampaignCharge> {
  const ws = await loadBillingWorkspace(ctx, c.workspaceId);
  const plan = PLANS[effectivePlan(ws, now)];
  const rule = planRuleOfChannel(c.channel);
  // a paid plan held by an unpaid or paused subscription comes back with a payment, not an upgrade
  const resume = plan.id === "free" && heldPlanOf(ws) ? "once your subscription is paid" : "after upgrading";
  const excluded = channelExcluded(ws, rule, now);
  if (excluded) return { allowed: 0, stop: excluded.sentence, resume };
  if (wanted <= 0) return { allowed: 0, stop: null, resume };
  const max = plan.limits[rule.meter];
  const current = billingPeriod(ws, now).start;
  const from = reservationPeriodOf(ws, c);
  const usedNow = async () =>
    (await q.meterUsage(ctx.db, c.workspaceId, current)).find((r) => r.meter === rule.meter)?.used ?? 0;
  const stopSentence = (used: number) => meterFullSentence(ws, rule.meter, used, now);
  if (from.getTime() === current.getTime()) {
    if (max === null) return { allowed: wanted, stop: null, resume };
    const used = await usedNow();
    const allowed = Math.max(0, Math.min(wanted, max - (used - (await pending()))));
    return { allowed, stop: allowed < wanted ? stopSentence(used) : null, resume };
  }
  // the units are in another period: reserve this part's in the current one, as many as fit
  const key = { workspaceId: c.workspaceId, meter: rule.meter, periodStart: current };
  const moved = { from, to: current, meter: rule.meter };
  // (a first reservation of the period inserts its row unconditionally: never ask past the limit)
  let ask = max === null ? wanted : Math.min(wanted, max);
  for (let attempt = 0; attempt < 5 && ask > 0; attempt++) {
    if (await q.reserveMeter(ctx.db, key, ask, max, { asyncCommit: false }))
      return { allowed: ask, stop: ask < wanted ? stopSentence(await usedNow()) : null, moved, resume };
    // max is not null here (an unlimited reservation always succeeds)
    ask = Math.min(wanted, Math.max(0, (max ?? 0) - (await usedNow())));
  }
  return { allowed: 0, stop: stopSentence(await usedNow()), moved, resume };
}

/**
 * Settles a part `chargeCampaignSend` reserved in the current period (`charge.moved`) once its
 * outcomes are recorded: the `sent` messages now count in the current period, so their launch units
 * leave the reservation period; the allowed ones not sent (failed, skipped, retried later, released by
 * a pause) give their current-period units back (theirs stay in the reservation period until sent,
 * or given back by the send engine and the cancel as before). No-op for a part that moved nothing.
 */
export async function settleCampaignSend(
  ctx: Pick<AppContext, "db">,
  c: CampaignMetering,
  charge: CampaignCharge,
  sent: number,
): Promise<void> {
  if (!charge.moved) return;
  const { from, to, meter } = charge.moved;
  if (sent > 0) await q.releaseMeter(ctx.db, { workspaceId: c.workspaceId, meter, periodStart: from }, sent);
  const unsent = charge.allowed - sent;
  if (unsent > 0)
    await q.releaseMeter(ctx.db, { workspaceId: c.workspaceId, meter, periodStart: to }, unsent);
}

/** Why a campaign may not go on sending: the plan's sentence and the same refusal as data. */
export interface CampaignPlanStop {
  sentence: string;
  refusal: PlanLimitRefusal;
}

/**
 * Why a campaign may not go on sending under the workspace's plan as it is now (a downgrade since the
 * launch, or a paid plan now held by an unpaid or paused subscription), or null when it may:
 * chargeCampaignSend's answer for one more of its `pending` unsent messages, without reserving
 * anything. `sentence` is the plan's ("SMS and voice campaigns are not included in your Free plan.
 * Upgrade to ...", "Your Free plan includes 100 emails a month and 100 are already used ..."),
 * `refusal` the same as data (billing.plans featureRefusal / limitRefusal). Asked by a resume (a
 * campaign the plan stopped resumes only once the plan allows it again).
 */
export async function campaignPlanStop(
  ctx: Pick<AppContext, "db">,
  c: CampaignMetering,
  pending: number,
  now = new Date(),
): Promise<CampaignPlanStop | null> {
  const ws = await loadBillingWorkspace(ctx, c.workspaceId);
  const plan = PLANS[effectivePlan(ws, now)];
  const rule = planRuleOfChannel(c.channel);
  const excluded = channelExcluded(ws, rule, now);
  if (excluded) return excluded;
  const max = plan.limits[rule.meter];
  if (max === null || pending <= 0) return null;
  const current = billingPeriod(ws, now).start;
  const used =
    (await q.meterUsage(ctx.db, c.workspaceId, current)).find((r) => r.meter === rule.meter)?.used ?? 0;
  // the campaign's own unsent units count only when they are in this period's meter
  const own = reservationPeriodOf(ws, c).getTime() === current.getTime() ? pending : 0;
  if (used - own < max) return null;
  return {
    sentence: meterFullSentence(ws, rule.meter, used, now),
    refusal: limitRefusal(ws, rule.meter, used, now),
  };
}

/**
 * Where more of a campaign's channel comes from, for `role`'s view of the report of a campaign its plan
 * paused: the refusal of the channel's feature when the plan at `now` lacks it (featureRefusal), else
 * of one message past the channel's monthly limit (limitRefusal: pay for a held plan, or upgrade), with
 * `actor_can_pay` for that reader (PlanRefusalDetail); null when the plan now has no limit on it (the
 * campaign may simply be resumed). The pause's stored sentence says what the plan was when it paused;
 * this is decided from the plan as it is now, so the report links to Settings > Billing or /pricing
 * (or tells a non-owner who can) without reading the sentence.
 */
export async function campaignPlanRefusal(
  ctx: Pick<AppContext, "db">,
  c: Pick<CampaignMetering, "workspaceId" | "channel">,
  role: Tenant["role"],
  now = new Date(),
): Promise<PlanRefusalDetail | null> {
  const ws = await loadBillingWorkspace(ctx, c.workspaceId);
  const rule = planRuleOfChannel(c.channel);
  const excluded = channelExcluded(ws, rule, now);
  if (excluded) return withActor(excluded.refusal, role);
  const max = PLANS[effectivePlan(ws, now)].limits[rule.meter];
  return max === null ? null : withActor(limitRefusal(ws, rule.meter, max + 1, now), role);
}

/**
 * The sentence of a campaign channel the workspace's plan at `now` does not include (assertPlanFeature's,
 * e.g. "SMS and voice campaigns are not included in your Free plan. Upgrade to ...", or for a held
 * plan the payment that restores it) with its refusal (featureRefusal), or null when it does.
 */
function channelExcluded(
  ws: Workspace,
  rule: ReturnType<typeof planRuleOfChannel>,
  now: Date,
): CampaignPlanStop | null {
  if (!rule.feature) return null;
  try {
    assertPlanFeature(ws, rule.feature, now);
    return null;
  } catch (e) {
    const refusal = planRefusalOf(e);
    // assertPlanFeature refuses with a feature refusal (never a plan change's seats)
    if (e instanceof AppError && refusal && refusal.action !== "remove_members")
      return { sentence: e.message, refusal };
    throw e;
  }
}

/**
 * Why a campaign stops at its meter's limit under the workspace's plan at `now`: "Your {plan} plan
 * includes {limit} {units} a month and {used} are already used or reserved this billing period." and
 * the upgrade sentence; for a paid plan held by an unpaid or paused subscription the hold and the
 * payment that restores it (billing.plans includesPhrase, moreSentence).
 */
function meterFullSentence(ws: Workspace, meter: Meter, used: number, now: Date): string {
  return (
    `${includesPhrase(ws, meter, now)} and ${used.toLocaleString("en-US")} are already used or reserved ` +
    `this billing period.${moreSentence(ws, meter, used, now)}`
  );
}

/**
 * Moves `amount` reserved units of a campaign to the current billing period when its reservation
 * period is another one (a "resend to failed" in a later period than the launch's: the requeued
 * messages are reserved in the current period, so the campaign's other unsent ones move there too
 * and the campaign's reservation period becomes the current one). Runs in the caller's transaction
 * (`tx`). Returns the period start that now holds the campaign's unsent units.
 */
export async function moveCampaignReservation(
  ctx: Pick<AppContext, "db">,
  c: CampaignMetering,
  amount: number,
  tx: DbOrTx,
  now = new Date(),
): Promise<Date> {
  const ws = await loadBillingWorkspace(ctx, c.workspaceId);
  const current = billingPeriod(ws, now).start;
  const from = reservationPeriodOf(ws, c);
  if (from.getTime() === current.getTime() || amount <= 0) return current;
  const meter = planRuleOfChannel(c.channel).meter;
  await q.releaseMeter(tx, { workspaceId: c.workspaceId, meter, periodStart: from }, amount);
  await q.reserveMeter(tx, { workspaceId: c.workspaceId, meter, periodStart: current }, amount, null, {
    asyncCommit: false,
  });
  return current;
}

/**
 * Moves a scheduled campaign's `amount` unsent units to the billing period its new send time
 * `sendsAt` falls in (campaigns rescheduleCampaign), in the caller's transaction `tx`: reserved there
 * first under the plan's limit at that time, as a launch scheduled for `sendsAt` would be
 * (reserveUsage with `now: sendsAt`), then given back in the period that held them
 * (`meterPeriodStart`). Nothing moves when both are one period. Returns the period start that then
 * holds them and the reservation made (for sendUsageWarningIfDue after the commit), if any. Every
 * statement, the workspace's billing read included, runs in `tx` (none on `ctx.db`).
 * @throws AppError PAYMENT_REQUIRED with the plan's sentence when they do not fit that period.
 */
export async function moveScheduledReservation(
  ctx: Pick<AppContext, "db" | "jobs">,
  c: CampaignMetering,
  amount: number,
  sendsAt: Date,
  tx: DbOrTx,
): Promise<{ periodStart: Date; reservation?: Reservation }> {
  // read in `tx` (a second pooled connection per call could starve the pool); a lapsed plan's
  // fallback to Free is applied, not written there (loadBillingWorkspace): the caller holds the
  // workspace row FOR SHARE, and two callers' UPDATEs of that row would deadlock
  const ws = await loadBillingWorkspace({ db: tx as AppContext["db"] }, c.workspaceId);
  const from = reservationPeriodOf(ws, c);
  const to = launchPeriodStart(ws, sendsAt);
  if (from.getTime() === to.getTime() || amount <= 0) return { periodStart: to };
  const meter = planRuleOfChannel(c.channel).meter;
  const reservation = await reserveUsage(ctx, ws, meter, amount, { tx, now: sendsAt });
  await q.releaseMeter(tx, { workspaceId: c.workspaceId, meter, periodStart: from }, amount);
  return { periodStart: to, reservation };
}

/**
 * Gives back `amount` units of a campaign's launch reservation for messages that were not sent after
 * all: recipients skipped or failed when sending, or still queued when the campaign was cancelled
 * (campaigns are metered on launch and settled on outcome). The units go back to the meter of the
 * campaign's reservation period (`meterPeriodStart`; for a campaign launched before it was recorded,
 * the period its launch fell in as read with the plan now). Never below zero.
 */
export async function releaseCampaignUsage(
  ctx: Pick<AppContext, "db">,
  campaign: CampaignMetering,
  amount: number,
): Promise<void> {
  if (amount <= 0) return;
  const ws = await loadBillingWorkspace(ctx, campaign.workspaceId);
  await q.releaseMeter(
    ctx.db,
    {
      workspaceId: campaign.workspaceId,
      meter: planRuleOfChannel(campaign.channel).meter,
      periodStart: reservationPeriodOf(ws, campaign),
    },
    amount,
  );
}

/**
 * Feature gate of spec section 9 for the workspace's current plan (`workspace`: its id, or the row the
 * caller already holds, then no query is made).
 * @throws AppError PAYMENT_REQUIRED naming the feature and the plan that includes it
 */
export async function assertWorkspaceFeature(
  ctx: Pick<AppContext, "db">,
  workspace: string | Workspace,
  feature: PlanFeature,
) {
  const ws = await billingRowOf(ctx, workspace);
  assertPlanFeature(ws, feature);
}

/**
 * The workspace's contact limit (spec section 9, issue 12), read once so that the CRM can check it
 * where it counts its contacts: under its per-workspace contact-creation lock, in the transaction
 * that inserts them (crm.contacts.ts, crm.import.ts). `max` is the plan's number of contacts (null =
 * unlimited), `reason` the sentence import rows refused by the limit get (null when unlimited).
 * Check it with `assertContactsFit` / `contactsLeft`.
 * @throws AppError NOT_FOUND 'Workspace not found.'
 */
export async function contactsLimitOf(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<ContactsLimit> {
  const ws = await loadBillingWorkspace(ctx, workspaceId);
  const plan = effectivePlan(ws);
  const max = PLANS[plan].limits.contacts;
  // a held plan is checked with its status, so that its refusals say to pay rather than to upgrade
  const held = heldPlanOf(ws);
  const holder: PlanHolder = held ? { plan: held, subscriptionStatus: ws.subscriptionStatus } : { plan };
  return { plan, max, holder, reason: max === null ? null : contactsLimitReason(holder) };
}

/** A workspace's contact limit as `contactsLimitOf` read it. */
export interface ContactsLimit {
  plan: PlanId;
  /** what the checks read: the plan in force, or a held plan with its unpaid/paused status */
  holder: PlanHolder;
  /** contacts the plan includes; null = unlimited */
  max: number | null;
  /** the sentence for import rows refused by the limit; null when unlimited */
  reason: string | null;
}

/**
 * Contacts limit check (assertWithinPlan): `adding` new contacts on top of `current` (the count the
 * caller read under its lock).
 * @throws AppError PAYMENT_REQUIRED with the plan's sentence
 */
export function assertContactsFit(limit: ContactsLimit, current: number, adding: number): void {
  assertWithinPlan(limit.holder, "contacts", adding, current);
}

/**
 * How many more contacts `limit` allows on top of `current`; null = unlimited. A downgraded
 * workspace over its limit gets 0 (its contacts stay).
 */
export function contactsLeft(limit: ContactsLimit, current: number): number | null {
  return limit.max === null ? null : Math.max(0, limit.max - current);
}

/**
 * The sentence for contacts refused by the limit (import rejected rows) of `holder`'s plan (a plan with
 * a contact limit): "Your Free plan includes 100 contacts. Upgrade to Professional for up to 5,000
 * contacts.", or for a paid plan held by an unpaid or paused subscription the hold and the payment that
 * restores it (billing.plans includesPhrase, moreSentence).
 */
export function contactsLimitReason(holder: PlanHolder): string {
  const max = PLANS[effectivePlan(holder)].limits.contacts ?? 0;
  return `${includesPhrase(holder, "contacts")}.${moreSentence(holder, "contacts", max + 1)}`;
}

const USAGE_KEYS: Record<Meter | "contacts" | "seats", string> = {
  contacts: "contacts",
  seats: "seats",
  leadSearches: "lead_searches",
  emails: "emails",
  videoMessages: "video_messages",
  smsMessages: "sms_messages",
  voiceCalls: "voice_calls",
};

/**
 * `GET /api/billing/usage`: the plan, status, billing period and every limit with its use
 * (`limit: null` = unlimited), plus the plan's features and the banners to show: 'warning' at 80 %,
 * 'limit' at 100 %. `totals` are the counts other features own (contacts from the CRM, seats from
 * the workspace) passed in by the adapter. `plan` is the plan in force (effectivePlan); `status` the
 * subscription's real status; `held_plan` / `held_plan_name` the paid plan an `unpaid` or `paused`
 * subscription holds (the workspace counts as Free until it is paid), null otherwise.
 * `actor_can_pay`: whether `role`, the member asking, may pay or change the plan (actorCanPay: the
 * owner only), so the banners offer a payment or an upgrade only to who can make it.
 * `has_billing_history`: the workspace has had a subscription (its customer's invoices and receipts
 * are in the billing portal), also once it has ended and the plan is Free again.
 * `usage.seats` is the seats meter: members plus pending invitations of `totals.seats` (workspaces
 * workspaceSeatsOf) against the plan's seats. `seats_over`: for an owner or admin (who manage members),
 * the workspace holding more seats than its plan includes after a downgrade we did not decide (Stripe's
 * portal, a failed payment or a refund ending the plan), as billing.plans seatsOverPlan says it
 * (`{used, limit, excess, plan, sentence}`: "This workspace has 4 members; Professional includes 1.
 * Remove 3 members or upgrade."); null when the seats fit, and always for a member.
 */
export async function getUsage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  totals: { contacts: number; seats: SeatsHeld },
  role: Tenant["role"],
) {
  const ws = await loadBillingWorkspace(ctx, workspaceId);
  const plan = effectivePlan(ws);
  const held = heldPlanOf(ws);
  const period = billingPeriod(ws);
  const rows = await q.meterUsage(ctx.db, workspaceId, period.start);
  const limits = PLANS[plan].limits;
  const usage: Record<string, { used: number; limit: number | null }> = {};
  const alerts: { meter: string; level: "warning" | "limit"; used: number; limit: number }[] = [];
  const add = (k: Meter | "contacts" | "seats", used: number) => {
    const limit = limits[k];
    usage[USAGE_KEYS[k]] = { used, limit };
    // seats warn where invitations are made, not in a banner on every page
    if (limit !== null && limit > 0 && k !== "seats") {
      if (used >= limit) alerts.push({ meter: USAGE_KEYS[k], level: "limit", used, limit });
      else if (used >= Math.ceil(limit * WARNING_SHARE))
        alerts.push({ meter: USAGE_KEYS[k], level: "warning", used, limit });
    }
  };
  add("contacts", totals.contacts);
  add("seats", totals.seats.members + totals.seats.pending);
  for (const m of METERS) add(m, rows.find((r) => r.meter === m)?.used ?? 0);
  return {
    success: true as const,
    plan,
    plan_name: PLANS[plan].name,
    status: ws.subscriptionStatus,
    period_start: period.start.toISOString(),
    // the subscription's own end while it is ahead ("Renews on" / "Ends on"); once it has passed
    // without a renewal event moving it yet, the end of the period the meters now count in
    period_end: (plan !== "free" && ws.currentPeriodEnd && ws.currentPeriodEnd.getTime() > Date.now()
      ? ws.currentPeriodEnd
      : period.end
    ).toISOString(),
    cancel_at_period_end: ws.cancelAtPeriodEnd,
    past_due: ws.subscriptionStatus === "past_due",
    held_plan: held,
    held_plan_name: held ? PLANS[held].name : null,
    has_billing_history: Boolean(ws.stripeCustomerId && ws.stripeSubscriptionId),
    features: PLANS[plan].features,
    usage,
    alerts,
    seats_over: can(role, "manageMembers") ? seatsOverPlan(ws, totals.seats) : null,
    actor_can_pay: actorCanPay(role),
  };
}

/** Words for a meter in the warning email. */

/**
 * What a message of a campaign channel counts against (spec section 9): email -> emails, sms ->
 * SMS messages (one per recipient, whatever its segments), voice and ringless voicemail -> voice
 * calls, video_email / video_sms (incl. personalised AI avatar videos) -> video messages; and the
 * plan feature the channel's campaigns need (none for email).
 */
export function planRuleOfChannel(channel: string): { meter: Meter; feature?: PlanFeature } {
  switch (channel) {
    case "sms":
      return { meter: "smsMessages", feature: "smsVoiceCampaigns" };
    case "voice":
    case "voicemail":
      return { meter: "voiceCalls", feature: "smsVoiceCampaigns" };
    case "video_email":
    case "video_sms":
      return { meter: "videoMessages", feature: "videoCampaigns" };
    default:
      return { meter: "emails" };
  }
}
