import { expect, test } from "@playwright/test";
import { buildSms, registerWithContact } from "./billing-helpers";

/**
 * Billing end to end (issue 12): a Free user hits the SMS campaign gate, upgrades on /pricing through
 * the local test checkout (4242 4242 4242 4242), sees 'Payment successful!', lands on the dashboard
 * as Professional, and launches the SMS campaign.
 */

test("a Free user hits the SMS gate, upgrades through the local checkout and launches the SMS campaign", async ({
  page,
}) => {
  test.setTimeout(240_000); // a long flow: two launches and a checkout
  await registerWithContact(page);
  const tag = Math.random().toString(36).slice(2, 8);

  // the gate: refused up front with the plan's sentence and a way to upgrade
  await buildSms(page, tag);
  const gate = page
    .getByRole("alert")
    .filter({ hasText: "SMS and voice campaigns are not included in your Free plan" });
  await expect(gate).toBeVisible();
  await expect(gate.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
  await expect(gate.getByRole("link", { name: "Go to Billing" })).toHaveCount(0);

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
