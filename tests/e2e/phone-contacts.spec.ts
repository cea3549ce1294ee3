import fs from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerified, registerVerifiedBusiness } from "./account-helpers";

/**
 * The contacts screen on a phone (390 x 844, touch), as a one-person business uses it: importing a
 * shared CSV, checking contacts far down the list, tagging them and keeping segments (helper "phone").
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, reducedMotion: "reduce" });

const SEMICOLON_CSV = path.resolve(import.meta.dirname, "../../../shared/data/csv/csv_semicolon.csv");

/** Adds `n` contacts (Person 01 ... Person n) through the app's REST route. */
async function addContacts(page: Page, n: number) {
  const headers = { origin: new URL(page.url()).origin };
  for (let i = 1; i <= n; i++) {
    const r = await page.request.post("/api/contacts", {
      headers,
      data: {
        first_name: "Person",
        last_name: String(i).padStart(2, "0"),
        email: `person${i}-${Date.now()}@example.com`,
      },
    });
    expect(r.ok(), await r.text()).toBe(true);
  }
}

test("import: the duplicate choice's radios are targets a finger can hit", async ({ page }) => {
  test.skip(!fs.existsSync(SEMICOLON_CSV), "../shared/data is absent");
  await loadAxe(page);
  await registerVerified(page, { prefix: "phone-import", name: "Pat Phone", business: "Pat's Plumbing" });
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Import CSV" }).first().tap();
  await page.getByTestId("import-file-input").setInputFiles(SEMICOLON_CSV);
  const dialog = page.getByRole("dialog");
  const update = dialog.getByRole("radio", { name: "Update them with the file's values" });
  await expect(update).toBeVisible();
  // the two radios were 13 px, 20 px apart: axe's target-size (WCAG 2.5.8) is serious
  expect(await seriousViolations(page, "import mapping", ["target-size"])).toEqual([]);
  // the row's text is the target too
  await dialog.getByText("Update them with the file's values").tap();
  await expect(update).toBeChecked();
});

test("a contact checked far down the list keeps the bulk actions in sight", async ({ page }) => {
  await registerVerifiedBusiness(page, {
    prefix: "phone-bulk",
    name: "Pat Phone",
    business: "Pat's Plumbing",
  });
  await addContacts(page, 20);
  await page.goto("/contacts");
  const last = page.getByRole("checkbox", { name: "Select Person 01" });
  await last.tap();
  await expect(page.getByTestId("selected-count")).toHaveText("1 selected");
  // the bar is drawn above the table: with the list scrolled to row 20 it was above the screen
  const bar = page.getByRole("region", { name: "Bulk actions" });
  await expect(bar).toBeInViewport();
  const barBox = await bar.boundingBox();
  expect(barBox!.y, "below the 56 px header").toBeGreaterThanOrEqual(56);
  await expect(bar.getByRole("button", { name: "Add Tag" })).toBeInViewport();
});

test("Add Tag: creating a tag selects it and focus stays in the dialog, on Add Tag", async ({ page }) => {
  await registerVerifiedBusiness(page, {
    prefix: "phone-tag",
    name: "Pat Phone",
    business: "Pat's Plumbing",
  });
  await addContacts(page, 2);
  await page.goto("/contacts");
  await page.getByRole("checkbox", { name: "Select Person 02" }).tap();
  await page.getByRole("region", { name: "Bulk actions" }).getByRole("button", { name: "Add Tag" }).tap();
  const dialog = page.getByRole("dialog", { name: "Add Tag to Contacts" });
  await dialog.getByLabel("New tag name").fill("VIP");
  await dialog.getByRole("button", { name: "Create" }).tap();
  await expect(dialog.getByLabel("Tag", { exact: true })).toHaveValue(/\d+/);
  // the Create button is disabled once its name is cleared: focus fell to <body>
  const confirm = dialog.getByRole("button", { name: "Add Tag" });
  await expect(confirm).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Tagged 1 contact")).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "Person 02" })).toContainText("VIP");
});

