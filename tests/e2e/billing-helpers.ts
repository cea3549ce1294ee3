import { expect, type Page } from "@playwright/test";

/**
 * Upgrades the signed-in user's workspace through the local test checkout, as a person would:
 * /pricing -> 'Upgrade to {Plan}' -> card 4242 4242 4242 4242 -> 'Payment successful!'.
 */
export async function upgradeThroughLocalCheckout(page: Page, planName = "Professional") {
  await page.goto("/pricing");
  await page.getByRole("button", { name: `Upgrade to ${planName}` }).click();
  await expect(page.getByText("Test checkout - no real payment")).toBeVisible();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay/ }).click();
  await expect(page.getByText("Payment successful! Your subscription is now active.")).toBeVisible();
}
