import { expect, type Page, test } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";

/**
 * Studio > Upload with a file whose name is 220 characters (a QA pass: the page grew to 1,793 px at a
 * 390 px viewport and pushed the preview, the Name field and Upload off screen): the name is cut short
 * with an ellipsis and the whole name is its tooltip; nothing is wider than the viewport.
 */

async function register(page: Page) {
  const email = `studio-layout-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post("/api/auth/register", {
    data: { name: "Layout Tester", business_name: "Flower Shop", email, password: "correct-horse-battery" },
  });
  expect(res.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
}

for (const width of [390, 1280]) {
  test(`a 220-character file name stays inside a ${width} px wide page`, async ({ page }) => {
    await register(page);
    await page.setViewportSize({ width, height: 844 });
    await page.goto("/studio?tab=upload");
    const name = `${"x".repeat(216)}.mp3`;
    await page
      .locator("#media-file")
      .setInputFiles({ name, mimeType: "audio/mpeg", buffer: Buffer.alloc(2048) });
    const shown = page.getByText(name, { exact: true });
    await expect(shown).toBeVisible();
    await expect(shown).toHaveAttribute("title", name);
    // cut short: its box is narrower than its text
    expect(await shown.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    for (const control of [page.getByTestId("upload-submit"), page.getByRole("button", { name: "Cancel" })]) {
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    }
  });
}
