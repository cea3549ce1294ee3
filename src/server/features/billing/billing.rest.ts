import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { countContacts } from "../crm/crm.service";
import { workspaceSeatsOf } from "../workspaces/workspaces.service";
import { cancelConfirmPage, checkoutPage, portalPage, portalRefusedPage } from "./billing.pages";
import { PLANS } from "./billing.plans";
import { checkoutInput, localCheckoutForm, localPlanChangeForm } from "./billing.schemas";
import * as svc from "./billing.service";

/**
 * Billing REST adapters: the spec's `POST /api/payment/create-checkout-session` (section 7),
 * `POST /api/payment/portal`, `GET /api/billing/usage`, `POST /api/webhooks/stripe` (raw body,
 * signature-verified), and the local provider's test checkout and portal pages.
 */
export async function billingRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/payment/create-checkout-session", async (req) => {
    const tenant = requireTenant(req);
    const input = parseInput(checkoutInput, req.body ?? {});
    const { url, portal } = await svc.createCheckout(ctx, tenant, input);
    return { success: true, url, portal };
  });

  app.post("/api/payment/portal", async (req) => {
    const { url } = await svc.createPortal(ctx, requireTenant(req));
    return { success: true, url };
  });

  app.get("/api/billing/plans", async (req) => ({
    success: true,
    ...(await svc.listPlans(ctx, requireTenant(req))),
  }));

  app.get("/api/billing/usage", async (req) => {
    const t = requireTenant(req);
    return svc.getUsage(
      ctx,
      t.workspaceId,
      {
        contacts: await countContacts(ctx, t.workspaceId),
        seats: await workspaceSeatsOf(ctx, t.workspaceId),
      },
      t.role,
    );
  });

  // the webhook needs its raw bytes for the signature: its own content-type parsers, scoped here
  await app.register(async (hook) => {
    hook.removeAllContentTypeParsers();
    hook.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 512 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    hook.post("/api/webhooks/stripe", async (req) => {
      if (!Buffer.isBuffer(req.body) || req.body.length === 0)
        throw new AppError("BAD_REQUEST", "Expected the raw JSON event as the request body");
      const signature = req.headers["stripe-signature"];
      const result = await svc.handlePaymentWebhook(
        ctx,
        req.body,
        typeof signature === "string" ? signature : undefined,
      );
      return { received: true, duplicate: result.duplicate };
    });
  });

  if (!svc.localCheckoutEnabled(ctx.env)) return;

  // ---- local provider pages (outside production, or LOCAL_CHECKOUT_ENABLED) ----
  // their forms POST back here; Helmet's `no-referrer` would make browsers send `Origin: null`, which
  // the same-origin check refuses, so these pages use `same-origin` (the Origin is then sent)
  const sessionOf = async (req: FastifyRequest) => {
    const { id } = req.params as { id: string };
    const s = id.length <= 100 ? await svc.localPayments(ctx).getCheckoutSession(id) : null;
    if (!s) throw new AppError("NOT_FOUND", "This checkout session does not exist.");
    return s;
  };

  /** An HTML page of the local provider, with the referrer policy its forms need (see above). */
  const html = (reply: FastifyReply, body: string, status = 200) =>
    reply.status(status).type("text/html").header("referrer-policy", "same-origin").send(body);

  app.get("/local-checkout/:id", async (req, reply) => html(reply, checkoutPage(await sessionOf(req))));

  app.post("/local-checkout/:id", async (req, reply) => {
    const s = await sessionOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const cardRaw = typeof body.card_number === "string" ? body.card_number : "";
    const form = localCheckoutForm.safeParse(body);
    if (!form.success || !cardRaw.trim())
      return html(
        reply,
        checkoutPage({ ...s, error: "Enter a card number.", cardNumber: cardRaw.slice(0, 40) }),
        400,
      );
    const result = await svc.payLocalCheckout(ctx, s.id, form.data.card_number);
    if (!result.ok)
      return html(
        reply,
        checkoutPage({
          ...s,
          ...(result.session ?? {}),
          error: result.message,
          cardNumber: form.data.card_number,
        }),
        402,
      );
    return reply.redirect(result.redirect, 303);
  });

  const renderPortal = async (req: FastifyRequest, extra: { message?: string; error?: string } = {}) => {
    const { ws, sub, plan, heldPlan } = await svc.localPortalState(ctx, requireTenant(req));
    const q = req.query as { return_url?: string; plan?: string };
    const returnUrl = sameOriginUrl(q.return_url, ctx.env.APP_URL) ?? "/settings?tab=billing";
    const shown = heldPlan ?? plan;
    // the plan a change from /pricing opens on (LocalPaymentsProvider createPortalSession's planChange)
    const confirmPlan = svc.PAID_PLAN_IDS.find((id) => id === q.plan) ?? null;
    return portalPage({
      plan: sub ? shown : null,
      planName: PLANS[shown].name,
      held: heldPlan !== null,
      status: sub?.status ?? null,
      periodEnd: ws.currentPeriodEnd,
      cancelAtPeriodEnd: ws.cancelAtPeriodEnd,
      returnUrl,
      confirmPlan,
      plans: svc.PAID_PLAN_IDS.map((id) => ({
        id,
        name: PLANS[id].name,
        amountCents: PLANS[id].priceMonthlyUsd * 100,
      })),
      ...extra,
    });
  };

  /**
   * A local portal form's POST: `act` does the change and returns the sentence to show; the portal
   * is shown again with it, or with a refusal's sentence and its status (a 4xx AppError).
   */
  const portalAction = async (
    req: FastifyRequest,
    reply: FastifyReply,
    act: (tenant: ReturnType<typeof requireTenant>) => Promise<string>,
  ) => {
    const tenant = requireTenant(req);
    try {
      return html(reply, await renderPortal(req, { message: await act(tenant) }));
    } catch (e) {
      if (e instanceof AppError && e.status < 500) return refusedOrPortal(req, reply, e);
      throw e;
    }
  };

  /**
   * A refusal as a page: the portal with the sentence, or, when the portal itself is refused (not
   * the owner: FORBIDDEN), a page with the sentence and a way back, never the JSON error body.
   */
  const refusedOrPortal = async (req: FastifyRequest, reply: FastifyReply, e: AppError) => {
    try {
      return html(reply, await renderPortal(req, { error: e.message }), e.status);
    } catch (again) {
      if (again instanceof AppError && again.status < 500)
        return html(reply, portalRefusedPage(again.message), again.status);
      throw again;
    }
  };

  /** Renders a portal page, or its refusal as a page (refusedOrPortal). */
  const portalGet = async (req: FastifyRequest, reply: FastifyReply, render: () => Promise<string>) => {
    if (!req.auth) return reply.redirect("/login?redirect=%2Flocal-portal", 303);
    try {
      return html(reply, await render());
    } catch (e) {
      if (e instanceof AppError && e.status < 500) return html(reply, portalRefusedPage(e.message), e.status);
      throw e;
    }
  };

  app.get("/local-portal", (req, reply) => portalGet(req, reply, () => renderPortal(req)));

  // the cancel asks first, as Stripe's portal does: what it does now (refund or end of period)
  app.get("/local-portal/cancel", (req, reply) =>
    portalGet(req, reply, async () => {
      const { ws, plan, heldPlan } = await svc.localPortalState(ctx, requireTenant(req));
      const q = req.query as { return_url?: string };
      return cancelConfirmPage({
        planName: PLANS[heldPlan ?? plan].name,
        refundNow: await svc.moneyBackOnCancel(ctx, ws),
        periodEnd: ws.currentPeriodEnd,
        returnUrl: sameOriginUrl(q.return_url, ctx.env.APP_URL) ?? "/settings?tab=billing",
      });
    }),
  );

  app.post("/local-portal/cancel", async (req, reply) =>
    portalAction(req, reply, async (tenant) => {
      await svc.localPortalCancel(ctx, tenant);
      const after = await svc.localPortalState(ctx, tenant);
      return after.plan === "free" && !after.heldPlan
        ? "Your subscription is canceled and your payment was refunded in full (14-day money-back guarantee)."
        : "Your subscription will end at the end of the current period.";
    }),
  );

  app.post("/local-portal/renew", async (req, reply) =>
    portalAction(req, reply, async (tenant) => {
      await svc.localPortalRenew(ctx, tenant);
      const after = await svc.localPortalState(ctx, tenant);
      return `Your ${PLANS[after.plan].name} plan will renew. Nothing was canceled.`;
    }),
  );

  app.post("/local-portal/pay", async (req, reply) =>
    portalAction(req, reply, async (tenant) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const card = typeof body.card_number === "string" ? body.card_number : "";
      const form = localCheckoutForm.safeParse(body);
      if (!form.success || !card.trim()) throw new AppError("BAD_REQUEST", "Enter a card number.");
      await svc.localPortalPay(ctx, tenant, form.data.card_number);
      const after = await svc.localPortalState(ctx, tenant);
      return `Payment received. Your ${PLANS[after.plan].name} plan is active again.`;
    }),
  );

  app.post("/local-portal/change", async (req, reply) =>
    portalAction(req, reply, async (tenant) => {
      const { plan } = parseInput(localPlanChangeForm, req.body ?? {});
      await svc.localPortalChangePlan(ctx, tenant, plan);
      return `Your plan is now ${PLANS[plan].name}.`;
    }),
  );
}

/**
 * `raw` when it is an absolute URL on APP_URL's origin (scheme, host and port compared after
 * parsing), else null. A text prefix test is not enough: "https://app.example@evil.example/" and
 * "https://app.example.evil.example/" start with "https://app.example".
 */
function sameOriginUrl(raw: unknown, appUrl: string): string | null {
  if (typeof raw !== "string") return null;
  try {
    const url = new URL(raw);
    return url.origin === new URL(appUrl).origin && !url.username && !url.password ? url.href : null;
  } catch {
    return null;
  }
}
