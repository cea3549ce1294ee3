import { expect, type Locator, type Page, test } from "@playwright/test";
import { THEME_IDS } from "../../src/server/features/user/user.schemas";
import { open } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * QA findings, each reproduced by a tester: the page header squeezed the Contacts title to 0-50 px and
 * scrolled the page sideways at 1024-1280 px; the studio's media library was wider than a 390 px
 * phone; the contact page's tag chips were white on any tag colour (1.07:1 on yellow) and its
 * Customer badge 4.44-4.49:1 in half the themes; the free plan was called "Starter"; a revoked API
 * key's secret stayed on screen; a refused webhook URL's error stayed after the URL was edited; every
 * page asked for a missing /favicon.ico.
 */

test.use({ reducedMotion: "reduce" });

/**
 * WCAG 2 contrast of an element's text colour with the colour behind it (its own and its ancestors'
 * backgrounds, nearest on top, composited over white), read from computed styles through a canvas so
 * any CSS colour syntax (oklch, oklab, color-mix) works. With `theme`, read with that theme set on
 * <html> (the page's own theme is put back after).
 */
function textContrast(el: Element, theme: string | null): number {
  const root = document.documentElement;
  const pageTheme = root.dataset.theme;
  if (theme) root.dataset.theme = theme;
  try {
    const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
    const rgba = (c: string): number[] => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = "#000";
      ctx.fillStyle = c;
      ctx.fillRect(0, 0, 1, 1);
      const d = ctx.getImageData(0, 0, 1, 1).data;
      return [d[0], d[1], d[2], d[3] / 255];
    };
    const over = (top: number[], under: number[]) => [
      ...[0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])),
      1,
    ];
    const lum = (c: number[]) => {
      const [r, g, b] = c.slice(0, 3).map((v) => {
        const x = v / 255;
        return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const layers: number[][] = [];
    for (let a: Element | null = el; a; a = a.parentElement) {
      const c = rgba(getComputedStyle(a).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let behind = [255, 255, 255, 1];
    for (const layer of layers.reverse()) behind = over(layer, behind);
    const text = over(rgba(getComputedStyle(el).color), behind);
    const [hi, lo] = [lum(text), lum(behind)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  } finally {
    if (pageTheme) root.dataset.theme = pageTheme;
  }
}

/** The themes in which `el`'s text has less than 4.5:1 contrast, with the ratio. */
async function lowContrastThemes(el: Locator): Promise<string[]> {
  const out: string[] = [];
  for (const theme of THEME_IDS) {
    const ratio = await el.evaluate(textContrast, theme);
    if (ratio < 4.5) out.push(`${theme}: ${ratio.toFixed(2)}:1`);
  }
  return out;
}

/** A signed-in request's headers (the CSRF check wants this site's Origin). */
const originOf = (page: Page) => ({ origin: new URL(page.url()).origin });

/** Layout of the current page's PageHeader: sideways scroll, the title block's width, overlaps. */
async function headerLayout(page: Page) {
  return page.evaluate(() => {
    const h1 = document.querySelector("main h1") as HTMLElement;
    const titleBlock = h1.parentElement as HTMLElement;
    const header = titleBlock.parentElement as HTMLElement;
    const actions = [...header.querySelectorAll("a, button")].map((a) => a.getBoundingClientRect());
    const texts = [h1, titleBlock.querySelector("p")].filter(Boolean).map((t) => t!.getBoundingClientRect());
    const meets = (a: DOMRect, b: DOMRect) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    return {
      overflow: (document.scrollingElement as HTMLElement).scrollWidth - window.innerWidth,
      titleWidth: titleBlock.getBoundingClientRect().width,
      overlaps: actions.filter((a) => texts.some((t) => meets(a, t))).length,
      offscreen: actions.filter((a) => a.left < 0 || a.right > window.innerWidth).length,
    };
  });
}

test("the page header keeps its title readable and wraps its actions, 390 to 1920 px", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "qa-header", name: "Hedda Header", business: "Header Co" });
  const found: string[] = [];
  for (const width of [390, 768, 1024, 1280, 1440, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    for (const route of ["/contacts", "/campaigns", "/dashboard"]) {
      // not open(): a title squeezed to 0 px is not "visible", and its width is what is measured here
      await page.goto(route);
      await expect(page.locator("main h1").first()).toBeAttached();
      await expect(page.getByText(/^Loading/)).toHaveCount(0);
      await page.waitForLoadState("networkidle").catch(() => {});
      if (route === "/contacts") await expect(page.locator("main h1")).toContainText("Contacts (");
      const m = await headerLayout(page);
      const label = `${route} at ${width}px`;
      if (m.overflow > 0) found.push(`${label}: page scrolls sideways by ${m.overflow}px`);
      if (m.titleWidth < 150) found.push(`${label}: title block ${m.titleWidth}px wide`);
      if (m.overlaps > 0) found.push(`${label}: ${m.overlaps} action(s) overlap the title or description`);
      if (m.offscreen > 0) found.push(`${label}: ${m.offscreen} action(s) outside the viewport`);
    }
  }
  expect(found).toEqual([]);
});

test("the contact page's tag chips and Customer badge are readable (4.5:1) in every theme", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "qa-chips", name: "Cora Chips", business: "Chips Co" });
  const headers = originOf(page);
  const tagRes = await page.request.post("/api/contacts/tags", {
    headers,
    data: { name: "Sunny", color: "#ffff00" },
  });
  expect(tagRes.ok(), await tagRes.text()).toBe(true);
  const tagId = (await tagRes.json()).tag.id as number;
  const contactRes = await page.request.post("/api/contacts", {
    headers,
    data: {
      first_name: "Yara",
      last_name: "Yellow",
      email: `yara-${Date.now()}@example.com`,
      lifecycle_stage: "customer",
    },
  });
  expect(contactRes.ok(), await contactRes.text()).toBe(true);
  const contactId = (await contactRes.json()).contact.id as number;
  const tagged = await page.request.post("/api/contacts/bulk/operation", {
    headers,
    data: { contactIds: [contactId], operation: "add_tag", data: { tag_id: tagId } },
  });
  expect(tagged.ok(), await tagged.text()).toBe(true);

  await open(page, `/contacts/${contactId}`);
  const tags = page.getByTestId("contact-tags");
  const chip = tags.getByText("Sunny", { exact: true });
  await expect(chip).toBeVisible();
  expect.soft(await chip.evaluate(textContrast, null)).toBeGreaterThanOrEqual(4.5);
  const badge = tags.getByText("Customer", { exact: true });
  await expect(badge).toBeVisible();
  expect.soft(await lowContrastThemes(badge)).toEqual([]);

  // the same badge in the contacts list (a table row on a card)
  await open(page, "/contacts");
  const row = page.getByRole("row").filter({ hasText: "Yara Yellow" });
  const listBadge = row.getByText("Customer", { exact: true });
  await expect(listBadge).toBeVisible();
  expect(await lowContrastThemes(listBadge)).toEqual([]);
});

