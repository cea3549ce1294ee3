import { expect, type Locator } from "@playwright/test";

/**
 * Asserts that a block element's text is shown whole at the page's current viewport (used at 390 px,
 * an iPhone 12-15's width): its box starts and ends inside `viewportWidth` CSS pixels, and no part of
 * its text is clipped by overflow (a `truncate` ellipsis leaves scrollWidth > clientWidth, while the
 * box itself still fits, so the box check alone does not see it). `el` must be a block (or
 * inline-block) element: an inline element's clientWidth is 0.
 */
export async function expectWhollyShown(el: Locator, viewportWidth = 390): Promise<void> {
  await el.scrollIntoViewIfNeeded();
  const box = await el.boundingBox();
  expect(box, "element has a box").not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(viewportWidth);
  const clipped = await el.evaluate((e) => e.scrollWidth > e.clientWidth);
  expect(clipped, `text cut by overflow: ${await el.textContent()}`).toBe(false);
}
