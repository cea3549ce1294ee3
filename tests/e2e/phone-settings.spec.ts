import { expect, test } from "@playwright/test";
import { registerVerified } from "./account-helpers";

/**
 * Settings on a phone (390 x 844, touch), as a one-person business uses them (helper "phone").
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, reducedMotion: "reduce" });

test("Save workspace: its refusal and its 'saved' are shown where the user is", async ({ page }) => {
  await registerVerified(page, { prefix: "phone-workspace", name: "Pat Phone", business: "Pat's Plumbing" });
  await page.goto("/settings?tab=workspace");
  await page.getByLabel("Postal address").fill("12 Main St\nBay City, MI 48706\nUSA");
  await page.getByLabel("Brand colour", { exact: true }).fill("#zz");
  const save = page.getByRole("button", { name: "Save workspace" });
  await save.tap();
  // the banner is above the tabs, a screen above the button: the press seemed to do nothing
  const refusal = page.getByRole("alert").filter({ hasText: "Brand colour must look like #1a2b3c" });
  await expect(refusal).toBeInViewport();
  expect((await refusal.boundingBox())!.y, "below the 56 px header").toBeGreaterThanOrEqual(56);
  // focus, which the disabled button lost, is on the message
  expect(await refusal.evaluate((el) => el.parentElement!.contains(document.activeElement))).toBe(true);

  await page.getByLabel("Brand colour", { exact: true }).fill("#1a2b3c");
  await save.tap();
  await expect(page.getByRole("status").filter({ hasText: "Workspace settings saved." })).toBeInViewport();
});
