import { expect, type Page } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";

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

/** An Etc/GMT zone where it is now about 14:00, so quiet hours (8am-9pm local) never defer the SMS. */
function daytimeZone(): string {
  const o = ((14 - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

/**
 * Registers and verifies a new account (business "Bill Co") with one contact, Grace Hopper, whose
 * number may be texted now (SMS opt-in, a daytime zone). Returns the account's email.
 */
export async function registerWithContact(page: Page) {
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

/** Walks the SMS campaign builder to Grace Hopper and presses Launch Campaign. */
export async function buildSms(page: Page, tag: string) {
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Upgrade SMS");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Message").fill(`Hi {{name|there}}, spring offer ${tag} at Bill Co.`);
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("checkbox", { name: "Select Grace Hopper" }).check();
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Launch Campaign" }).click();
}
