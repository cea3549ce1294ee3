import { expect, test } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";

/**
 * Business lead search end to end (issue 13): a preset search on the local (demo) provider, a filter
 * (with website enrichment asked for), the four views, save, swap location, then three results added to contacts and seen in /contacts.
 */
// Not a hang: profiled (CDP metrics, DOM node counts, React commits, long tasks) the page is idle between
// steps (no render loop, ~1,400 DOM nodes for 45 results) but on this shared 2-core machine at load 15-25
// every step takes seconds (the heading alone 12-15 s, the Map view's software WebGL 1-3 s long tasks),
// so the whole flow needs more than the default 90 s (4.5 min measured at load 27-36): it gets 8 minutes.
test("preset search, filter, views, save, swap location, add to contacts", async ({ page }) => {
  test.setTimeout(480_000);
  const email = `leads-e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Lena Leads", email, password: "correct-horse-battery", business_name: "Lena Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);

  await page.goto("/contacts/business-search");
  await expect(page.getByRole("heading", { name: "Business Lead Search" })).toBeVisible();
  await expect(page.getByText("Enhanced Multi-Circle Grid Search with 131 Advanced Filters")).toBeVisible();

  // validation message from spec section 5
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page.getByText("Please enter both location and business type")).toBeVisible();

  await page.getByLabel("Industry preset").selectOption({ label: "Dentists" });
  await expect(page.getByLabel("Business type")).toHaveValue("dentist");
  await page.getByLabel("Location").fill("Saginaw, MI");
  await page.getByLabel("Location").press("Enter");
  await expect(page.getByTestId("summary-location")).toHaveText("Saginaw, MI");
  await expect(page.getByTestId("summary-preset")).toHaveText("Dentists");
  await expect(page.getByTestId("summary-source")).toHaveText("Demo data");
  const total = Number(await page.getByTestId("summary-total-results").textContent());
  expect(total).toBeGreaterThan(3);
  expect(Number(await page.getByTestId("summary-circles-searched").textContent())).toBeGreaterThan(0);
  await expect(page.getByTestId("lead-card").first()).toContainText("Demo data");

  // a filter: HOT and WARM leads only, through the panel
  await page.getByRole("button", { name: "Show Filters" }).click();
  await page.getByRole("tab", { name: "Lead quality" }).click();
  await page.getByRole("checkbox", { name: "HOT" }).check();
  await page.getByRole("checkbox", { name: "WARM" }).check();
  await expect(
    page.getByText("Unavailable: Demo data does not supply the national Do Not Call registry"),
  ).toBeVisible();
  // with website enrichment: the job runs on the worker and its progress shows (demo sites are not visited)
  await page.getByLabel(/Visit websites for public emails/).check();
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page.getByTestId("results-summary")).toBeVisible();
  await expect(page.getByTestId("enrich-progress")).toContainText("Enrichment done: 0 websites visited");
  const filtered = Number(await page.getByTestId("summary-total-results").textContent());
  expect(filtered).toBeLessThan(total);
  expect(filtered).toBeGreaterThan(2);
  await expect(page.getByTestId("lead-card").filter({ hasText: "COLD" })).toHaveCount(0);

  // the four views
  await page.getByRole("button", { name: "Table" }).click();
  await expect(page.getByTestId("results-table")).toBeVisible();
  await page.getByRole("button", { name: "Kanban" }).click();
  await expect(page.getByTestId("results-kanban")).toContainText("COLD (0)");
  await page.getByRole("button", { name: "Map" }).click();
  await expect(
    page.getByTestId("leads-map").or(page.getByText("This browser cannot draw the map")),
  ).toBeVisible();
  await page.getByRole("button", { name: "Grid" }).click();
  await expect(page.getByTestId("results-grid")).toBeVisible();

  // save
  await page.getByRole("button", { name: "Save Search" }).click();
  await page.getByLabel("Search name").fill("Saginaw dentists");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Search saved successfully!")).toBeVisible();
  await expect(page.getByTestId("saved-searches")).toContainText("Saginaw dentists");

  // swap location (in the app's dialog: confirm-dialogs.spec covers cancel, errors, focus and axe)
  await page.getByRole("button", { name: "Swap Location" }).click();
  const swap = page.getByRole("dialog", { name: "Swap location" });
  await swap.getByLabel("New location").fill("Bay City, MI");
  await swap.getByLabel("New location").press("Enter");
  await expect(swap).toBeHidden();
  await expect(page.getByTestId("summary-location")).toHaveText("Bay City, MI");
  await expect(page.getByTestId("saved-searches")).toContainText("Bay City, MI");

  // add three results to contacts
  const cards = page.getByTestId("lead-card");
  const names: string[] = [];
  for (let i = 0; i < 3; i++) {
    const card = cards.nth(i);
    names.push((await card.locator("p.font-semibold").textContent()) ?? "");
    await card.getByRole("checkbox").check();
  }
  await expect(page.getByTestId("selected-results")).toHaveText("3 selected");
  await page.getByRole("button", { name: "Add to contacts" }).click();
  await expect(page.getByText("Added to contacts: 3 created, 0 updated, 0 skipped")).toBeVisible();

  await page.goto("/contacts");
  await expect(page.getByRole("heading", { name: "Contacts (3)" })).toBeVisible();
  for (const n of names) await expect(page.getByText(n).first()).toBeVisible();
});
