import { expect, test } from "@playwright/test";
import { registerVerified } from "./account-helpers";

/**
 * The contacts list keeps its selection while paging through the same list (a QA pass: moving to page 2
 * dropped page 1's ticks and "Select all 220 matching"); a new filter starts a new selection, and Clear
 * selection empties it.
 */

test("ticks and 'select all matching' survive paging; a filter or Clear selection ends them", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await registerVerified(page, { prefix: "select-pages", name: "Sel Pages", business: "Pages Co" });
  const origin = new URL(page.url()).origin;
  const stamp = Date.now();
  const rows = Array.from({ length: 60 }, (_, k) => ({
    first_name: `Pager${String(k + 1).padStart(2, "0")}`,
    last_name: "Person",
    email: `pager${k + 1}-${stamp}@pages.example`,
  }));
  const imported = await page.request.post("/api/contacts/import", {
    data: { contacts: rows },
    headers: { origin },
  });
  expect(imported.ok(), await imported.text()).toBe(true);

  await page.goto("/contacts");
  await expect(page.getByRole("heading", { name: "Contacts (60)" })).toBeVisible({ timeout: 60_000 });
  const count = page.getByTestId("selected-count");
  const boxes = page.getByRole("checkbox", { name: /^Select Pager\d+ Person$/ });

  // page 1's rows, then one row of page 2
  await page.getByRole("checkbox", { name: "Select all" }).check();
  await expect(count).toHaveText("50 selected");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(boxes).toHaveCount(10);
  await expect(count).toHaveText("50 selected");
  await boxes.first().check();
  await expect(count).toHaveText("51 selected");
  // "Select all" on page 2 adds its rows to page 1's
  await page.getByRole("checkbox", { name: "Select all" }).check();
  await expect(count).toHaveText("60 selected");
  await page.getByRole("button", { name: "Previous" }).click();
  await expect(boxes).toHaveCount(50);
  for (const box of await boxes.all()) await expect(box).toBeChecked();
  await page.getByRole("button", { name: "Clear selection" }).click();
  await expect(count).toHaveCount(0);

  // all matching, then page 2: still all matching
  await page.getByRole("checkbox", { name: "Select all" }).check();
  await page.getByRole("button", { name: "Select all 60 matching" }).click();
  await expect(count).toHaveText("60 selected");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(boxes).toHaveCount(10);
  await expect(count).toHaveText("60 selected");
  for (const box of await boxes.all()) await expect(box).toBeChecked();

  // a new filter is a new list: nothing selected
  await page.getByLabel("Lifecycle stage").selectOption("lead");
  await expect(count).toHaveCount(0);
});