test("Segments: each button's name starts with the words it shows (axe, label in name)", async ({ page }) => {
  await loadAxe(page);
  await registerVerifiedBusiness(page, {
    prefix: "phone-seg",
    name: "Pat Phone",
    business: "Pat's Plumbing",
  });
  await addContacts(page, 1);
  await page.goto("/contacts");
  await page.getByLabel("Lifecycle stage").selectOption("lead");
  await page.getByRole("button", { name: "Save as segment" }).tap();
  const save = page.getByRole("dialog", { name: "Save as segment" });
  await save.getByLabel("Segment name").fill("Leads");
  await save.getByRole("button", { name: "Save segment" }).tap();
  await expect(save).toBeHidden();
  await page.getByRole("button", { name: "Segments", exact: true }).tap();
  const dialog = page.getByRole("dialog", { name: "Segments" });
  await expect(dialog.getByText("Leads", { exact: true })).toBeVisible();
  // "Use current filter" was named "Set Leads to the current filter": a voice user saying what they
  // see did not reach it
  expect(await seriousViolations(page, "segments", ["label-content-name-mismatch"])).toEqual([]);
  await expect(dialog.getByRole("button", { name: "Use current filter for Leads" })).toBeVisible();
});

/**
 * The area a tap on a checkbox toggles it in: the checkbox's own box, or the box of a <label> wrapping
 * it (a tap anywhere in such a label toggles the checkbox), whichever is larger, in CSS px.
 */
async function checkboxHitArea(box: Locator) {
  return box.evaluate((el) => {
    const own = el.getBoundingClientRect();
    const label = el.closest("label");
    const wrap = label && label.control === el ? label.getBoundingClientRect() : null;
    const r = wrap && wrap.width * wrap.height > own.width * own.height ? wrap : own;
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
}

test("row checkboxes and breadcrumb links are targets of at least 24 x 24 px (WCAG 2.5.8)", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, {
    prefix: "phone-targets",
    name: "Pat Phone",
    business: "Pat's Plumbing",
  });
  await addContacts(page, 3);
  await page.goto("/contacts");
  const boxes = page.getByRole("table").getByRole("checkbox");
  // "Select all" and one per row; axe's target-size counted the 13 px boxes as spaced far enough apart
  await expect(boxes).toHaveCount(4);
  for (const box of await boxes.all()) {
    const name = await box.getAttribute("aria-label");
    const area = await checkboxHitArea(box);
    expect(area.width, `${name}: width`).toBeGreaterThanOrEqual(24);
    expect(area.height, `${name}: height`).toBeGreaterThanOrEqual(24);
  }
  // a tap at the hit area's corner (outside the small visible box) toggles the row's checkbox
  const row = page.getByRole("checkbox", { name: "Select Person 02" });
  const area = await checkboxHitArea(row);
  await page.touchscreen.tap(area.x + 1, area.y + 1);
  await expect(row).toBeChecked();
  await expect(page.getByTestId("selected-count")).toHaveText("1 selected");
  // the keyboard still works: Space on the focused checkbox unticks it
  await row.focus();
  await page.keyboard.press("Space");
  await expect(row).not.toBeChecked();

  // the contact page's trail: Dashboard / Contacts / Contact Details
  await page.getByRole("link", { name: "Person 01" }).tap();
  const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
  await expect(crumbs.locator("[aria-current=page]")).toHaveText("Contact Details");
  const links = crumbs.getByRole("link");
  await expect(links).toHaveText(["Dashboard", "Contacts"]);
  for (const link of await links.all()) {
    const b = await link.boundingBox();
    expect(b!.height, `${await link.textContent()}: height`).toBeGreaterThanOrEqual(24);
  }
  await links.filter({ hasText: "Contacts" }).tap();
  await expect(page).toHaveURL(/\/contacts$/);
});
