import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerified, registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * QA findings on plans and limits, each reproduced by a tester as a small-business owner:
 * - the 'Plan limit reached' banner said new contacts and imports "are refused until Dec 1, 2026 or an
 *   upgrade", though the contact limit is no monthly meter: nothing changes on that date (and the
 *   sentence began in lower case);
 * - a plan refusal met outside the campaign builders and Settings > Team (Add Contact at the contact
 *   limit, a lead search past the month's searches, a Free owner creating an API key) said "Upgrade to
 *   ..." with no way there: no link to /pricing;
 * - on a paid plan, /pricing offered the cheaper plans as 'Upgrade to Professional';
 * - a Business workspace of four moved to Professional (1 team member) and kept all four: the choice is
 *   refused in the plan's card with a link to Settings > Team, and a downgrade made elsewhere shows a banner;
 * - at 390 px, Settings > Team squeezed a member's name and address to a 60 px column broken letter by
 *   letter beside the role picker and Remove button.
 */

test.use({ reducedMotion: "reduce" });

/** A new verified account on the Free plan (signed in in `page`); returns its address. */
function registerFree(page: Page, prefix: string): Promise<string> {
  return registerVerified(page, { prefix, name: "Fay Free", business: "Fay Co" });
}

/** Subscribes the signed-in workspace to Professional through /pricing and the local test checkout. */
async function subscribeProfessional(page: Page) {
  await page.goto("/pricing");
  await page.getByRole("button", { name: "Upgrade to Professional" }).click();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay/ }).click();
  await expect(page.getByText("Payment successful! Your subscription is now active.")).toBeVisible();
}

/** Imports `n` contacts through the spec's JSON import. */
async function importContacts(page: Page, n: number) {
  const origin = new URL(page.url()).origin;
  const res = await page.request.post("/api/contacts/import", {
    data: {
      contacts: Array.from({ length: n }, (_, i) => ({
        first_name: `P${i}`,
        email: `p${i}-${Date.now()}@example.com`,
      })),
    },
    headers: { origin },
  });
  expect(res.ok(), await res.text()).toBe(true);
}

test("at the contact limit the banner never promises contacts back on the period's end date", async ({
  page,
}) => {
  await registerFree(page, "limit-banner");
  await importContacts(page, 100);
  // the month's lead searches are used up too: that one does come back on the period's end date
  await withE2eDb(
    (sql) =>
      sql`insert into usage_meters (workspace_id, meter, period_start, used)
          select w.id, 'leadSearches', date_trunc('month', now() at time zone 'UTC') at time zone 'UTC', 10
          from workspaces w join users u on u.id = w.owner_id where u.email like 'limit-banner-%'
          on conflict do nothing`,
  );
  await page.goto("/dashboard");
  const banner = page.getByRole("alert").filter({ hasText: "Plan limit reached" });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(
    "You have used all 100 contacts your Free plan includes: new contacts and imports are refused until you upgrade or delete contacts.",
  );
  await expect(banner).toContainText(
    // the period's end as the moment it happens where the viewer is (lib/format formatMoment)
    /You have used all the lead searches your Free plan includes this billing period: lead searches are refused until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M \S+ or an upgrade\./,
  );
  await expect(banner).not.toContainText(/contacts[^.]*refused until [A-Z][a-z]{2} \d/);
});

test("Add Contact at the contact limit links the owner to the plans", async ({ page }) => {
  await registerFree(page, "limit-add");
  await importContacts(page, 100);
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Add Contact" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("First name").fill("One");
  await dialog.getByLabel("Email").fill(`one-more-${Date.now()}@example.com`);
  await dialog.getByRole("button", { name: "Add Contact" }).click();
  await expect(dialog).toContainText("Your Free plan includes 100 contacts");
  await expect(dialog.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
});

test("a lead search past the month's searches links the owner to the plans", async ({ page }) => {
  const email = await registerFree(page, "limit-search");
  await withE2eDb(
    (sql) =>
      sql`insert into usage_meters (workspace_id, meter, period_start, used)
          select w.id, 'leadSearches', date_trunc('month', now() at time zone 'UTC') at time zone 'UTC', 10
          from workspaces w join users u on u.id = w.owner_id where u.email = ${email}`,
  );
  await page.goto("/contacts/business-search");
  await page.getByPlaceholder("Location (city, state or zip)").fill("Flint, MI");
  await page.getByPlaceholder(/business type/i).fill("bakery");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const banner = page.getByRole("alert").filter({ hasText: "10 lead searches a month" });
  await expect(banner).toBeVisible();
  await expect(banner.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
});

test("a Free owner creating an API key is linked to the plans", async ({ page }) => {
  await registerFree(page, "limit-apikey");
  await page.goto("/settings?tab=api-keys");
  // the tab says so before any attempt (ApiAccessNotice), and the refused create says it again
  await expect(
    page.getByRole("alert").filter({ hasText: "API access is not included in the Free plan" }),
  ).toBeVisible();
  await page.getByLabel("Name").fill("Zapier");
  await page.getByRole("button", { name: "Create key" }).click();
  const banner = page.getByRole("alert").filter({ hasText: "API access is not included in your Free plan" });
  await expect(banner).toBeVisible();
  await expect(banner.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
});

test("on a paid plan /pricing offers the cheaper plans as downgrades, not upgrades", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "pricing-down", name: "Bea", business: "Bea Co" });
  await page.goto("/pricing");
  await expect(page.getByTestId("plan-business").getByRole("button")).toHaveText("Current Plan");
  await expect(page.getByTestId("plan-professional").getByRole("button")).toHaveText(
    "Downgrade to Professional",
  );
  await expect(page.getByTestId("plan-enterprise").getByRole("button")).toHaveText("Upgrade to Enterprise");
});

