import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * Payment webhook events already applied (vendor event id), so a redelivered or replayed event changes
 * nothing (Stripe: "handle duplicate events", https://docs.stripe.com/webhooks#handle-duplicate-events).
 */
export const billingEvents = pgTable("billing_events", {
  /** evt_... (stripe) or evt_local_... */
  id: text().primaryKey(),
  provider: text().notNull(),
  type: text().notNull(),
  workspaceId: uuid().references(() => workspaces.id, { onDelete: "set null" }),
  receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * Workspaces this deployment deleted, with the vendor customer and subscription they last had
 * (billing rememberDeletedWorkspace): a subscription made for one afterwards (a checkout paid in
 * another tab) is ended and refunded when its events arrive (billing applyPaymentEvent). No foreign
 * key: the workspace row is gone.
 */
export const billingDeletedWorkspaces = pgTable(
  "billing_deleted_workspaces",
  {
    workspaceId: uuid().primaryKey(),
    stripeCustomerId: text(),
    stripeSubscriptionId: text(),
    deletedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("billing_deleted_workspaces_customer_idx")
      .on(t.stripeCustomerId)
      .where(sql`${t.stripeCustomerId} is not null`),
  ],
);

/** Money-back refunds (spec section 9: 14-day guarantee), at most one per subscription. */
export const billingRefunds = pgTable(
  "billing_refunds",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text().notNull(),
    subscriptionId: text().notNull(),
    refundId: text().notNull(),
    amountCents: integer().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("billing_refunds_subscription_uq").on(t.subscriptionId)],
);

/**
 * Usage of one meter in one billing period (spec section 9 plan limits). `used` only grows through
 * the conditional UPDATE of `reserveUsage`, so concurrent reservations never pass the limit.
 * `warnedAt`: when the 80 % warning email went out for this period (once per period and meter).
 */
export const usageMeters = pgTable(
  "usage_meters",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** lead_searches | emails | video_messages | sms | voice_calls */
    meter: text().notNull(),
    /** start of the billing period (UTC) */
    periodStart: timestamp({ withTimezone: true }).notNull(),
    used: integer().notNull().default(0),
    warnedAt: timestamp({ withTimezone: true }),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.meter, t.periodStart] })],
);

/** The local payments provider's checkout sessions (offline stand-in for Stripe Checkout). */
export const localCheckoutSessions = pgTable("local_checkout_sessions", {
  /** cs_local_... */
  id: text().primaryKey(),
  workspaceId: uuid()
    .notNull()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  customerId: text().notNull(),
  plan: text().notNull(),
  planName: text().notNull(),
  priceId: text().notNull(),
  amountCents: integer().notNull(),
  successUrl: text().notNull(),
  cancelUrl: text().notNull(),
  /** open | complete */
  status: text().notNull().default("open"),
  subscriptionId: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** The local payments provider's subscriptions (monthly; period end one calendar month after start). */
export const localSubscriptions = pgTable("local_subscriptions", {
  /** sub_local_... */
  id: text().primaryKey(),
  workspaceId: uuid()
    .notNull()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  customerId: text().notNull(),
  plan: text().notNull(),
  priceId: text().notNull(),
  amountCents: integer().notNull(),
  /** active | past_due | canceled */
  status: text().notNull(),
  currentPeriodStart: timestamp({ withTimezone: true }).notNull(),
  currentPeriodEnd: timestamp({ withTimezone: true }).notNull(),
  cancelAtPeriodEnd: boolean().notNull().default(false),
  /** cents of the latest successful payment, and whether it was refunded */
  latestPaymentCents: integer().notNull().default(0),
  refundId: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
