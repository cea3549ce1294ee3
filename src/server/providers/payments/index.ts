/**
 * Card payments for subscriptions (spec section 2 "Pricing", section 7 create-checkout-session).
 * Implementations: `local` (offline checkout page served by Pitchwise, signed local events) and
 * `stripe` (the official SDK: Checkout, Customer Portal, webhooks, refunds). Chosen by
 * `PAYMENTS_PROVIDER` (default `local`).
 */

/** The paid plans a checkout can sell (spec section 9). */
export type PaidPlanId = "professional" | "business" | "enterprise";

/**
 * Our normalized subscription statuses (spec section 3 subscription_status), after Stripe's
 * (https://docs.stripe.com/api/subscriptions/object#subscription_object-status). Vendor statuses map:
 * trialing, active, past_due, unpaid, paused, canceled and incomplete -> themselves;
 * incomplete_expired and anything unknown -> canceled. What each grants is billing's rule:
 * trialing, active and past_due (Stripe is still retrying the payment) keep the plan; unpaid (retries
 * exhausted, the invoices left open) and paused (a trial ended without a payment method, or paused
 * after a failed payment) grant nothing until a live status returns; incomplete (first payment not
 * made) grants nothing; canceled has ended.
 */
export type SubscriptionStatus =
  | "trialing"
  | "active"
  | "past_due"
  | "unpaid"
  | "paused"
  | "canceled"
  | "incomplete";

/** The vendor's current view of one subscription (always re-read, never taken from an event body). */
export interface SubscriptionState {
  id: string;
  customerId: string;
  /** our workspace id from the subscription's metadata (`workspace_id`), when set */
  workspaceId: string | null;
  /** the price of its first item */
  priceId: string | null;
  status: SubscriptionStatus;
  /** end of the paid period */
  currentPeriodEnd: Date | null;
  /** true when it ends at `currentPeriodEnd` (portal cancel) */
  cancelAtPeriodEnd: boolean;
  /**
   * when the cancel was asked for (Stripe `canceled_at`: for a cancel at period end, the time of the
   * request, not of the end), or null when not cancelling or the vendor does not say
   */
  canceledAt: Date | null;
}

/** A verified webhook event reduced to what we act on (its body is never trusted beyond ids). */
export interface PaymentEvent {
  /** vendor event id (`evt_...`), stored so each is processed once */
  id: string;
  /** e.g. checkout.session.completed, customer.subscription.updated, invoice.paid */
  type: string;
  /** unix seconds */
  created: number;
  /** checkout's client_reference_id or the object's metadata.workspace_id */
  workspaceId: string | null;
  customerId: string | null;
  subscriptionId: string | null;
}

/** A checkout session's outcome (PaymentsProvider retrieveCheckoutSession). */
export interface CheckoutSessionState {
  id: string;
  /** the workspace the session was made for (client_reference_id), or null */
  workspaceId: string | null;
  /** true once paid (Stripe `status` "complete") */
  complete: boolean;
  /** the subscription the payment made, or null before it is paid */
  subscriptionId: string | null;
}

export interface CheckoutInput {
  workspaceId: string;
  customerId: string;
  plan: PaidPlanId;
  /** display name (Professional) and monthly price in cents, shown by the local checkout page */
  planName: string;
  amountCents: number;
  priceId: string;
  /** may hold the literal `{CHECKOUT_SESSION_ID}` (Stripe substitutes it) */
  successUrl: string;
  cancelUrl: string;
}

/** What a billing portal session opens on (PaymentsProvider.createPortalSession). */
export interface PortalInput {
  customerId: string;
  returnUrl: string;
  /** confirm this one plan change (the subscription's only item moves to `priceId`, quantity 1) */
  planChange?: { subscriptionId: string; plan: PaidPlanId; priceId: string };
}

/** Thrown by `parseWebhook` for a missing, forged or stale signature (answered with HTTP 400). */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookSignatureError";
  }
}

export interface PaymentsProvider {
  readonly name: "local" | "stripe";
  /**
   * Creates the vendor customer for a workspace (one per workspace; the caller stores and reuses it).
   * @throws ProviderError
   */
  createCustomer(input: { workspaceId: string; email: string; name: string }): Promise<string>;
  /**
   * Updates the vendor customer's billing contact: `email` is where the vendor sends receipts,
   * failed-payment emails and invoices and what its billing portal shows; `name`, when given, the
   * name on invoices (left as it is when omitted). Stripe "Update a customer"
   * (https://docs.stripe.com/api/customers/update). Idempotent: sending the same values again
   * changes nothing.
   * @throws ProviderError (`transient` false for a customer the vendor does not know: Stripe's 404
   *   `resource_missing`)
   */
  updateCustomer(customerId: string, input: { email: string; name?: string }): Promise<void>;
  /** A hosted checkout for one subscription to `priceId`. @throws ProviderError */
  createCheckoutSession(input: CheckoutInput): Promise<{ id: string; url: string }>;
  /**
   * A billing portal session for the customer: its home page (card, invoices, cancel, and plan changes
   * where the portal's configuration allows them), or with `planChange` a page that only confirms
   * moving subscription `subscriptionId` to `priceId` (the plan chosen and checked on /pricing; Stripe's
   * deep link `flow_data.type = subscription_update_confirm`, https://docs.stripe.com/customer-management/portal-deep-links),
   * which returns to `returnUrl` once confirmed. Returns `{ url }` to redirect the browser to.
   * @throws ProviderError (`transient` false when the subscription does not exist or has no item)
   */
  createPortalSession(input: PortalInput): Promise<{ url: string }>;
  /**
   * Verifies a webhook delivery on its raw body (HMAC-SHA256 `t=...,v1=...`, 300 s tolerance).
   * @throws WebhookSignatureError
   */
  parseWebhook(rawBody: string | Buffer, signature: string | undefined): PaymentEvent;
  /**
   * A checkout session as the vendor holds it now (Stripe "Retrieve a Checkout Session",
   * https://docs.stripe.com/api/checkout/sessions/retrieve): the workspace it was made for
   * (`client_reference_id`), whether it is paid (`status` complete) and the subscription it made.
   * Null when the vendor does not know the id. @throws ProviderError
   */
  retrieveCheckoutSession(id: string): Promise<CheckoutSessionState | null>;
  /** The subscription as the vendor holds it now, or null when it does not exist. @throws ProviderError */
  retrieveSubscription(id: string): Promise<SubscriptionState | null>;
  /** Ends a subscription immediately (money-back guarantee). @throws ProviderError */
  cancelSubscriptionNow(id: string): Promise<SubscriptionState>;
  /**
   * Refunds the subscription's latest paid invoice in full (idempotent per subscription).
   * Returns null when nothing was paid. @throws ProviderError
   */
  refundLatestPayment(subscriptionId: string): Promise<{ refundId: string; amountCents: number } | null>;
}

/** Maps a vendor subscription status onto ours (see SubscriptionStatus). */
export function normalizeStatus(status: string): SubscriptionStatus {
  switch (status) {
    case "trialing":
    case "active":
    case "past_due":
    case "unpaid":
    case "paused":
    case "canceled":
    case "incomplete":
      return status;
    default:
      return "canceled";
  }
}
