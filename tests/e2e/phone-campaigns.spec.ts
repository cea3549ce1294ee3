import { expect, test } from "@playwright/test";
import { registerVerified } from "./account-helpers";

/**
 * The campaign builders on a phone (390 x 844, touch), as a one-person business uses them (helper
 * "phone").
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, reducedMotion: "reduce" });

test("email builder: Send Test keeps keyboard focus on its button", async ({ page }) => {
  const email = await registerVerified(page, {
    prefix: "phone-test-email",
    name: "Pat Phone",
    business: "Pat's Plumbing",
  });
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("Spring tune-up offer");
  await page.getByRole("button", { name: "Next" }).tap();
  await page.getByLabel("Subject").fill("Hi {{first_name|there}}, spring tune-up");
  await page.getByLabel("Email body").fill("Book a spring tune-up this month and get 15% off.");
  const sendTest = page.getByRole("button", { name: "Send Test" });
  await sendTest.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Test email sent to ${email}`)).toBeVisible();
  // disabled while it sends ("Sending..."): focus fell to <body>, so the next Tab started at the top
  await expect(sendTest).toBeFocused();
});
