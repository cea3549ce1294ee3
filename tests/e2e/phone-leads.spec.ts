import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerified } from "./account-helpers";

/**
 * Business Lead Search on a phone (390 x 844, touch), as a one-person business uses it: a search, the
 * result cards' links, and adding a result to the contacts (helper "phone").
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, reducedMotion: "reduce" });

test("lead cards: the website link and 'Why this score' are 24 px targets", async ({ page }) => {
  await loadAxe(page);
  await registerVerified(page, { prefix: "phone-leads", name: "Pat Phone", business: "Pat's Plumbing" });
  await page.goto("/contacts/business-search");
  await page.getByLabel("Location").fill("48706");
  await page.getByLabel("Business type").fill("plumber");
  await page.getByLabel("Business type").press("Enter");
  const card = page.getByTestId("lead-card").first();
  await expect(card).toBeVisible();
  // the link (20 px) sat on top of the summary (16 px): axe target-size (WCAG 2.5.8) on every card
  expect(await seriousViolations(page, "lead cards", ["target-size"])).toEqual([]);
  for (const target of [card.getByRole("link", { name: /^https?:\/\// }), card.locator("summary")]) {
    const box = await target.boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(24);
  }
});

test("Add to contacts keeps keyboard focus on its button", async ({ page }) => {
  await registerVerified(page, { prefix: "phone-leads-add", name: "Pat Phone", business: "Pat's Plumbing" });
  await page.goto("/contacts/business-search");
  await page.getByLabel("Location").fill("48706");
  await page.getByLabel("Business type").fill("plumber");
  await page.getByLabel("Business type").press("Enter");
  const card = page.getByTestId("lead-card").first();
  await card.getByRole("checkbox").tap();
  const add = page.getByRole("button", { name: "Add to contacts" });
  await add.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Added to contacts: 1 created/)).toBeVisible();
  await expect(card.getByText("In contacts")).toBeVisible();
  // the button is disabled while the add runs: focus fell to <body>, the page's top
  await expect(add).toBeFocused();
});
