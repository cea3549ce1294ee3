import crypto from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { localCheckoutSessions, localSubscriptions } from "../../db/schema";
import {
  type CheckoutInput,
  type CheckoutSessionState,
  normalizeStatus,
  type PaidPlanId,
  type PaymentEvent,
  type PaymentsProvider,
  type PortalInput,
  type SubscriptionState,
  WebhookSignatureError,
} from "./index";

/** Seconds a local event signature stays valid (as Stripe's default tolerance). */
const TOLERANCE_SECONDS = 300;

/** Stripe's test cards (https://docs.stripe.com/testing#cards): the ones the local checkout knows. */
export const LOCAL_TEST_CARDS = {
  success: "4242424242424242",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
} as const;

/** A webhook body and its `Stripe-Signature`-style header, ready for `parseWebhook`. */
export interface SignedEvent {
  payload: string;
  signature: string;
}

export type LocalCheckoutSession = typeof localCheckoutSessions.$inferSelect;
export type LocalSubscription = typeof localSubscriptions.$inferSelect;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">`, Stripe's signature scheme. */
export function signPayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)) {
  const v1 = crypto.createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

/** One calendar month after `d` (day clamped to the month's length), UTC. */
export function addMonth(d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const out = new Date(d);
  out.setUTCFullYear(y, m, Math.min(d.getUTCDate(), last));
  return out;
}

/**
 * The offline payments provider: checkout sessions and subscriptions in Postgres, a Pitchwise-served
 * checkout page (`APP_URL/local-checkout/{session}`) and portal (`APP_URL/local-portal`), and events
 * signed like Stripe's so they go through the same webhook code. No money moves.
 */
export class LocalPaymentsProvider implements PaymentsProvider {
  readonly name = "local" as const;
  constructor(
    private readonly db: Db,
    private readonly opts: { appUrl: string; webhookSecret: string },
  ) {}

  async createCustomer(input: { workspaceId: string }) {
    return `cus_local_${input.workspaceId.replaceAll("-", "")}`;
  }

  /**
   * A no-op: the local provider keeps no customer record (its customer id is derived from the
   * workspace id, createCustomer) and no email anywhere (local_checkout_sessions and
   * local_subscriptions hold only the customer id), and it sends no receipts or invoices; its portal
   * shows no customer email. Nothing to update, so nothing can fail.
   */
  async updateCustomer(_customerId: string, _input: { email: string; name?: string }) {}

  async createCheckoutSession(input: CheckoutInput) {
    const id = `cs_local_${crypto.randomBytes(18).toString("base64url")}`;
    await this.db.insert(localCheckoutSessions).values({
      id,
      workspaceId: input.workspaceId,
      customerId: input.customerId,
      plan: input.plan,
      planName: input.planName,
      priceId: input.priceId,
      amountCents: input.amountCents,
      successUrl: input.successUrl.replaceAll("{CHECKOUT_SESSION_ID}", id),
      cancelUrl: input.cancelUrl,
    });
    return { id, url: `${this.opts.appUrl}/local-checkout/${id}` };
  }

  /** The local portal (`/local-portal`); with `planChange`, opened on the confirmation of that plan (`plan=`). */
  async createPortalSession(input: PortalInput) {
    const q = new URLSearchParams({ return_url: input.returnUrl });
    if (input.planChange) q.set("plan", input.planChange.plan);
    return { url: `${this.opts.appUrl}/local-portal?${q}` };
  }

  parseWebhook(rawBody: string | Buffer, signature: string | undefined): PaymentEvent {
    if (!signature) throw new WebhookSignatureError("Missing signature header");
    const payload = typeof rawBody === "string" ? rawBody : rawBody.toString("utf8");
    const parts = Object.fromEntries(
      signature.split(",").map((p) => {
        const i = p.indexOf("=");
        return [p.slice(0, i), p.slice(i + 1)];
      }),
    ) as Record<string, string>;
    const t = Number(parts.t);
    if (!Number.isFinite(t) || !parts.v1) throw new WebhookSignatureError("Malformed signature header");
    if (Math.abs(Date.now() / 1000 - t) > TOLERANCE_SECONDS)
      throw new WebhookSignatureError("Signature timestamp outside the tolerance zone");
    const expected = Buffer.from(signPayload(payload, this.opts.webhookSecret, t).split("v1=")[1], "hex");
    const given = Buffer.from(parts.v1, "hex");
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
      throw new WebhookSignatureError("No signature matches the payload");
    const event = JSON.parse(payload) as {
      id: string;
      type: string;
      created: number;
      data: {
        object: { id: string; customer: string; metadata?: { workspace_id?: string }; subscription?: string };
      };
    };
    const obj = event.data.object;
    return {
      id: event.id,
      type: event.type,
      created: event.created,
      workspaceId: obj.metadata?.workspace_id ?? null,
      customerId: obj.customer,
      subscriptionId: obj.subscription ?? (obj.id.startsWith("sub_") ? obj.id : null),
    };
  }

  async retrieveCheckoutSession(id: string): Promise<CheckoutSessionState | null> {
    const s = await this.getCheckoutSession(id);
    return s
      ? {
          id: s.id,
          workspaceId: s.workspaceId,
          complete: s.status === "complete",
          subscriptionId: s.subscriptionId,
        }
      : null;
  }

  async retrieveSubscription(id: string): Promise<SubscriptionState | null> {
    const [row] = await this.db.select().from(localSubscriptions).where(eq(localSubscriptions.id, id));
    if (!row) return null;
    // a subscription set to cancel ends at its period end (what Stripe does on its own clock)
    if (row.status !== "canceled" && row.cancelAtPeriodEnd && row.currentPeriodEnd.getTime() <= Date.now()) {
      const [ended] = await this.db
        .update(localSubscriptions)
        .set({ status: "canceled", updatedAt: new Date() })
        .where(eq(localSubscriptions.id, id))
        .returning();
      return toState(ended);
    }
    return toState(row);
  }

  async cancelSubscriptionNow(id: string) {
    const [row] = await this.db
      .update(localSubscriptions)
      .set({
        status: "canceled",
        cancelAtPeriodEnd: false,
        currentPeriodEnd: new Date(),
        updatedAt: new Date(),
      })
      .where(eq(localSubscriptions.id, id))
      .returning();
    if (!row) throw new Error(`No local subscription ${id}`);
    return toState(row);
  }

  async refundLatestPayment(subscriptionId: string) {
    const [row] = await this.db
      .select()
      .from(localSubscriptions)
      .where(eq(localSubscriptions.id, subscriptionId));
    if (!row || row.latestPaymentCents <= 0) return null;
    if (row.refundId) return { refundId: row.refundId, amountCents: row.latestPaymentCents };
    const refundId = `re_local_${crypto.randomBytes(12).toString("base64url")}`;
    await this.db
      .update(localSubscriptions)
      .set({ refundId, updatedAt: new Date() })
      .where(eq(localSubscriptions.id, subscriptionId));
    return { refundId, amountCents: row.latestPaymentCents };
  }

  // ---- the local checkout page and portal (not part of PaymentsProvider) ----

  /** The checkout session, or null. */
  async getCheckoutSession(id: string): Promise<LocalCheckoutSession | null> {
    const [row] = await this.db.select().from(localCheckoutSessions).where(eq(localCheckoutSessions.id, id));
    return row ?? null;
  }

  /**
   * Pays an open checkout session with a test card number (spaces ignored): 4242 4242 4242 4242
   * succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient funds, anything
   * else is refused. On success creates the subscription (one month) and returns the signed events
   * Stripe would send: checkout.session.completed and invoice.paid. A session is paid at most once.
   */
  async payCheckoutSession(
    id: string,
    cardNumber: string,
  ): Promise<
    | { ok: true; events: SignedEvent[]; session: LocalCheckoutSession }
    | { ok: false; message: string; session: LocalCheckoutSession | null }
  > {
    const session = await this.getCheckoutSession(id);
    if (!session) return { ok: false, message: "This checkout session does not exist.", session: null };
    if (session.status !== "open")
      return { ok: false, message: "This checkout session has already been paid.", session };
    const card = cardNumber.replace(/[\s-]/g, "");
    if (card === LOCAL_TEST_CARDS.declined) return { ok: false, message: "Your card was declined.", session };
    if (card === LOCAL_TEST_CARDS.insufficientFunds)
      return { ok: false, message: "Your card has insufficient funds.", session };
    if (card !== LOCAL_TEST_CARDS.success)
      return {
        ok: false,
        message:
          "Your card number is not a test card. Use 4242 4242 4242 4242 (test checkout, no real payment).",
        session,
      };
    const now = new Date();
    const subId = `sub_local_${crypto.randomBytes(12).toString("base64url")}`;
    const paid = await this.db.transaction(async (tx) => {
      const [claimed] = await tx
        .update(localCheckoutSessions)
        .set({ status: "complete", subscriptionId: subId })
        .where(and(eq(localCheckoutSessions.id, id), eq(localCheckoutSessions.status, "open")))
        .returning();
      if (!claimed) return null;
      await tx.insert(localSubscriptions).values({
        id: subId,
        workspaceId: session.workspaceId,
        customerId: session.customerId,
        plan: session.plan,
        priceId: session.priceId,
        amountCents: session.amountCents,
        status: "active",
        currentPeriodStart: now,
        currentPeriodEnd: addMonth(now),
        latestPaymentCents: session.amountCents,
      });
      return claimed;
    });
    if (!paid) return { ok: false, message: "This checkout session has already been paid.", session };
    const meta = { workspace_id: session.workspaceId };
    return {
      ok: true,
      session: paid,
      events: [
        this.sign("checkout.session.completed", {
          object: "checkout.session",
          id: session.id,
          customer: session.customerId,
          subscription: subId,
          metadata: meta,
        }),
        this.sign("invoice.paid", {
          object: "invoice",
          id: `in_local_${crypto.randomBytes(12).toString("base64url")}`,
          customer: session.customerId,
          subscription: subId,
          amount_paid: session.amountCents,
          metadata: meta,
        }),
      ],
    };
  }

  /** The workspace's subscriptions, newest first (for the local portal). */
  async listSubscriptions(customerId: string): Promise<LocalSubscription[]> {
    const rows = await this.db
      .select()
      .from(localSubscriptions)
      .where(eq(localSubscriptions.customerId, customerId));
    return rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  /** Portal cancel: the subscription ends at its period end. Returns the customer.subscription.updated event. */
  async scheduleCancel(subscriptionId: string, customerId: string): Promise<SignedEvent | null> {
    const [row] = await this.db
      .update(localSubscriptions)
      .set({ cancelAtPeriodEnd: true, updatedAt: new Date() })
      .where(and(eq(localSubscriptions.id, subscriptionId), eq(localSubscriptions.customerId, customerId)))
      .returning();
    return row ? this.subscriptionEvent("customer.subscription.updated", row) : null;
  }

  /**
   * Portal "Renew plan": a subscription set to cancel at its period end (scheduleCancel) goes on
   * renewing, as Stripe's portal does for such a subscription (`cancel_at_period_end: false`). Only a
   * live subscription set to cancel changes. Returns the customer.subscription.updated event, or null
   * when there was nothing to take back.
   */
  async resumeCancel(subscriptionId: string, customerId: string): Promise<SignedEvent | null> {
    const [row] = await this.db
      .update(localSubscriptions)
      .set({ cancelAtPeriodEnd: false, updatedAt: new Date() })
      .where(
        and(
          eq(localSubscriptions.id, subscriptionId),
          eq(localSubscriptions.customerId, customerId),
          eq(localSubscriptions.cancelAtPeriodEnd, true),
          inArray(localSubscriptions.status, ["active", "trialing", "past_due"]),
        ),
      )
      .returning();
    return row ? this.subscriptionEvent("customer.subscription.updated", row) : null;
  }

  /** Portal plan change (takes effect now, as Stripe's proration does). Returns the updated event. */
  async changePlan(
    subscriptionId: string,
    customerId: string,
    to: { plan: PaidPlanId; priceId: string; amountCents: number },
  ): Promise<SignedEvent | null> {
    const [row] = await this.db
      .update(localSubscriptions)
      .set({
        plan: to.plan,
        priceId: to.priceId,
        amountCents: to.amountCents,
        cancelAtPeriodEnd: false,
        updatedAt: new Date(),
      })
      .where(and(eq(localSubscriptions.id, subscriptionId), eq(localSubscriptions.customerId, customerId)))
      .returning();
    return row ? this.subscriptionEvent("customer.subscription.updated", row) : null;
  }

  /**
   * Portal payment of a held subscription (`unpaid` or `paused`): the open invoice is paid with a test
   * card (the checkout's cards: 4242... succeeds, the declined ones are refused with their sentence) and
   * the subscription is active again, as Stripe resumes it. Returns the signed
   * customer.subscription.updated and invoice.paid events, or the sentence to show when the card is
   * refused or the subscription is not held (or not the customer's).
   */
  async payHeldSubscription(
    subscriptionId: string,
    customerId: string,
    cardNumber: string,
  ): Promise<{ ok: true; events: SignedEvent[] } | { ok: false; message: string }> {
    const card = cardNumber.replace(/[\s-]/g, "");
    if (card === LOCAL_TEST_CARDS.declined) return { ok: false, message: "Your card was declined." };
    if (card === LOCAL_TEST_CARDS.insufficientFunds)
      return { ok: false, message: "Your card has insufficient funds." };
    if (card !== LOCAL_TEST_CARDS.success)
      return {
        ok: false,
        message:
          "Your card number is not a test card. Use 4242 4242 4242 4242 (test portal, no real payment).",
      };
    const [row] = await this.db
      .update(localSubscriptions)
      .set({ status: "active", updatedAt: new Date() })
      .where(
        and(
          eq(localSubscriptions.id, subscriptionId),
          eq(localSubscriptions.customerId, customerId),
          inArray(localSubscriptions.status, ["unpaid", "paused"]),
        ),
      )
      .returning();
    if (!row) return { ok: false, message: "This subscription has no open payment to make." };
    return {
      ok: true,
      events: [
        this.subscriptionEvent("customer.subscription.updated", row),
        this.sign("invoice.paid", {
          object: "invoice",
          id: `in_local_${crypto.randomBytes(12).toString("base64url")}`,
          customer: row.customerId,
          subscription: row.id,
          amount_paid: row.amountCents,
          metadata: { workspace_id: row.workspaceId },
        }),
      ],
    };
  }

  /** A signed customer.subscription.* event for a local subscription. */
  subscriptionEvent(type: string, row: LocalSubscription): SignedEvent {
    return this.sign(type, {
      object: "subscription",
      id: row.id,
      customer: row.customerId,
      status: row.status,
      metadata: { workspace_id: row.workspaceId },
    });
  }

  private sign(type: string, object: Record<string, unknown>): SignedEvent {
    const payload = JSON.stringify({
      id: `evt_local_${crypto.randomBytes(12).toString("base64url")}`,
      object: "event",
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
    return { payload, signature: signPayload(payload, this.opts.webhookSecret) };
  }
}

function toState(row: LocalSubscription): SubscriptionState {
  return {
    id: row.id,
    customerId: row.customerId,
    workspaceId: row.workspaceId,
    priceId: row.priceId,
    status: normalizeStatus(row.status),
    currentPeriodEnd: row.currentPeriodEnd,
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    // the local portal's events are applied as the cancel is made: the time they are applied is its time
    canceledAt: null,
  };
}
