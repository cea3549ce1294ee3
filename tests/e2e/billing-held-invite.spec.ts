import { expect, type Page, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";
import { buildSms, registerWithContact } from "./billing-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * A Business workspace whose subscription is unpaid counts as Free (1 seat) until it is paid. Settings >
 * Team sends its owner to Billing to pay, not to /pricing to upgrade to the plan they already have:
 * the full-seats hint (Send invitation off while it shows) and the refused invitation of a screen
 * opened before the hold (the server's sentence, billing.plans) link to the Billing tab. An admin, who cannot pay, is told that only the owner can, with no link.
 */
/** The pause reason the send engine leaves when the subscription is unpaid (its own test: billing-held-limit-message.int). */
const HELD_PAUSE_REASON =
  "Your Business subscription is unpaid, so the Free plan's limits apply: 100 emails a month and 100 are already used or reserved this billing period. Pay the open invoice in Settings > Billing to restore unlimited emails. The campaign was paused with its remaining messages unsent: resume it once your subscription is paid, or cancel it.";

/** Sets the subscription status of the workspace `ownerEmail` owns (what Stripe's events would). */
async function setStatusOf(ownerEmail: string, status: "active" | "unpaid"): Promise<void> {
  await withE2eDb(
    (sql) =>
      sql`update workspaces set subscription_status = ${status} where owner_id = (select id from users where email = ${ownerEmail})`,
  );
}

/** Launches a one-recipient email campaign as the signed-in page's user (REST); returns its id. */
async function launchEmailCampaign(page: Page, name: string): Promise<number> {
  const origin = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;
  const res = await page.request.post("/api/campaigns", {
    headers: { origin },
    data: {
      name,
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { csv: [{ email: `to-${Date.now()}@example.com` }] },
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()).campaign.id as number;
}

test("an unpaid Business workspace inviting a teammate is told to pay in Billing, not to upgrade", async ({
  page,
}) => {
  const email = await registerVerifiedBusiness(page, {
    prefix: "held-invite",
    name: "Hana Held",
    business: "Held Plumbing",
  });
  await withE2eDb(
    (sql) =>
      sql`update workspaces set subscription_status = 'unpaid' where owner_id = (select id from users where email = ${email})`,
  );

  await page.goto("/settings?tab=team");
  await expect(
    page.getByText(
      "Every seat of the Free plan is in use while your Business subscription waits for a payment.",
    ),
  ).toBeVisible();
  await expect(page.getByRole("link", { name: "Pay in Billing to restore Business" })).toHaveAttribute(
    "href",
    "/settings?tab=billing",
  );
  await expect(page.getByRole("link", { name: "Upgrade for more seats" })).toHaveCount(0);
  // the server's seat check (seats.full) keeps Send invitation off, the hint saying why
  await expect(page.getByRole("button", { name: "Send invitation" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Send invitation" })).toHaveAccessibleDescription(
    /^Every seat of the Free plan is in use/,
  );

  // a screen opened while the plan was paid and held afterwards: the server's refusal says it
  await setStatusOf(email, "active");
  await page.reload();
  await expect(page.getByRole("button", { name: "Send invitation" })).toBeEnabled();
  await setStatusOf(email, "unpaid");
  await page.getByLabel("Email").fill(`mate-${Date.now()}@example.com`);
  await page.getByRole("button", { name: "Send invitation" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "in Settings > Billing to restore" });
  await expect(alert).toContainText(
    "Your Business subscription is unpaid, so the Free plan's limits apply: 1 team member, counting the owner, and it is taken. Pay the open invoice in Settings > Billing to restore up to 5 team members.",
  );
  await expect(alert.getByRole("link", { name: "See plans" })).toHaveCount(0);
  await alert.getByRole("link", { name: "Go to Billing" }).click();
  await expect(page).toHaveURL(/\/settings\?tab=billing$/);
  // the Billing tab says how the plan is held (and the banner above every page the same)
  await expect(
    page
      .getByRole("tabpanel")
      .getByText(
        "Your last payment failed and the payment retries have stopped, so the Free plan applies: update your card to restore Business.",
      ),
  ).toBeVisible();
});

test("a campaign paused because the Business subscription is unpaid links to Billing, not to /pricing", async ({
  page,
}) => {
  const email = await registerVerifiedBusiness(page, {
    prefix: "held-campaign",
    name: "Hal Held",
    business: "Held Bakery",
  });
  const id = await launchEmailCampaign(page, "E2E held");
  await withE2eDb(async (sql) => {
    await sql`update workspaces set subscription_status = 'unpaid' where owner_id = (select id from users where email = ${email})`;
    await sql`update campaigns set status = 'paused', pause_cause = 'plan', error = ${HELD_PAUSE_REASON} where id = ${id}`;
  });
  await page.goto(`/campaigns/${id}`);
  await expect(page.getByText("Paused by your plan")).toBeVisible();
  await expect(page.getByText(HELD_PAUSE_REASON)).toBeVisible();
  await expect(page.getByRole("link", { name: "See plans" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Go to Billing" })).toHaveAttribute(
    "href",
    "/settings?tab=billing",
  );
});

test("an SMS launch refused while the Business subscription is unpaid links to Billing, not to /pricing", async ({
  page,
}) => {
  const email = await registerWithContact(page);
  await withE2eDb(
    (sql) =>
      sql`update workspaces set plan = 'business', subscription_status = 'unpaid' where owner_id = (select id from users where email = ${email})`,
  );
  await buildSms(page, Math.random().toString(36).slice(2, 8));
  const refusal = page
    .getByRole("alert")
    .filter({ hasText: "which applies while your Business subscription is unpaid" });
  await expect(refusal).toContainText("SMS and voice campaigns are not included in your Free plan");
  await expect(refusal.getByRole("link", { name: "See plans" })).toHaveCount(0);
  await expect(refusal.getByRole("link", { name: "Go to Billing" })).toHaveAttribute(
    "href",
    "/settings?tab=billing",
  );
});

test("an admin of an unpaid Business workspace is told only the owner can pay, with no link to Billing", async ({
  page,
  browser,
}) => {
  const ownerEmail = await registerVerifiedBusiness(page, {
    prefix: "held-owner",
    name: "Oona Owner",
    business: "Held Florist",
  });
  const id = await launchEmailCampaign(page, "E2E held admin");

  // Ada, an admin of the owner's workspace (a membership made directly; the invitation flow has its own spec)
  const context = await browser.newContext();
  const admin = await context.newPage();
  const adminEmail = await registerVerifiedBusiness(admin, {
    prefix: "held-admin",
    name: "Ada Admin",
    business: "Ada's Own",
  });
  await withE2eDb(async (sql) => {
    const [ws] =
      await sql`select id from workspaces where owner_id = (select id from users where email = ${ownerEmail})`;
    const [ada] = await sql`select id from users where email = ${adminEmail}`;
    await sql`insert into workspace_members (workspace_id, user_id, role) values (${ws!.id}, ${ada!.id}, 'admin')`;
    await sql`update sessions set workspace_id = ${ws!.id} where user_id = ${ada!.id}`;
    await sql`update workspaces set subscription_status = 'unpaid' where id = ${ws!.id}`;
    await sql`update campaigns set status = 'paused', pause_cause = 'plan', error = ${HELD_PAUSE_REASON} where id = ${id}`;
  });

  const ownerOnly = "Only the workspace owner can pay for or change the plan.";
  await admin.goto(`/campaigns/${id}`);
  await expect(admin.getByText("Paused by your plan")).toBeVisible();
  await expect(admin.getByText(HELD_PAUSE_REASON)).toBeVisible();
  await expect(admin.getByText(ownerOnly, { exact: true })).toBeVisible();
  await expect(admin.getByRole("link", { name: "Go to Billing" })).toHaveCount(0);
  await expect(admin.getByRole("link", { name: "See plans" })).toHaveCount(0);
  // the held plan's banner: no payment button for an admin (Billing's portal is the owner's)
  const heldBanner = admin.getByRole("alert").filter({ hasText: "Your subscription is unpaid" });
  await expect(heldBanner).toContainText(`update your card to restore Business. ${ownerOnly}`);
  await expect(heldBanner.getByRole("button", { name: "Update payment method" })).toHaveCount(0);

  await admin.goto("/settings?tab=team");
  await expect(
    admin.getByText(
      "Every seat of the Free plan is in use while your Business subscription waits for a payment.",
    ),
  ).toContainText(ownerOnly);
  await expect(admin.getByRole("link", { name: "Pay in Billing to restore Business" })).toHaveCount(0);
  await expect(admin.getByRole("button", { name: "Send invitation" })).toBeDisabled();
  await setStatusOf(ownerEmail, "active");
  await admin.reload();
  await expect(admin.getByRole("button", { name: "Send invitation" })).toBeEnabled();
  await setStatusOf(ownerEmail, "unpaid");
  await admin.getByLabel("Email").fill(`mate-${Date.now()}@example.com`);
  await admin.getByRole("button", { name: "Send invitation" }).click();
  const alert = admin.getByRole("alert").filter({ hasText: "in Settings > Billing to restore" });
  await expect(alert).toContainText(
    `Pay the open invoice in Settings > Billing to restore up to 5 team members. ${ownerOnly}`,
  );
  await expect(alert.getByRole("link")).toHaveCount(0);
  // Settings > Billing: changing the plan and the billing portal are the owner's
  await admin.goto("/settings?tab=billing");
  await expect(admin.getByText("Team members", { exact: true })).toBeVisible();
  await expect(admin.getByText(ownerOnly, { exact: true })).toBeVisible();
  await expect(admin.getByRole("button", { name: "Manage subscription" })).toHaveCount(0);
  await expect(admin.getByRole("link", { name: "Upgrade" })).toHaveCount(0);

  // the owner still gets the links
  await page.goto("/settings?tab=billing");
  await expect(page.getByRole("button", { name: "Manage subscription" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Upgrade", exact: true })).toHaveAttribute("href", "/pricing");
  await expect(page.getByText(ownerOnly)).toHaveCount(0);
  await page.goto(`/campaigns/${id}`);
  await expect(page.getByRole("link", { name: "Go to Billing" })).toHaveAttribute(
    "href",
    "/settings?tab=billing",
  );
  await expect(page.getByText(ownerOnly)).toHaveCount(0);
  await expect(
    page
      .getByRole("alert")
      .filter({ hasText: "Your subscription is unpaid" })
      .getByRole("button", { name: "Update payment method" }),
  ).toBeVisible();
  await context.close();
});
