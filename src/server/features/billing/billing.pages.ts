/**
 * Server-rendered pages of the local payments provider (issue 12): the test checkout at
 * /local-checkout/{session} and the test billing portal at /local-portal. Plain HTML with inline CSS
 * (no client bundle), readable at 390 px wide.
 */

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function layout(title: string, body: string) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
*{box-sizing:border-box}body{margin:0;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f4f5;color:#18181b}
main{max-width:440px;margin:0 auto;padding:24px 16px}
.badge{display:inline-block;background:#fef3c7;color:#92400e;border:1px solid #f59e0b;border-radius:6px;padding:4px 8px;font-size:13px;font-weight:600}
.card{background:#fff;border:1px solid #e4e4e7;border-radius:12px;padding:20px;margin-top:16px}
h1{font-size:22px;margin:12px 0 4px}p{margin:6px 0}.muted{color:#52525b;font-size:14px}
.price{font-size:28px;font-weight:700}label{display:block;font-size:14px;font-weight:600;margin:12px 0 4px}
input{width:100%;padding:10px 12px;border:1px solid #d4d4d8;border-radius:8px;font-size:16px}
.row{display:flex;gap:12px}.row>div{flex:1}
button,.btn{display:block;width:100%;margin-top:16px;padding:12px;border:0;border-radius:8px;background:#18181b;color:#fff;font-size:16px;font-weight:600;cursor:pointer;text-align:center;text-decoration:none}
.btn.secondary,button.secondary{background:#fff;color:#18181b;border:1px solid #d4d4d8}
.error{background:#fee2e2;color:#991b1b;border:1px solid #fca5a5;border-radius:8px;padding:10px 12px;margin-top:12px}
.ok{background:#dcfce7;color:#166534;border:1px solid #86efac;border-radius:8px;padding:10px 12px;margin-top:12px}
</style></head><body><main>${body}</main></body></html>`;
}

/** The test checkout page: plan, price, a card form, and the decline message when there is one. */
export function checkoutPage(s: {
  id: string;
  planName: string;
  amountCents: number;
  status: string;
  cancelUrl: string;
  error?: string;
  cardNumber?: string;
}) {
  const paid = s.status !== "open";
  return layout(
    `Checkout - ${s.planName}`,
    `<span class="badge" role="note">Test checkout - no real payment</span>
<h1>Subscribe to ${esc(s.planName)}</h1>
<p class="muted">Pitchwise ${esc(s.planName)} plan, billed monthly</p>
<div class="card"><div class="price">${usd(s.amountCents)} <span class="muted">per month</span></div>
${
  paid
    ? `<div class="ok">This checkout has already been paid.</div><a class="btn" href="/pricing">Back to Pricing</a>`
    : `${s.error ? `<div class="error" role="alert">${esc(s.error)}</div>` : ""}
<form method="post" action="/local-checkout/${esc(s.id)}">
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" value="${esc(s.cardNumber ?? "")}" required>
<div class="row"><div><label for="exp">Expiry</label><input id="exp" name="exp" placeholder="MM / YY" autocomplete="cc-exp"></div>
<div><label for="cvc">CVC</label><input id="cvc" name="cvc" placeholder="123" inputmode="numeric" autocomplete="cc-csc"></div></div>
<button type="submit">Pay ${usd(s.amountCents)}</button>
</form>
<p class="muted">Test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined.</p>
<a class="btn secondary" href="${esc(s.cancelUrl)}">Cancel</a>`
}</div>`,
  );
}

/**
 * The test billing portal: the subscription and cancel (once set to cancel, "Keep my {plan} plan" takes
 * the cancel back, as Stripe's "Renew plan"); for a held (unpaid or paused) subscription, the payment
 * that resumes it (a test card form). Like Stripe's home page on the configuration Pitchwise keeps
 * (plan changes off), the home page changes no plan: "Change plan" goes to /pricing, whose seat check
 * sends a plan that fits back here as `confirmPlan`, the one plan change this page offers.
 */
export function portalPage(p: {
  planName: string | null;
  plan: string | null;
  held?: boolean;
  status: string | null;
  periodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  returnUrl: string;
  plans: { id: string; name: string; amountCents: number }[];
  /** the plan chosen on /pricing (`?plan=`): shown first, to confirm (as Stripe's update-confirm deep link) */
  confirmPlan?: string | null;
  message?: string;
  error?: string;
}) {
  const active = p.plan && p.status && p.status !== "canceled";
  // each form keeps the page's return_url, so "Back to Pitchwise" after an action still goes there
  const back = `?return_url=${esc(encodeURIComponent(p.returnUrl))}`;
  const confirm =
    active && !p.held && !p.message && !p.error && p.confirmPlan !== p.plan
      ? p.plans.find((x) => x.id === p.confirmPlan)
      : undefined;
  return layout(
    "Billing portal",
    `<span class="badge" role="note">Test billing portal - no real payment</span>
<h1>Your subscription</h1>
${p.message ? `<div class="ok" role="status">${esc(p.message)}</div>` : ""}
${p.error ? `<div class="error" role="alert">${esc(p.error)}</div>` : ""}
${
  confirm
    ? `<section class="card" aria-labelledby="confirm-plan"><h2 id="confirm-plan">Confirm your new plan</h2>
<p>Switch from <strong>${esc(p.planName ?? "")}</strong> to <strong>${esc(confirm.name)}</strong> (${usd(confirm.amountCents)}/month). The change applies now; the difference for the rest of this period is prorated.</p>
<form method="post" action="/local-portal/change${back}"><input type="hidden" name="plan" value="${esc(confirm.id)}">
<button type="submit">Confirm ${esc(confirm.name)}</button></form></section>`
    : ""
}
<div class="card">${
      active
        ? `<p><strong>${esc(p.planName ?? "")}</strong> - ${esc(p.status ?? "")}</p>
${
  p.held
    ? `<p class="error" role="alert">${esc(
        p.status === "paused"
          ? `Your trial ended without a payment method, so this subscription is paused. Pay to resume ${p.planName ?? ""}.`
          : `Your last payment failed and the retries have stopped. Pay the open invoice to restore ${p.planName ?? ""}.`,
      )}</p>
<form method="post" action="/local-portal/pay${back}">
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<button type="submit">Pay ${usd(p.plans.find((x) => x.id === p.plan)?.amountCents ?? 0)} and resume</button>
</form>
<p class="muted">Test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined.</p>`
    : `<p class="muted">${p.cancelAtPeriodEnd ? "Ends" : "Renews"} on ${p.periodEnd ? esc(p.periodEnd.toISOString().slice(0, 10)) : "-"}</p>
<p class="muted">To change plans, choose one on Pitchwise's pricing page: it checks your team's seats first and brings you back here to confirm.</p>
<a class="btn secondary" href="/pricing">Change plan</a>`
}
${
  p.cancelAtPeriodEnd
    ? p.held
      ? ""
      : `<form method="post" action="/local-portal/renew${back}"><button type="submit">Keep my ${esc(p.planName ?? "")} plan</button></form>`
    : `<a class="btn" href="/local-portal/cancel${back}">Cancel subscription</a>`
}`
        : `<p>No active subscription.</p><a class="btn" href="/pricing">Choose a plan</a>`
    }</div>
<a class="btn secondary" href="${esc(p.returnUrl)}">Back to Pitchwise</a>`,
  );
}

/**
 * The test billing portal's cancel confirmation (as Stripe's portal asks before it cancels): what a
 * cancel does now (`refundNow`: within the 14-day money-back guarantee, refunded in full and Free at
 * once; else the plan stays until `periodEnd`), a button that posts the cancel, and a way back.
 */
export function cancelConfirmPage(p: {
  planName: string;
  refundNow: boolean;
  periodEnd: Date | null;
  returnUrl: string;
}) {
  const back = `?return_url=${esc(encodeURIComponent(p.returnUrl))}`;
  const what = p.refundNow
    ? "It is within 14 days of your first payment, so it ends now, your payment is refunded in full and the workspace moves to the Free plan."
    : `You keep ${esc(p.planName)} until ${p.periodEnd ? esc(p.periodEnd.toISOString().slice(0, 10)) : "the end of the period"}; then the workspace moves to the Free plan. Nothing is deleted.`;
  return layout(
    "Cancel subscription",
    `<span class="badge" role="note">Test billing portal - no real payment</span>
<h1>Cancel your ${esc(p.planName)} subscription?</h1>
<div class="card"><p>${what}</p>
<form method="post" action="/local-portal/cancel${back}"><button type="submit">Cancel subscription</button></form></div>
<a class="btn secondary" href="/local-portal${back}">Keep my ${esc(p.planName)} plan</a>`,
  );
}

/** The test billing portal for someone who may not use it (not the owner): the server's sentence and a way back. */
export function portalRefusedPage(message: string) {
  return layout(
    "Billing portal",
    `<span class="badge" role="note">Test billing portal - no real payment</span>
<h1>Billing portal</h1>
<div class="error" role="alert">${esc(message)}</div>
<a class="btn secondary" href="/settings?tab=billing">Back to Pitchwise</a>`,
  );
}
