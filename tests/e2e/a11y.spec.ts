import { expect, type Page, test } from "@playwright/test";
import { THEME_IDS } from "../../src/server/features/user/user.schemas";
import { COLOUR_RULES, loadAxe, open, routes, seed, seriousViolations, switchTheme } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";

/**
 * Issue 14 section 6, kept so: no horizontal overflow at 390 px on any signed-in route (scrollWidth <=
 * clientWidth), and axe-core finds no serious or critical violation (WCAG 2 A/AA rules) on every route
 * at 1440 and 390 px in the default theme with data, and in all 24 themes on the most colourful screens
 * (dashboard, contacts with every stage, a campaign report) at both widths with the colour-dependent
 * rules (the rest of the rules do not change with the theme). The API reference (/docs/api, Swagger UI)
 * is checked the same way in its light and dark modes. Each test collects every failure before
 * asserting, so one run lists them all.
 */
test.setTimeout(600_000);
test.use({ reducedMotion: "reduce" });

test("no horizontal overflow at 390 px on any route", async ({ page, baseURL }) => {
  const ids = await seed(page, baseURL!);
  await page.setViewportSize({ width: 390, height: 844 });
  const overflowing: string[] = [];
  for (const route of routes(ids)) {
    await open(page, route);
    const { scroll, client } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    if (scroll > client) overflowing.push(`${route}: ${scroll - client}px`);
  }
  expect(overflowing).toEqual([]);
});

test("axe: no serious or critical violations on any route at 1440 and 390 px", async ({ page, baseURL }) => {
  const ids = await seed(page, baseURL!);
  await loadAxe(page);
  const found: string[] = [];
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    for (const route of routes(ids)) {
      await open(page, route);
      found.push(...(await seriousViolations(page, `${route} @${width}`)));
    }
  }
  expect(found).toEqual([]);
});

test("axe: every theme on the dashboard, contacts and a campaign report, at 1440 and 390 px", async ({
  page,
  baseURL,
}) => {
  const ids = await seed(page, baseURL!);
  await loadAxe(page);
  const found: string[] = [];
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    for (const route of ["/dashboard", "/contacts", `/campaigns/${ids.campaignId}`]) {
      await open(page, route);
      for (const theme of THEME_IDS) {
        await switchTheme(page, theme);
        found.push(...(await seriousViolations(page, `${route} @${width} [${theme}]`, COLOUR_RULES)));
      }
    }
  }
  expect(found).toEqual([]);
});

/**
 * Opens the API reference (/docs/api, Swagger UI served by the app) and waits for its operations;
 * expands a GET with enum parameters and a POST with a request body, so the try-it console's fields
 * (shown at once: tryItOutEnabled) and the response samples are on the page for axe too.
 */
async function openDocs(page: Page) {
  await page.goto("/docs/api");
  await expect(page.locator(".opblock").first()).toBeVisible();
  for (const op of ["Contacts-listContacts", "Contacts-createContact"]) {
    await page.locator(`#operations-${op} .opblock-summary-control`).click();
    await expect(page.locator(`#operations-${op} .opblock-body`)).toBeVisible();
  }
  await expect(page.locator("#operations-Contacts-createContact .body-param textarea")).toBeVisible();
}

test("axe: /docs/api in a light and a dark theme at 1440 and 390 px, operations expanded and the Authorize dialog open", async ({
  page,
}) => {
  await loadAxe(page);
  // the page follows the app's saved theme (light or dark), else the browser's preference
  const modes = [
    { label: "saved light theme", theme: "monochrome-elite", scheme: "dark", dark: false },
    { label: "saved dark theme", theme: "midnight-blue", scheme: "light", dark: true },
    { label: "no saved theme, prefers dark", theme: null, scheme: "dark", dark: true },
    { label: "no saved theme, prefers light", theme: null, scheme: "light", dark: false },
  ] as const;
  const found: string[] = [];
  for (const mode of modes) {
    await page.emulateMedia({ colorScheme: mode.scheme, reducedMotion: "reduce" });
    await page.goto("/docs/api");
    await page.evaluate((t) => {
      if (t) localStorage.setItem("pitchwise-theme", t);
      else localStorage.removeItem("pitchwise-theme");
    }, mode.theme);
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
      await openDocs(page);
      expect(
        await page.evaluate(() => document.documentElement.classList.contains("dark-mode")),
        mode.label,
      ).toBe(mode.dark);
      const label = `/docs/api @${width} [${mode.label}]`;
      found.push(...(await seriousViolations(page, label)));
      await page.locator(".auth-wrapper .btn.authorize").click();
      await expect(page.getByRole("dialog")).toBeVisible();
      found.push(...(await seriousViolations(page, `${label} Authorize dialog`)));
      await page.getByRole("button", { name: "Close dialog" }).click();
      await expect(page.getByRole("dialog")).toHaveCount(0);
    }
  }
  expect(found).toEqual([]);
});

test("/docs/api: the try-it console still authorizes with an API key and executes a request", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "docs", name: "Dana Docs", business: "Docs Co" });
  const origin = new URL(page.url()).origin;
  const created = await page.request.post("/api/api-keys", {
    headers: { origin },
    data: { name: "Docs console", scopes: ["contacts:read"] },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const { key } = (await created.json()) as { key: string };
  await openDocs(page);
  await page.locator(".auth-wrapper .btn.authorize").click();
  const dialog = page.getByRole("dialog");
  await dialog.locator("input").first().fill(key);
  await dialog.getByRole("button", { name: "Authorize", exact: true }).click();
  await expect(dialog.getByRole("button", { name: "Logout" })).toBeVisible();
  await dialog.getByRole("button", { name: "Close dialog" }).click();
  const op = page.locator("#operations-Contacts-listContacts");
  await op.getByRole("button", { name: "Execute" }).click();
  await expect(op.locator(".live-responses-table tbody .response-col_status").first()).toHaveText("200");
  await expect(op.locator(".live-responses-table")).toContainText('"object": "list"');
});