test("the media library fits a 390 px screen with a long unbroken title", async ({ page }) => {
  const email = await registerVerifiedBusiness(page, {
    prefix: "qa-media",
    name: "Mia Media",
    business: "Media Co",
  });
  const name = `Spring-promo-${"x".repeat(90)}.mp4`;
  // a library item as the worker leaves one whose processing failed (no file needed to show it)
  await withE2eDb(
    (sql) => sql`
      insert into media_items (workspace_id, created_by, name, type, processing_status, processing_error, mime_type, size_bytes, original_size_bytes)
      select w.id, u.id, ${name}, 'video', 'failed', 'Unsupported codec', 'video/mp4', 1000, 1000
      from users u join workspaces w on w.owner_id = u.id where u.email = ${email}`,
  );
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "/studio?tab=library");
  const card = page.getByTestId("media-card").filter({ hasText: "Processing failed" });
  await expect(card).toBeVisible();
  const box = (await card.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  const title = card.getByRole("heading", { level: 3 });
  await expect(title).toHaveAttribute("title", name);
  const titleBox = (await title.boundingBox())!;
  expect(titleBox.x + titleBox.width).toBeLessThanOrEqual(box.x + box.width);
  expect(await title.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  const overflow = await page.evaluate(
    () => (document.scrollingElement as HTMLElement).scrollWidth - window.innerWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
});

test("the free plan is called Free, in the app and on the landing page", async ({ page }) => {
  const email = `qa-plan-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await page.goto("/");
  await expect(page.getByText("Free forever on the Free plan")).toBeVisible();
  await expect(page.getByText(/Starter plan/)).toHaveCount(0);
  const res = await page.request.post("/api/auth/register", {
    data: { name: "Fran Free", email, password: "correct-horse-battery", business_name: "Free Co" },
  });
  expect(res.ok()).toBe(true);
  await page.setViewportSize({ width: 1280, height: 900 });
  await open(page, "/dashboard");
  await expect(page.getByTestId("sidebar-plan")).toHaveText("Free plan");
});

test("a new API key's secret is hidden once that key is revoked, not when another key is", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "qa-keys", name: "Kai Keys", business: "Keys Co" });
  const older = await page.request.post("/api/api-keys", {
    headers: originOf(page),
    data: { name: "Older key", scopes: ["contacts:read"] },
  });
  expect(older.ok(), await older.text()).toBe(true);
  await open(page, "/settings?tab=api-keys");
  await page.getByLabel("Name", { exact: true }).fill("Fresh key");
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByTestId("new-api-key");
  await expect(shown).toContainText("pw_live_");
  const list = page.getByRole("list", { name: "API keys" });

  const revoke = async (name: string) => {
    await list.getByRole("button", { name: new RegExp(`^Revoke API key ${name} `) }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await expect(
      list.getByRole("listitem").filter({ hasText: name }).getByText("Revoked", { exact: true }),
    ).toBeVisible();
  };
  // revoking another key leaves the new key's secret on screen
  await revoke("Older key");
  await expect(shown).toContainText("pw_live_");
  // revoking the key it shows hides it
  await revoke("Fresh key");
  await expect(shown).toHaveCount(0);
  await expect(page.getByText(/pw_live_[A-Za-z0-9]{8,}/)).toHaveCount(0);
});

test("a refused webhook URL's error goes once the URL is edited", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "qa-hooks", name: "Hal Hooks", business: "Hooks Co" });
  await open(page, "/settings?tab=webhooks");
  const url = page.getByLabel("Endpoint URL (https)");
  await url.fill("https://127.0.0.1/hook");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const error = page.getByRole("alert").filter({ hasText: "non-public" });
  await expect(error).toBeVisible();
  await url.fill("https://example.com/hook");
  await expect(error).toHaveCount(0);
  await expect(page.getByRole("alert")).toHaveCount(0);
});

test("the favicon is served (no 404 for /favicon.ico) and named by the app's pages", async ({ page }) => {
  const missing: string[] = [];
  page.on("response", (r) => {
    if (r.status() === 404) missing.push(r.url());
  });
  for (const [path, type] of [
    ["/favicon.ico", /^image\//],
    ["/favicon.svg", /^image\/svg\+xml/],
  ] as const) {
    const res = await page.request.get(path);
    expect(res.status(), path).toBe(200);
    expect(res.headers()["content-type"], path).toMatch(type);
    expect((await res.body()).length, path).toBeGreaterThan(100);
  }
  await page.goto("/");
  const icons = await page
    .locator('link[rel="icon"]')
    .evaluateAll((links) => links.map((l) => (l as HTMLLinkElement).href));
  expect(icons.length).toBeGreaterThan(0);
  for (const href of icons) {
    expect(href).toMatch(/^http/);
    expect((await page.request.get(href)).status(), href).toBe(200);
  }
  await page.waitForLoadState("networkidle").catch(() => {});
  expect(missing).toEqual([]);
});