test("at 1280 px the cards' plan buttons show their whole label", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await registerVerifiedBusiness(page, { prefix: "pricing-clip", name: "Cid", business: "Cid Co" });
  await page.goto("/pricing");
  const down = page.getByTestId("plan-professional").getByRole("button");
  await expect(down).toHaveText("Downgrade to Professional");
  // the label was 178 px in a 168 px button with nowrap: "owngrade to Professiona"
  const clipped = await down.evaluate(
    (b) => b.scrollWidth > b.clientWidth || b.scrollHeight > b.clientHeight,
  );
  expect(clipped).toBe(false);
});

test("a second checkout paid in another tab is refunded, and the page says so instead of 'Payment successful'", async ({
  page,
}) => {
  await registerFree(page, "two-checkouts");
  const origin = new URL(page.url()).origin;
  // two tabs opened checkouts before either was paid
  const open = async (priceId: string, planName: string) => {
    const res = await page.request.post("/api/payment/create-checkout-session", {
      data: { priceId, planName },
      headers: { origin },
    });
    expect(res.ok(), await res.text()).toBe(true);
    return (await res.json()).url as string;
  };
  const business = await open("price_business", "business");
  const enterprise = await open("price_enterprise", "enterprise");
  const pay = async (url: string) => {
    await page.goto(url);
    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByRole("button", { name: /^Pay/ }).click();
    await expect(page).toHaveURL(/\/pricing\?success=true/);
  };
  await pay(business);
  await expect(page.getByText("Payment successful! Your subscription is now active.")).toBeVisible();
  await pay(enterprise);
  const banner = page.getByText(
    "This workspace already has the Business plan, so your Enterprise payment was refunded in full and that subscription ended.",
  );
  await expect(banner).toBeVisible();
  await expect(page.getByText("Payment successful! Your subscription is now active.")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Billing" })).toBeVisible();
  // it stays to be read (a success goes to the dashboard after 3 s)
  await page.waitForTimeout(3_500);
  await expect(page).toHaveURL(/\/pricing/);
  await expect(page.getByTestId("plan-business").getByRole("button")).toHaveText("Current Plan");
});

test("a Business owner of four choosing Professional is told in its card to free 3 seats; a downgrade that landed anyway shows a banner", async ({
  page,
}) => {
  const owner = await registerVerifiedBusiness(page, {
    prefix: "seats-down",
    name: "Sid",
    business: "Sid Co",
  });
  const origin = new URL(page.url()).origin;
  for (const who of ["ana", "ben", "cy"]) {
    const res = await page.request.post("/api/workspaces/current/invites", {
      data: { email: `${who}-${Date.now()}@example.com` },
      headers: { origin },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  await page.goto("/pricing");
  const card = page.getByTestId("plan-professional");
  await card.getByRole("button", { name: "Downgrade to Professional" }).click();
  const refusal = card.getByRole("alert");
  await expect(refusal).toContainText(
    "Professional includes 1 team member; this workspace has 4 (1 member and 3 pending invitations). Remove 3 members or invitations in Settings > Team before switching.",
  );
  await expect(page).toHaveURL(/\/pricing$/);
  await refusal.getByRole("link", { name: "Go to Settings > Team" }).click();
  await expect(page).toHaveURL(/\/settings\?tab=team$/);

  // the same downgrade made where we do not decide (Stripe's portal): it lands, and the owner is told
  await withE2eDb(
    (sql) =>
      sql`update workspaces set plan = 'professional' where owner_id = (select id from users where email = ${owner})`,
  );
  await page.goto("/settings?tab=team");
  const banner = page.getByRole("alert").filter({ hasText: "More team members than your plan includes" });
  await expect(banner).toContainText(
    "This workspace has 1 member and 3 pending invitations; Professional includes 1. Remove 3 members or invitations, or upgrade.",
  );
  await expect(banner.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
});

test("Settings > Team at 390 px shows a member's name and address at a readable width", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const owner = await registerVerifiedBusiness(page, { prefix: "team-390", name: "Tia", business: "Tia Co" });
  const member = `team-390-member-${Date.now()}@example.com`;
  const other = await page.context().browser()!.newContext();
  const reg = await other.request.post(`${new URL(page.url()).origin}/api/auth/register`, {
    data: { name: "Marguerite Longname", email: member, password: "correct-horse-battery" },
  });
  expect(reg.ok()).toBe(true);
  await other.close();
  await withE2eDb(
    (sql) =>
      sql`insert into workspace_members (workspace_id, user_id, role)
          select w.id, m.id, 'member' from workspaces w join users o on o.id = w.owner_id, users m
          where o.email = ${owner} and m.email = ${member} and w.id = o.id`,
  );
  await page.goto("/settings?tab=team");
  const row = page.getByTestId("member-row").filter({ hasText: "Marguerite Longname" });
  await expect(row.getByRole("button", { name: "Remove" })).toBeVisible();
  const address = row.getByText(member);
  const box = await address.boundingBox();
  expect(box!.width, "the address column's width").toBeGreaterThan(200);
});

test("the usage meters and limit banner follow a change at once, not half a minute later", async ({
  page,
}) => {
  await registerFree(page, "usage-fresh");
  await importContacts(page, 99);
  await page.goto("/dashboard");
  await expect(page.getByTestId("usage-contacts")).toContainText("99 of 100");
  // the 100th contact, added on the contacts page without reloading the app
  await page.getByRole("link", { name: "All Contacts" }).click();
  await page.getByRole("button", { name: "Add Contact" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("First name").fill("Hundredth");
  await dialog.getByLabel("Email").fill(`hundredth-${Date.now()}@example.com`);
  await dialog.getByRole("button", { name: "Add Contact" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("alert").filter({ hasText: "Plan limit reached" })).toBeVisible({
    timeout: 5_000,
  });
  await page.getByRole("link", { name: "Dashboard" }).first().click();
  await expect(page.getByTestId("usage-contacts")).toContainText("100 of 100", { timeout: 5_000 });
});

test("after a paid plan ended, the owner still reaches the billing portal (invoices and receipts) from Billing", async ({
  page,
}) => {
  await registerFree(page, "ended-invoices");
  await subscribeProfessional(page);
  // cancelled within the 14 days: refunded, and the workspace is on Free again at once
  await page.goto("/settings?tab=billing");
  await page.getByRole("button", { name: "Manage subscription" }).click();
  // the portal asks first, saying what happens now (as Stripe's portal does)
  await page.getByRole("link", { name: "Cancel subscription" }).click();
  await expect(page.getByRole("heading", { name: /^Cancel your .+ subscription\?$/ })).toBeVisible();
  await expect(page.getByText("your payment is refunded in full")).toBeVisible();
  await page.getByRole("button", { name: "Cancel subscription" }).click();
  await expect(page.getByText("refunded in full")).toBeVisible();
  await page.goto("/settings?tab=billing");
  await expect(page.getByText("Usage resets on")).toBeVisible();
  await page.getByRole("button", { name: "Billing history" }).click();
  await expect(page).toHaveURL(/\/local-portal/);
});

test("a subscriber's Upgrade to Business opens the portal on that plan's confirmation; confirming it returns on Business", async ({
  page,
}) => {
  await loadAxe(page);
  await registerFree(page, "confirm-plan");
  await subscribeProfessional(page);
  await page.getByRole("button", { name: "Upgrade to Business" }).click();
  // the portal opens on the plan chosen (before: its home page, where every plan could be picked again)
  await expect(page).toHaveURL(/\/local-portal\?.*plan=business/);
  const confirm = page.getByRole("region", { name: "Confirm your new plan" });
  await expect(confirm).toContainText("Switch from Professional to Business");
  expect(await seriousViolations(page, "local portal plan confirmation")).toEqual([]);
  await confirm.getByRole("button", { name: "Confirm Business" }).click();
  await expect(page.getByRole("status")).toHaveText("Your plan is now Business.");
  await expect(page.getByRole("region", { name: "Confirm your new plan" })).toHaveCount(0);
  await page.getByRole("link", { name: "Back to Pitchwise" }).click();
  await expect(page).toHaveURL(/\/pricing/);
  await expect(page.getByRole("button", { name: "Current Plan" })).toBeVisible();
});
