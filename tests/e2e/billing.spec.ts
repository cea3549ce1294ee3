import { expect, type Page, test } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";

/**
 * Billing end to end (issue 12): a Free user hits the SMS campaign gate, upgrades on /pricing through
 * the local test checkout (4242 4242 4242 4242), sees 'Payment successful!', lands on the dashboard
 * as Professional, and launches the SMS campaign.
 */

/** An Etc/GMT zone where it is now about 14:00, so quiet hours (8am-9pm local) never defer the SMS. */
function daytimeZone(): string {
  const o = ((14 - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

async function registerWithContact(page: Page) {
  const email = `bill-e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Bill Ing", email, password: "correct-horse-battery", business_name: "Bill Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  await page.goto("/dashboard");
  const origin = new URL(page.url()).origin;
  const created = await page.request.post("/api/contacts", {
    data: {
      first_name: "Grace",
      last_name: "Hopper",
      email: `grace-${Date.now()}@example.com`,
      phone: "+15153435776",
    },
    headers: { origin },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  const put = await page.request.put(`/api/contacts/${id}`, {
    data: { timezone: daytimeZone(), sms_opt_in: true },
    headers: { origin },
  });
  expect(put.ok(), await put.text()).toBe(true);
  return email;
}

async function buildSms(page: Page, tag: string) {
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Upgrade SMS");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Message").fill(`Hi {{name|there}}, spring offer ${tag} at Bill Co.`);
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("checkbox", { name: "Select Grace Hopper" }).check();
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Launch Campaign" }).click();
}

test("a Free user hits the SMS gate, upgrades through the local checkout and launches the SMS campaign", async ({
  page,
}) => {
  test.setTimeout(240_000); // a long flow: two launches and a checkout
  await registerWithContact(page);
  const tag = Math.random().toString(36).slice(2, 8);

  // the gate: refused up front with the plan's sentence and a way to upgrade
  await buildSms(page, tag);
  await expect(page.getByText(/SMS and voice campaigns are not included in your Free plan/)).toBeVisible();

  // /pricing: four plans, the current one disabled, Professional the most popular
  await page.goto("/pricing");
  await expect(page.getByRole("heading", { name: "Choose Your Plan" })).toBeVisible();
  await expect(page.getByText("Most Popular")).toBeVisible();
  await expect(page.getByTestId("plan-free").getByRole("button", { name: "Current Plan" })).toBeDisabled();
  await expect(page.getByText("Is there a money-back guarantee?")).toBeVisible();
  await page.getByRole("button", { name: "Upgrade to Professional" }).click();

  // the local test checkout: a declined card first, then the success card
  await expect(page.getByText("Test checkout - no real payment")).toBeVisible();
  await expect(page.getByText("$49.00").first()).toBeVisible();
  await page.getByLabel("Card number").fill("4000 0000 0000 0002");
  await page.getByRole("button", { name: /^Pay/ }).click();
  await expect(page.getByText("Your card was declined.")).toBeVisible();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay/ }).click();

  await expect(page.getByText("Payment successful! Your subscription is now active.")).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 10_000 });
  const account = page.getByRole("region", { name: "Account" });
  await expect(account.getByText("Professional").first()).toBeVisible();

  // now the same campaign goes out
  await buildSms(page, tag);
  await expect(page.getByText(/Campaign launched! Sending to 1 contact\./).first()).toBeVisible();
  await expect
    .poll(
      async () => {
        const res = await page.request.get("/api/dev/outbox?channel=sms&to=%2B15153435776");
        return ((await res.json()).messages as { body: string }[]).map((m) => m.body);
      },
      { timeout: 30_000 },
    )
    .toContain(`Hi Grace Hopper, spring offer ${tag} at Bill Co.\nReply STOP to opt out`);
});
