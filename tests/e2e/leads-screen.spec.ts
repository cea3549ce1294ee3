import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations, switchTheme } from "./a11y-helpers";
import { verifyEmailThroughOutbox } from "./account-helpers";
import { expectWhollyShown } from "./layout-helpers";

/**
 * The Business Lead Search screen at 390 px (leads audit): driven from the keyboard, its error,
 * progress, results (grid, table, kanban) and filter panel states fit the width and have no serious
 * axe violations in a light and a dark theme.
 */
test.use({ viewport: { width: 390, height: 844 }, reducedMotion: "reduce" });

/** Sideways page scroll at the current width (the layout rule: nothing wider than the screen). */
const sideways = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

async function axeBothThemes(page: Page, label: string): Promise<string[]> {
  // the app-wide success toast (sonner richColors, not this screen's) is left to expire first
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 30_000 });
  const found: string[] = [];
  for (const theme of ["monochrome-elite", "midnight-blue"]) {
    await switchTheme(page, theme);
    found.push(...(await seriousViolations(page, `${label} [${theme}]`)));
  }
  return found;
}

test("business search at 390 px: keyboard, error, results views and filters", async ({ page }) => {
  test.setTimeout(300_000);
  await loadAxe(page);
  const email = `leads-390-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Nia Narrow", email, password: "correct-horse-battery", business_name: "Narrow Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  await page.goto("/contacts/business-search");
  await expect(page.getByRole("heading", { name: "Business Lead Search" })).toBeVisible();
  const problems: string[] = [];

  // keyboard only: focus the location box, type, Tab to business type, Enter searches
  await page.getByLabel("Location").focus();
  await page.keyboard.type("Atlantis");
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Business type")).toBeFocused();
  await page.keyboard.type("dentist");
  await page.keyboard.press("Enter");
  const alert = page.getByRole("alert").filter({ hasText: 'We could not find "Atlantis"' });
  await expect(alert).toBeVisible();
  problems.push(...(await axeBothThemes(page, "error")));

  await page.getByLabel("Location").fill("Saginaw, MI");
  await page.getByLabel("Location").press("Enter");
  await expect(page.getByTestId("results-summary")).toBeVisible();
  await expect(page.getByTestId("lead-card").first()).toBeVisible();
  // a lead's website is shown whole, not cut to "https://www.delgado-bakery-experts-94143.e..."
  await expectWhollyShown(
    page
      .getByTestId("lead-card")
      .getByRole("link", { name: /^https?:\/\// })
      .first(),
  );
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const view of ["Grid", "Table", "Kanban"]) {
    await page.getByRole("button", { name: view, exact: true }).click();
    const over = await sideways(page);
    if (over > 0) problems.push(`${view} view: page scrolls sideways by ${over}px at 390 px`);
    problems.push(...(await axeBothThemes(page, `${view} view`)));
  }

  await page.getByRole("button", { name: "Show Filters" }).click();
  await expect(page.getByTestId("filter-panel")).toBeVisible();
  await page.getByRole("tab", { name: "Location" }).click();
  const over = await sideways(page);
  if (over > 0) problems.push(`filter panel: page scrolls sideways by ${over}px at 390 px`);
  problems.push(...(await axeBothThemes(page, "filter panel")));

  expect(problems, problems.join("\n")).toEqual([]);
});

test("Save Search dialog: Enter saves, and a refused save says why inside the dialog", async ({ page }) => {
  test.setTimeout(240_000);
  const email = `leads-save-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Sam Saver", email, password: "correct-horse-battery", business_name: "Saver Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  await page.goto("/contacts/business-search");
  await expect(page.getByRole("heading", { name: "Business Lead Search" })).toBeVisible();
  await page.getByLabel("Location").fill("Saginaw, MI");
  await page.getByLabel("Business type").fill("dentist");

  await page.getByRole("button", { name: "Save Search" }).click();
  const dialog = page.getByRole("dialog", { name: "Save Search" });
  await dialog.getByLabel("Search name").fill("Saginaw dentists");
  await dialog.getByLabel("Search name").press("Enter");
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("saved-searches")).toContainText("Saginaw dentists");

  // the same name again: the server's 409 sentence is in the dialog (before: only 'Failed to save
  // search' in a toast, the reason in a banner behind the dialog)
  await page.getByRole("button", { name: "Save Search" }).click();
  await dialog.getByLabel("Search name").fill("Saginaw dentists");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog.getByRole("alert")).toContainText(
    'A saved search named "Saginaw dentists" already exists',
  );
  await expect(dialog.getByLabel("Search name")).toHaveAttribute("aria-invalid", "true");
});
