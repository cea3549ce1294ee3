import crypto from "node:crypto";
import { type FakeReply, type RecordedRequest, startFake } from "./http";

/**
 * A fake of the Stripe API endpoints Pitchwise calls, answering with Stripe's documented object shapes
 * (API 2025+ "basil" layout: the period end on subscription items, an invoice's subscription under
 * `parent.subscription_details`):
 * POST /v1/customers, POST /v1/customers/:id, POST and GET /v1/checkout/sessions(/:id), POST /v1/billing_portal/sessions
 * (home page, or the subscription_update_confirm deep link), GET and POST /v1/billing_portal/configurations,
 * GET /v1/subscriptions/:id, DELETE /v1/subscriptions/:id, GET /v1/invoice_payments, POST /v1/refunds.
 * Test controls (completeCheckout, updateSubscription, failPayment, endSubscription) change the fake's
 * state the way Stripe would and return the event object Stripe would then deliver.
 */
export async function startStripeFake() {
  const rid = (prefix: string) => `${prefix}_${crypto.randomBytes(10).toString("hex")}`;
  const now = () => Math.floor(Date.now() / 1000);
  const customers = new Map<string, Record<string, unknown>>();
  const sessions = new Map<string, Record<string, any>>();
  const subscriptions = new Map<string, Record<string, any>>();
  const invoicePayments = new Map<string, Record<string, any>>(); // by invoice id
  const refunds: Record<string, any>[] = [];
  const refundsByKey = new Map<string, Record<string, any>>();
  // the account's portal configurations by bpc_ id: its default (set up in the Dashboard to allow plan
  // changes, as the README asks of the plan-change confirmation), those a test adds, those created by API
  const portalConfigurations = new Map<string, Record<string, any>>();
  const configurationsByKey = new Map<string, Record<string, any>>();
  function portalConfiguration(opts: {
    isDefault?: boolean;
    subscriptionUpdate: boolean;
    metadata?: Record<string, string>;
    name?: string | null;
    features?: Record<string, any>;
  }) {
    const c = {
      id: rid("bpc"),
      object: "billing_portal.configuration",
      active: true,
      application: null,
      business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
      created: now(),
      default_return_url: null,
      features: {
        customer_update: { enabled: false, allowed_updates: [] },
        invoice_history: { enabled: true },
        payment_method_update: { enabled: true },
        subscription_cancel: { enabled: false, mode: "at_period_end", proration_behavior: "none" },
        ...opts.features,
        subscription_update: {
          enabled: opts.subscriptionUpdate,
          default_allowed_updates: opts.subscriptionUpdate ? ["price"] : [],
          products: opts.subscriptionUpdate
            ? [
                {
                  product: "prod_plans",
                  prices: ["price_professional", "price_business", "price_enterprise"],
                },
              ]
            : [],
          proration_behavior: "create_prorations",
        },
      },
      is_default: opts.isDefault ?? false,
      livemode: false,
      login_page: { enabled: false, url: null },
      metadata: opts.metadata ?? {},
      name: opts.name ?? null,
      updated: now(),
    };
    portalConfigurations.set(c.id, c);
    return c;
  }
  const defaultPortalConfiguration = portalConfiguration({ isDefault: true, subscriptionUpdate: true }).id;

  const notFound = (what: string, id: string): FakeReply => ({
    status: 404,
    json: {
      error: {
        type: "invalid_request_error",
        code: "resource_missing",
        message: `No such ${what}: '${id}'`,
        param: "id",
      },
    },
  });
  const missing = (param: string): FakeReply => ({
    status: 400,
    json: {
      error: {
        type: "invalid_request_error",
        code: "parameter_missing",
        message: `Missing required param: ${param}.`,
        param,
      },
    },
  });

  function event(type: string, object: unknown) {
    return {
      id: rid("evt"),
      object: "event",
      api_version: "2026-10-28.endive",
      created: now(),
      type,
      livemode: false,
      pending_webhooks: 1,
      data: { object },
    };
  }

  function route(req: RecordedRequest): FakeReply {
    const form = new URLSearchParams(req.body);
    const auth = req.headers.authorization ?? "";
    if (!auth.startsWith("Bearer sk_"))
      return {
        status: 401,
        json: { error: { type: "invalid_request_error", message: "Invalid API Key provided" } },
      };
    const p = req.path;
    if (req.method === "POST" && p === "/v1/customers") {
      const c = {
        id: rid("cus"),
        object: "customer",
        email: form.get("email"),
        name: form.get("name"),
        metadata: { workspace_id: form.get("metadata[workspace_id]") },
        created: now(),
      };
      customers.set(c.id, c);
      return { status: 200, json: c };
    }
    // Update a customer (https://docs.stripe.com/api/customers/update): the given fields change, an
    // empty string unsets one; answers the customer object, or 404 resource_missing for an unknown id
    const customerMatch = p.match(/^\/v1\/customers\/([^/]+)$/);
    if (req.method === "POST" && customerMatch) {
      const c = customers.get(customerMatch[1]!);
      if (!c) return notFound("customer", customerMatch[1]!);
      for (const k of ["email", "name"]) {
        const v = form.get(k);
        if (v !== null) c[k] = v === "" ? null : v;
      }
      return { status: 200, json: c };
    }
    if (req.method === "POST" && p === "/v1/checkout/sessions") {
      for (const k of ["mode", "success_url", "line_items[0][price]"]) if (!form.get(k)) return missing(k);
      const id = rid("cs_test");
      const s = {
        id,
        object: "checkout.session",
        mode: form.get("mode"),
        status: "open",
        payment_status: "unpaid",
        customer: form.get("customer"),
        client_reference_id: form.get("client_reference_id"),
        success_url: form.get("success_url"),
        cancel_url: form.get("cancel_url"),
        metadata: { workspace_id: form.get("metadata[workspace_id]"), plan: form.get("metadata[plan]") },
        subscription_metadata: {
          workspace_id: form.get("subscription_data[metadata][workspace_id]"),
          plan: form.get("subscription_data[metadata][plan]"),
        },
        price: form.get("line_items[0][price]"),
        quantity: Number(form.get("line_items[0][quantity]") ?? 1),
        subscription: null as string | null,
        url: `https://checkout.stripe.com/c/pay/${id}`,
        created: now(),
      };
      sessions.set(id, s);
      const { subscription_metadata: _m, price: _p, quantity: _q, ...wire } = s;
      return { status: 200, json: wire };
    }
    // List portal configurations (https://docs.stripe.com/api/customer_portal/configurations/list):
    // newest first, `active` and `is_default` filters, `limit` (1-100, default 10), `starting_after`
    if (req.method === "GET" && p === "/v1/billing_portal/configurations") {
      const flag = (k: string) => (req.query.get(k) === null ? null : req.query.get(k) === "true");
      const active = flag("active");
      const isDefault = flag("is_default");
      let all = [...portalConfigurations.values()]
        .reverse()
        .filter(
          (c) =>
            (active === null || c.active === active) && (isDefault === null || c.is_default === isDefault),
        );
      const after = req.query.get("starting_after");
      if (after) all = all.slice(all.findIndex((c) => c.id === after) + 1);
      const limit = Math.min(100, Math.max(1, Number(req.query.get("limit") ?? 10)));
      return {
        status: 200,
        json: {
          object: "list",
          url: "/v1/billing_portal/configurations",
          has_more: all.length > limit,
          data: all.slice(0, limit),
        },
      };
    }
    // Create a portal configuration (https://docs.stripe.com/api/customer_portal/configurations/create):
    // `features` is required; plan changes (`features[subscription_update][enabled]`) need their
    // products; an Idempotency-Key replays the first answer
    if (req.method === "POST" && p === "/v1/billing_portal/configurations") {
      const key = String(req.headers["idempotency-key"] ?? "");
      if (key && configurationsByKey.has(key)) return { status: 200, json: configurationsByKey.get(key) };
      if (![...form.keys()].some((k) => k.startsWith("features["))) return missing("features");
      const on = (k: string) => form.get(`features[${k}][enabled]`) === "true";
      const update = on("subscription_update");
      if (update && !form.get("features[subscription_update][products][0][product]"))
        return missing("features[subscription_update][products]");
      const mode = form.get("features[subscription_cancel][mode]") ?? "at_period_end";
      if (!["at_period_end", "immediately"].includes(mode))
        return {
          status: 400,
          json: {
            error: {
              type: "invalid_request_error",
              code: "parameter_invalid",
              message: `Invalid features[subscription_cancel][mode]: must be one of at_period_end or immediately`,
              param: "features[subscription_cancel][mode]",
            },
          },
        };
      const list = (prefix: string) =>
        [...form.entries()].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v);
      const metadata = Object.fromEntries(
        [...form.entries()]
          .filter(([k]) => k.startsWith("metadata["))
          .map(([k, v]) => [k.slice("metadata[".length, -1), v]),
      );
      const c = portalConfiguration({
        subscriptionUpdate: update,
        metadata,
        name: form.get("name"),
        features: {
          customer_update: {
            enabled: on("customer_update"),
            allowed_updates: list("features[customer_update][allowed_updates]"),
          },
          invoice_history: { enabled: on("invoice_history") },
          payment_method_update: { enabled: on("payment_method_update") },
          subscription_cancel: {
            enabled: on("subscription_cancel"),
            mode,
            proration_behavior: form.get("features[subscription_cancel][proration_behavior]") ?? "none",
            cancellation_reason: {
              enabled: form.get("features[subscription_cancel][cancellation_reason][enabled]") === "true",
              options: list("features[subscription_cancel][cancellation_reason][options]"),
            },
          },
        },
      });
      // a replay answers the first response as it was (Stripe stores the response body)
      if (key) configurationsByKey.set(key, structuredClone(c));
      return { status: 200, json: c };
    }
    // Create a portal session (https://docs.stripe.com/api/customer_portal/sessions/create): the home
    // page, or a deep link (`flow_data`, https://docs.stripe.com/customer-management/portal-deep-links);
    // the subscription_update_confirm flow names one of the customer's subscriptions, an item of it and
    // the new price; `configuration` must be an existing bpc_ (the account's default when left out)
    if (req.method === "POST" && p === "/v1/billing_portal/sessions") {
      const customer = form.get("customer");
      if (!customer) return missing("customer");
      if (!customers.has(customer)) return notFound("customer", customer);
      const configuration = form.get("configuration") ?? defaultPortalConfiguration;
      const config = portalConfigurations.get(configuration);
      if (!config?.active) return notFound("configuration", configuration);
      let flow: Record<string, unknown> | null = null;
      const type = form.get("flow_data[type]");
      if (type !== null) {
        const invalid = (param: string, message: string): FakeReply => ({
          status: 400,
          json: { error: { type: "invalid_request_error", code: "parameter_invalid", message, param } },
        });
        if (type !== "subscription_update_confirm")
          return invalid(
            "flow_data[type]",
            `This fake serves only subscription_update_confirm, not ${type}.`,
          );
        const key = "flow_data[subscription_update_confirm]";
        const subId = form.get(`${key}[subscription]`);
        if (!subId) return missing(`${key}[subscription]`);
        const sub = subscriptions.get(subId);
        if (!sub || sub.customer !== customer) return notFound("subscription", subId);
        const itemId = form.get(`${key}[items][0][id]`);
        const price = form.get(`${key}[items][0][price]`);
        if (!itemId) return missing(`${key}[items][0][id]`);
        if (!price) return missing(`${key}[items][0][price]`);
        if (!sub.items.data.some((i: { id: string }) => i.id === itemId))
          return invalid(`${key}[items][0][id]`, `No such subscription item: '${itemId}'`);
        // the flow updates the subscription as the configuration allows
        // (https://docs.stripe.com/customer-management/portal-deep-links)
        if (!config.features.subscription_update.enabled)
          return invalid(
            "flow_data[type]",
            "You can't use a subscription_update_confirm flow with a configuration that has subscription updates disabled.",
          );
        const afterType = form.get("flow_data[after_completion][type]") ?? "portal_homepage";
        flow = {
          type,
          after_completion: {
            type: afterType,
            redirect:
              afterType === "redirect"
                ? { return_url: form.get("flow_data[after_completion][redirect][return_url]") }
                : null,
            hosted_confirmation: null,
          },
          subscription_cancel: null,
          subscription_update: null,
          subscription_update_confirm: {
            subscription: subId,
            items: [
              {
                id: itemId,
                price,
                quantity: Number(form.get(`${key}[items][0][quantity]`) ?? 1),
              },
            ],
            discounts: null,
          },
        };
      }
      const id = rid("bps");
      return {
        status: 200,
        json: {
          id,
          object: "billing_portal.session",
          configuration,
          customer,
          flow,
          locale: null,
          on_behalf_of: null,
          return_url: form.get("return_url"),
          url: `https://billing.stripe.com/p/session/${id}${flow ? "/flow" : ""}`,
          created: now(),
          livemode: false,
        },
      };
    }
    // Retrieve a Checkout Session (https://docs.stripe.com/api/checkout/sessions/retrieve)
    const sessionMatch = p.match(/^\/v1\/checkout\/sessions\/([^/]+)$/);
    if (req.method === "GET" && sessionMatch) {
      const s = sessions.get(sessionMatch[1]);
      if (!s) return notFound("checkout.session", sessionMatch[1]);
      const { subscription_metadata: _m, price: _p, quantity: _q, ...wire } = s;
      return { status: 200, json: wire };
    }
    const subMatch = p.match(/^\/v1\/subscriptions\/([^/]+)$/);
    if (subMatch) {
      const sub = subscriptions.get(subMatch[1]);
      if (!sub) return notFound("subscription", subMatch[1]);
      if (req.method === "DELETE") {
        Object.assign(sub, {
          status: "canceled",
          canceled_at: now(),
          ended_at: now(),
          cancel_at_period_end: false,
        });
      }
      return { status: 200, json: sub };
    }
    if (req.method === "GET" && p === "/v1/invoice_payments") {
      const inv = req.query.get("invoice") ?? "";
      const ip = invoicePayments.get(inv);
      return {
        status: 200,
        json: { object: "list", url: "/v1/invoice_payments", has_more: false, data: ip ? [ip] : [] },
      };
    }
    if (req.method === "POST" && p === "/v1/refunds") {
      const key = String(req.headers["idempotency-key"] ?? "");
      if (key && refundsByKey.has(key)) return { status: 200, json: refundsByKey.get(key) };
      const pi = form.get("payment_intent");
      if (!pi) return missing("payment_intent");
      const paid = [...invoicePayments.values()].find((x) => x.payment.payment_intent === pi);
      if (!paid) return notFound("payment_intent", pi);
      const r = {
        id: rid("re"),
        object: "refund",
        amount: paid.amount_paid,
        currency: "usd",
        payment_intent: pi,
        reason: form.get("reason"),
        status: "succeeded",
        created: now(),
      };
      refunds.push(r);
      if (key) refundsByKey.set(key, r);
      return { status: 200, json: r };
    }
    return {
      status: 404,
      json: {
        error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${p})` },
      },
    };
  }

  const fake = await startFake(route);

  function newInvoice(sub: Record<string, any>, amount: number, paid: boolean) {
    const id = rid("in");
    const pi = rid("pi");
    const invoice = {
      id,
      object: "invoice",
      customer: sub.customer,
      status: paid ? "paid" : "open",
      amount_due: amount,
      amount_paid: paid ? amount : 0,
      currency: "usd",
      billing_reason: "subscription_create",
      parent: {
        type: "subscription_details",
        quote_details: null,
        subscription_details: { subscription: sub.id, metadata: sub.metadata },
      },
      created: now(),
    };
    if (paid)
      invoicePayments.set(id, {
        id: rid("inpay"),
        object: "invoice_payment",
        invoice: id,
        amount_paid: amount,
        amount_requested: amount,
        currency: "usd",
        is_default: true,
        status: "paid",
        payment: { type: "payment_intent", payment_intent: pi },
      });
    sub.latest_invoice = id;
    return invoice;
  }

  return {
    ...fake,
    customers,
    sessions,
    subscriptions,
    refunds,
    portalConfigurations,
    defaultPortalConfiguration,
    /**
     * Adds a portal configuration to the account, as made in the Dashboard (plan changes allowed unless
     * `subscriptionUpdate` is false; `metadata` as given); returns its bpc_ id.
     */
    addPortalConfiguration(opts: { subscriptionUpdate?: boolean; metadata?: Record<string, string> } = {}) {
      return portalConfiguration({
        subscriptionUpdate: opts.subscriptionUpdate ?? true,
        metadata: opts.metadata,
      }).id;
    },
    /**
     * The customer pays the session: an active subscription to its price with a one-month period and
     * a paid invoice. Returns the events Stripe sends: checkout.session.completed,
     * customer.subscription.created, invoice.paid.
     */
    completeCheckout(sessionId: string, amountCents = 4900) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      const start = now();
      const subId = rid("sub");
      const sub: Record<string, any> = {
        id: subId,
        object: "subscription",
        customer: s.customer,
        status: "active",
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        created: start,
        start_date: start,
        metadata: s.subscription_metadata,
        latest_invoice: null,
        items: {
          object: "list",
          data: [
            {
              id: rid("si"),
              object: "subscription_item",
              price: {
                id: s.price,
                object: "price",
                unit_amount: amountCents,
                currency: "usd",
                recurring: { interval: "month" },
              },
              quantity: 1,
              current_period_start: start,
              current_period_end: start + 30 * 86400,
            },
          ],
        },
      };
      subscriptions.set(subId, sub);
      const invoice = newInvoice(sub, amountCents, true);
      Object.assign(s, { status: "complete", payment_status: "paid", subscription: subId });
      const { subscription_metadata: _m, price: _p, quantity: _q, ...wire } = s;
      return [
        event("checkout.session.completed", wire),
        event("customer.subscription.created", { ...sub }),
        event("invoice.paid", invoice),
      ];
    },
    /**
     * Changes a subscription (portal cancel, plan change); returns customer.subscription.updated. A
     * cancel at period end sets `canceled_at` to the time of the request, as Stripe does (`canceled_at`
     * gives that time when it was made earlier, e.g. an event delivered late); undoing it clears it.
     */
    updateSubscription(
      id: string,
      patch: {
        cancel_at_period_end?: boolean;
        price?: string;
        status?: string;
        current_period_end?: number;
        canceled_at?: number;
      },
    ) {
      const sub = subscriptions.get(id);
      if (!sub) throw new Error(`no subscription ${id}`);
      if (patch.cancel_at_period_end !== undefined) {
        sub.cancel_at_period_end = patch.cancel_at_period_end;
        sub.canceled_at = patch.cancel_at_period_end ? (patch.canceled_at ?? now()) : null;
      }
      if (patch.status) sub.status = patch.status;
      if (patch.price) sub.items.data[0].price = { ...sub.items.data[0].price, id: patch.price };
      if (patch.current_period_end) sub.items.data[0].current_period_end = patch.current_period_end;
      return event("customer.subscription.updated", structuredClone(sub));
    },
    /** A renewal payment fails: the subscription goes past_due; returns invoice.payment_failed. */
    failPayment(id: string) {
      const sub = subscriptions.get(id);
      if (!sub) throw new Error(`no subscription ${id}`);
      sub.status = "past_due";
      return event("invoice.payment_failed", newInvoice(sub, sub.items.data[0].price.unit_amount, false));
    },
    /** A renewal payment succeeds: active again; returns invoice.paid. */
    payRenewal(id: string) {
      const sub = subscriptions.get(id);
      if (!sub) throw new Error(`no subscription ${id}`);
      sub.status = "active";
      return event("invoice.paid", newInvoice(sub, sub.items.data[0].price.unit_amount, true));
    },
    /** The subscription ends (period end after a cancel); returns customer.subscription.deleted. */
    endSubscription(id: string) {
      const sub = subscriptions.get(id);
      if (!sub) throw new Error(`no subscription ${id}`);
      Object.assign(sub, { status: "canceled", ended_at: now(), canceled_at: now() });
      return event("customer.subscription.deleted", structuredClone(sub));
    },
  };
}
export type StripeFake = Awaited<ReturnType<typeof startStripeFake>>;
