import Stripe from "stripe";
import { isTransientStatus, ProviderError } from "../errors";
import {
  type CheckoutInput,
  type CheckoutSessionState,
  normalizeStatus,
  type PaymentEvent,
  type PaymentsProvider,
  type PortalInput,
  type SubscriptionState,
  WebhookSignatureError,
} from "./index";

export interface StripeOptions {
  secretKey: string;
  webhookSecret: string;
  /** base URL replacing https://api.stripe.com (a local fake in tests), e.g. http://127.0.0.1:4012 */
  apiHost?: string;
  /**
   * the portal configuration (`bpc_...`) of plan-change confirmations (STRIPE_PORTAL_PLAN_CHANGE_CONFIGURATION:
   * subscription updates enabled with the plans' prices, which Stripe requires of that flow), so that the
   * account's default configuration may leave plan changes off; unset: the default configuration
   */
  planChangeConfiguration?: string;
  /**
   * the portal configuration (`bpc_...`) of every other portal session ("Manage billing", paying a held
   * subscription, taking back a cancel: STRIPE_PORTAL_CONFIGURATION); unset: the one Pitchwise keeps in
   * the account (manageConfiguration), which cannot change plans
   */
  manageConfiguration?: string;
}

/**
 * The billing portal configuration Pitchwise keeps in the Stripe account for the portal's home page
 * (https://docs.stripe.com/api/customer_portal/configurations/create): invoices, card, billing
 * address and tax id, cancel at period end (the pricing FAQ: cancel anytime, no long-term contract), and no plan
 * changes, which go through /pricing and its seat check (billing.service createCheckout) to the
 * plan-change confirmation. Found again by `metadata.pitchwise_portal` ("manage").
 */
const MANAGE_PORTAL_CONFIGURATION = {
  name: "Pitchwise: manage billing (plan changes through Pitchwise's pricing page)",
  metadata: { pitchwise_portal: "manage" },
  features: {
    invoice_history: { enabled: true },
    payment_method_update: { enabled: true },
    // not the email: the customer's email follows the workspace owner's (billing.sync-customer-email)
    customer_update: { enabled: true, allowed_updates: ["address", "tax_id"] },
    subscription_cancel: {
      enabled: true,
      mode: "at_period_end",
      cancellation_reason: {
        enabled: true,
        options: ["too_expensive", "missing_features", "switched_service", "unused", "other"],
      },
    },
    subscription_update: { enabled: false },
  },
} satisfies Stripe.BillingPortal.ConfigurationCreateParams;

/** Stripe's default signature tolerance: events signed more than 300 s ago are refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The official SDK client, pointed at `apiHost` when set (ARCHITECTURE.md: SDKs against local fakes). */
export function createStripeClient(opts: Pick<StripeOptions, "secretKey" | "apiHost">): Stripe {
  if (!opts.apiHost) return new Stripe(opts.secretKey, { maxNetworkRetries: 2, timeout: 20_000 });
  const u = new URL(opts.apiHost);
  return new Stripe(opts.secretKey, {
    host: u.hostname,
    port: u.port || (u.protocol === "http:" ? 80 : 443),
    protocol: u.protocol === "http:" ? "http" : "https",
    maxNetworkRetries: 2,
    timeout: 20_000,
  });
}

