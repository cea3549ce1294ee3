import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";

/**
 * Every kind of toast the app shows (sonner with richColors: success, info, warning, error) has
 * readable text: axe's colour-contrast rule finds no serious violation. Sonner's light-theme colours
 * were 3.1-4.4:1 (src/client/styles.css raises them). The toasts are drawn with sonner's own markup
 * attributes on a page of the built app, so the cascade is the one users get: sonner's stylesheet
 * (inserted by the app's bundle) and ours.
 */
test.use({ reducedMotion: "reduce" });

test("toasts of every type are readable (axe colour-contrast)", async ({ page }) => {
  await loadAxe(page);
  await page.goto("/");
  await expect(page.locator("h1").first()).toBeVisible();
  // sonner inserts its stylesheet when the app's bundle loads it
  await expect
    .poll(() =>
      page.evaluate(() =>
        [...document.styleSheets].some((s) => s.ownerNode?.textContent?.includes("data-sonner-toaster")),
      ),
    )
    .toBe(true);
  await page.evaluate(() => {
    const section = document.createElement("section");
    section.setAttribute("aria-label", "Notifications");
    // in view, above the page, as the app's toaster (axe measures what is on screen)
    section.style.cssText = "position:fixed;top:8px;right:8px;z-index:2147483647;width:360px";
    const ol = document.createElement("ol");
    ol.setAttribute("data-sonner-toaster", "");
    ol.setAttribute("data-sonner-theme", "light");
    ol.setAttribute("dir", "ltr");
    for (const type of ["success", "info", "warning", "error"]) {
      const li = document.createElement("li");
      li.setAttribute("data-sonner-toast", "");
      li.setAttribute("data-styled", "true");
      li.setAttribute("data-rich-colors", "true");
      li.setAttribute("data-type", type);
      li.setAttribute("data-visible", "true");
      li.setAttribute("data-mounted", "true");
      li.style.position = "static";
      li.style.transform = "none";
      li.style.opacity = "1";
      li.innerHTML = `<div data-content=""><div data-title="">A ${type} message about your contacts</div></div>`;
      ol.append(li);
    }
    section.append(ol);
    document.body.append(section);
  });
  const toast = page.locator('[data-sonner-toast][data-type="warning"]');
  await expect(toast).toBeVisible();
  // the variables really reach the toast (sonner's rule applied, then ours)
  expect(await toast.evaluate((el) => getComputedStyle(el).color)).not.toBe("rgb(0, 0, 0)");
  expect(await seriousViolations(page, "toasts", ["color-contrast"])).toEqual([]);
});
