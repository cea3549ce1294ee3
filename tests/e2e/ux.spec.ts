import { expect, type Page, test } from "@playwright/test";

/** Issue 14 section 6: the top-bar layout preference. */

async function register(page: Page) {
  const email = `ux-e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Uma Ux", email, password: "correct-horse-battery", business_name: "Ux Co" },
  });
  expect(reg.ok()).toBe(true);
}

test("the top-bar navigation is a saved preference", async ({ page }) => {
  await register(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/settings?tab=preferences");
  await expect(page.locator('[data-layout="sidebar"]')).toBeVisible();
  await page.getByRole("tab", { name: "Preferences" }).click();
  await page.getByRole("radio", { name: /Top bar/ }).check();
  await page.getByRole("button", { name: "Save Preferences" }).click();
  await expect(page.getByText("Preferences updated successfully!")).toBeVisible();

  const bar = page.getByTestId("top-bar");
  await expect(bar).toBeVisible();
  const nav = bar.getByRole("navigation", { name: "Main navigation" });
  for (const label of [
    "Dashboard",
    "Studio",
    "Library",
    "Video Campaigns",
    "Email Campaigns",
    "Contacts",
    "Business Search",
    "Settings",
  ]) {
    await expect(nav.getByRole("link", { name: label, exact: true })).toBeVisible();
  }
  await expect(bar.getByRole("button", { name: "Logout" })).toBeVisible();
  await nav.getByRole("link", { name: "Library", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\?tab=library/);
  await expect(nav.getByRole("link", { name: "Library", exact: true })).toHaveAttribute(
    "aria-current",
    "page",
  );

  // saved server-side: a reload (and any device) keeps it; at 390 px the links sit behind a menu
  await page.reload();
  await expect(page.getByTestId("top-bar")).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Open navigation" }).click();
  const drawer = page.getByRole("dialog");
  await drawer.getByRole("link", { name: "Contacts", exact: true }).click();
  await expect(page).toHaveURL(/\/contacts$/);
  const me = await (await page.request.get("/api/auth/me")).json();
  expect(me.user.preferences.navLayout).toBe("topbar");
});