/** Maps a Stripe SDK error (StripeError: statusCode, code, message) to a ProviderError. */
function stripeError(e: unknown): ProviderError {
  if (e instanceof ProviderError) return e;
  const err = e as { message?: string; statusCode?: number; code?: string };
  const status = typeof err.statusCode === "number" ? err.statusCode : undefined;
  return new ProviderError(`Stripe: ${err.message ?? "request failed"}`, {
    transient: isTransientStatus(status),
    vendorCode: err.code,
    httpStatus: status,
  });
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === "string" ? v : v.id;

/**
 * Subscriptions through Stripe with the official SDK (API version pinned by the SDK):
 * Checkout Sessions in `mode=subscription` (https://docs.stripe.com/api/checkout/sessions/create),
 * the Customer Portal (https://docs.stripe.com/api/customer_portal/sessions/create), webhook
 * signatures checked by `stripe.webhooks.constructEvent` (https://docs.stripe.com/webhooks#verify-events),
 * refunds of the latest invoice's PaymentIntent (https://docs.stripe.com/api/refunds/create).
 */
export class StripePaymentsProvider implements PaymentsProvider {
  readonly name = "stripe" as const;
  readonly client: Stripe;
  constructor(private readonly opts: StripeOptions) {
    this.client = createStripeClient(opts);
  }

  async createCustomer(input: { workspaceId: string; email: string; name: string }) {
    try {
      const c = await this.client.customers.create(
        { email: input.email, name: input.name, metadata: { workspace_id: input.workspaceId } },
        { idempotencyKey: `customer-${input.workspaceId}` },
      );
      return c.id;
    } catch (e) {
      throw stripeError(e);
    }
  }

  async updateCustomer(customerId: string, input: { email: string; name?: string }) {
    try {
      await this.client.customers.update(customerId, {
        email: input.email,
        ...(input.name !== undefined ? { name: input.name } : {}),
      });
    } catch (e) {
      throw stripeError(e);
    }
  }

  async createCheckoutSession(input: CheckoutInput) {
    try {
      const s = await this.client.checkout.sessions.create({
        mode: "subscription",
        customer: input.customerId,
        client_reference_id: input.workspaceId,
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        metadata: { workspace_id: input.workspaceId, plan: input.plan },
        subscription_data: { metadata: { workspace_id: input.workspaceId, plan: input.plan } },
      });
      if (!s.url) throw new ProviderError("Stripe: the checkout session has no url", { transient: false });
      return { id: s.id, url: s.url };
    } catch (e) {
      throw stripeError(e);
    }
  }

  /** The pending or settled lookup of the managed configuration's id (manageConfiguration). */
  private manageLookup: Promise<string> | null = null;

  /**
   * The id of the portal configuration of the portal's home page: STRIPE_PORTAL_CONFIGURATION when
   * set, else the account's active configuration with `metadata.pitchwise_portal` "manage" (listed,
   * https://docs.stripe.com/api/customer_portal/configurations/list), created as
   * MANAGE_PORTAL_CONFIGURATION when there is none (an idempotency key keeps two instances asking at
   * once to one). Kept for the process's life; after a failed lookup, or a portal session refused on
   * it (deactivated in the Dashboard), it is looked up again next time.
   * @throws ProviderError when Stripe cannot be reached or refuses
   */
  async manageConfiguration(): Promise<string> {
    if (this.opts.manageConfiguration) return this.opts.manageConfiguration;
    this.manageLookup ??= (async () => {
      const purpose = MANAGE_PORTAL_CONFIGURATION.metadata.pitchwise_portal;
      // ours deactivated in the Dashboard: never used again
      const inactive = new Set<string>();
      for await (const c of this.client.billingPortal.configurations.list({ limit: 100 })) {
        if (c.metadata?.pitchwise_portal !== purpose) continue;
        if (c.active) return c.id;
        inactive.add(c.id);
      }
      const create = (idempotencyKey?: string) =>
        this.client.billingPortal.configurations.create(
          MANAGE_PORTAL_CONFIGURATION,
          idempotencyKey ? { idempotencyKey } : undefined,
        );
      // one key a day: Stripe replays a key's first answer for 24 h, so a replay can name one that was
      // deactivated since (the replayed body still says active): then a new one is made
      const created = await create(
        `pitchwise-portal-configuration-manage-v1-${new Date().toISOString().slice(0, 10)}`,
      );
      return inactive.has(created.id) ? (await create()).id : created.id;
    })().catch((e) => {
      this.manageLookup = null;
      throw stripeError(e);
    });
    return this.manageLookup;
  }

  async createPortalSession(input: PortalInput) {
    try {
      const change = input.planChange;
      if (!change) {
        // the home page on a configuration that cannot change plans: a plan change must pass the seat
        // check of /pricing first (billing.service createCheckout), then opens the confirmation below
        const configuration = await this.manageConfiguration();
        try {
          const s = await this.client.billingPortal.sessions.create({
            customer: input.customerId,
            return_url: input.returnUrl,
            configuration,
          });
          return { url: s.url };
        } catch (e) {
          // e.g. the configuration was deactivated in the Dashboard: the next session looks it up again
          if (!this.opts.manageConfiguration) this.manageLookup = null;
          throw e;
        }
      }
      // the deep link names the subscription item to move (plans are one-item subscriptions)
      const sub = await this.client.subscriptions.retrieve(change.subscriptionId);
      const item = sub.items.data[0];
      if (!item)
        throw new ProviderError(`Stripe subscription ${change.subscriptionId} has no item to change`, {
          transient: false,
        });
      const s = await this.client.billingPortal.sessions.create({
        customer: input.customerId,
        return_url: input.returnUrl,
        ...(this.opts.planChangeConfiguration ? { configuration: this.opts.planChangeConfiguration } : {}),
        flow_data: {
          type: "subscription_update_confirm",
          subscription_update_confirm: {
            subscription: change.subscriptionId,
            items: [{ id: item.id, price: change.priceId, quantity: 1 }],
          },
          after_completion: { type: "redirect", redirect: { return_url: input.returnUrl } },
        },
      });
      return { url: s.url };
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      throw stripeError(e);
    }
  }

  parseWebhook(rawBody: string | Buffer, signature: string | undefined): PaymentEvent {
    if (!signature) throw new WebhookSignatureError("Missing Stripe-Signature header");
    let event: Stripe.Event;
    try {
      event = this.client.webhooks.constructEvent(
        rawBody,
        signature,
        this.opts.webhookSecret,
        WEBHOOK_TOLERANCE_SECONDS,
      );
    } catch (e) {
      throw new WebhookSignatureError(`Invalid Stripe signature: ${(e as Error).message}`);
    }
    return toPaymentEvent(event);
  }

  async retrieveCheckoutSession(id: string): Promise<CheckoutSessionState | null> {
    try {
      const s = await this.client.checkout.sessions.retrieve(id);
      return {
        id: s.id,
        workspaceId: s.client_reference_id ?? null,
        complete: s.status === "complete",
        subscriptionId: idOf(s.subscription as string | { id: string } | null),
      };
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return null;
      throw stripeError(e);
    }
  }

  async retrieveSubscription(id: string): Promise<SubscriptionState | null> {
    try {
      return toState(await this.client.subscriptions.retrieve(id));
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return null;
      throw stripeError(e);
    }
  }

  async cancelSubscriptionNow(id: string) {
    try {
      return toState(await this.client.subscriptions.cancel(id, {}, { idempotencyKey: `cancel-${id}` }));
    } catch (e) {
      throw stripeError(e);
    }
  }

  async refundLatestPayment(subscriptionId: string) {
    try {
      const sub = await this.client.subscriptions.retrieve(subscriptionId);
      const invoiceId = idOf(sub.latest_invoice as string | { id: string } | null);
      if (!invoiceId) return null;
      const payments = await this.client.invoicePayments.list({
        invoice: invoiceId,
        status: "paid",
        limit: 1,
      });
      const paymentIntent = idOf(
        payments.data[0]?.payment?.payment_intent as string | { id: string } | null | undefined,
      );
      if (!paymentIntent) return null;
      const r = await this.client.refunds.create(
        { payment_intent: paymentIntent, reason: "requested_by_customer" },
        { idempotencyKey: `refund-${subscriptionId}` },
      );
      return { refundId: r.id, amountCents: r.amount };
    } catch (e) {
      throw stripeError(e);
    }
  }
}

/** The subscription fields we keep; the period end sits on the item since API 2025-03-31.basil. */
function toState(sub: Stripe.Subscription): SubscriptionState {
  const item = sub.items?.data?.[0] as
    | (Stripe.SubscriptionItem & { current_period_end?: number })
    | undefined;
  const legacy = sub as unknown as { current_period_end?: number };
  const periodEnd = item?.current_period_end ?? legacy.current_period_end ?? null;
  return {
    id: sub.id,
    customerId: idOf(sub.customer as string | { id: string }) ?? "",
    workspaceId: sub.metadata?.workspace_id ?? null,
    priceId: item?.price?.id ?? null,
    status: normalizeStatus(sub.status),
    currentPeriodEnd: periodEnd ? new Date(periodEnd * 1000) : null,
    cancelAtPeriodEnd: Boolean(sub.cancel_at_period_end || sub.cancel_at),
    canceledAt: sub.canceled_at ? new Date(sub.canceled_at * 1000) : null,
  };
}

/** Reduces a verified event to ids (checkout session, subscription or invoice objects). */
function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const obj = event.data.object as unknown as Record<string, unknown> & {
    object?: string;
    id?: string;
    customer?: string | { id: string } | null;
    subscription?: string | { id: string } | null;
    client_reference_id?: string | null;
    metadata?: Record<string, string> | null;
    parent?: { subscription_details?: { subscription?: string | { id: string } | null } | null } | null;
  };
  let subscriptionId: string | null = null;
  if (obj.object === "subscription") subscriptionId = obj.id ?? null;
  else if (obj.object === "invoice")
    subscriptionId = idOf(obj.parent?.subscription_details?.subscription ?? obj.subscription ?? null);
  else subscriptionId = idOf(obj.subscription ?? null);
  return {
    id: event.id,
    type: event.type,
    created: event.created,
    workspaceId: obj.client_reference_id ?? obj.metadata?.workspace_id ?? null,
    customerId: idOf(obj.customer ?? null),
    subscriptionId,
  };
}
