import { expect, type Page, test } from "@playwright/test";
import { THEME_IDS } from "../../src/server/features/user/user.schemas";
import { COLOUR_RULES, loadAxe, open, routes, seed, seriousViolations, switchTheme } from "./a11y-helpers";

/**
 * UI audit (extends a11y.spec.ts, which checks overflow and axe on every signed-in route in the default
 * theme and the colour rules of every theme on three screens). Always run: keyboard focus is visible
 * with a 3:1 ring on every Tab stop in light, dark and bright themes; a field's error is its accessible
 * description; solid buttons keep label contrast on hover in every theme; dialogs opened from the
 * keyboard trap Tab, close on Escape and give focus back.
 * With UI_AUDIT_FULL=1 (about 25 minutes, not in CI) the full sweep also runs: every public and
 * signed-in route and the states a user reaches (empty lists, form errors, every contacts dialog, the
 * bulk bar) at 390 and 1280 px, full axe in a light and a dark theme and the colour rules in all 24,
 * page overflow, clipped or overlapping controls, and the focus check in all 24 themes.
 */
test.setTimeout(120_000);
test.use({ reducedMotion: "reduce" });

const FULL = !!process.env.UI_AUDIT_FULL;

/** The pages a visitor reaches without an account (the tokens are invalid: their error states). */
const PUBLIC = [
  "/",
  "/login",
  "/register",
  "/forgot-password",
  "/reset-password?token=abc",
  "/verify-email?token=abc",
  "/invite/abc",
];

/** Opens a page that needs no account and waits for its heading. */
async function openPublic(page: Page, route: string) {
  await page.goto(route);
  await expect(page.locator("h1").first()).toBeVisible();
  await page.waitForLoadState("networkidle").catch(() => {});
}

/** Layout problems of the page as drawn now: page overflow, controls clipped or overlapping. */
async function layoutProblems(page: Page, label: string): Promise<string[]> {
  const found = await page.evaluate(() => {
    const out: string[] = [];
    const se = document.scrollingElement as HTMLElement;
    if (se.scrollWidth > window.innerWidth)
      out.push(`page scrolls sideways by ${se.scrollWidth - window.innerWidth}px`);
    const name = (el: Element) => {
      const t = (
        el.getAttribute("aria-label") ||
        (el as HTMLElement).innerText ||
        el.getAttribute("placeholder") ||
        el.id ||
        ""
      )
        .trim()
        .slice(0, 30);
      return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}"${t}"`;
    };
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      if (r.width < 2 || r.height < 2) return false;
      const cs = getComputedStyle(el);
      // the sr-only pattern (a skip link until focused) is clipped to nothing
      if (
        cs.position === "absolute" &&
        (cs.clipPath === "inset(50%)" || cs.clip === "rect(0px, 0px, 0px, 0px)")
      )
        return false;
      return cs.visibility !== "hidden" && cs.opacity !== "0";
    };
    // under an open modal the page is inert: only the dialog's controls count
    const scope = document.querySelector("[role=dialog]") ?? document;
    const controls = [
      ...scope.querySelectorAll<HTMLElement>(
        "a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=tab], [role=checkbox], [role=switch], [role=combobox]",
      ),
    ].filter(visible);
    for (const el of controls) {
      const r = el.getBoundingClientRect();
      // clipped by an ancestor that hides overflow and does not scroll, or by the viewport
      let clipped = false;
      let scrollable = false;
      for (let a = el.parentElement; a; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if (["auto", "scroll"].includes(cs.overflowX)) {
          scrollable = true;
          break;
        }
        if (["hidden", "clip"].includes(cs.overflowX)) {
          const ar = a.getBoundingClientRect();
          if (r.right > ar.right + 1 || r.left < ar.left - 1) {
            clipped = true;
            break;
          }
        }
      }
      if (!scrollable && (r.right > window.innerWidth + 1 || r.left < -1)) clipped = true;
      if (clipped) out.push(`clipped: ${name(el)} [${Math.round(r.left)}..${Math.round(r.right)}]`);
    }
    for (let i = 0; i < controls.length; i++) {
      for (let j = i + 1; j < controls.length; j++) {
        const a = controls[i];
        const b = controls[j];
        if (a.contains(b) || b.contains(a)) continue;
        const ra = a.getBoundingClientRect();
        const rb = b.getBoundingClientRect();
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (w > 2 && h > 2) out.push(`overlap: ${name(a)} x ${name(b)} (${Math.round(w)}x${Math.round(h)})`);
      }
    }
    return out;
  });
  return found.map((f) => `${label}: ${f}`);
}

/** One keyboard focus stop: its name and what its focus indicator looks like. */
interface FocusStop {
  key: string;
  name: string;
  /** per theme id: nothing about the element's look changes when it takes focus */
  unchanged: Record<string, boolean>;
  /** per theme id: contrast of the ring (outline or spread box-shadow) with the colour behind it, or null */
  ringContrast: Record<string, number | null>;
}

/**
 * Reads the focused element: whether focusing it changes its look at all (outline, box-shadow,
 * background, border, text decoration, colour), and the contrast ratio (WCAG 2 relative luminance) of
 * its ring against the colour it is drawn on: an outline, or a box-shadow with a spread (the `ring-*`
 * utilities), composited over the nearest backgrounds of its ancestors. Colours are read through a
 * canvas, so any CSS colour syntax (oklch, oklab, color-mix) works. Reads it in each of `themes` (set on
 * <html> in turn, then the page's own theme is put back): with transitions off (reduced motion) the
 * computed colours follow at once, so one Tab walk covers every theme.
 */
function readFocusStop(themes: string[]): FocusStop | null {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return null;
  const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
  const rgba = (c: string): [number, number, number, number] => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = "#000";
    ctx.fillStyle = c;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top: number[], under: number[]) =>
    [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
  const lum = (c: number[]) => {
    const [r, g, b] = c.map((v) => {
      const x = v / 255;
      return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a: number[], b: number[]) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const root = document.documentElement;
  const pageTheme = root.dataset.theme;
  const unchanged: Record<string, boolean> = {};
  const ringContrast: Record<string, number | null> = {};
  for (const theme of themes) {
    root.dataset.theme = theme;
    // the colour behind the element: its ancestors' backgrounds, nearest on top, over the page colour
    const layers: number[][] = [];
    for (let a = el.parentElement; a; a = a.parentElement) {
      const c = rgba(getComputedStyle(a).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let behind = [255, 255, 255];
    for (const layer of layers.reverse()) behind = over(layer, behind);
    const snap = () => {
      const cs = getComputedStyle(el);
      return [
        cs.outlineStyle === "none" ? "none" : `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}`,
        cs.boxShadow,
        cs.backgroundColor,
        cs.borderColor,
        cs.textDecorationLine,
        cs.color,
      ].join("|");
    };
    const cs = getComputedStyle(el);
    const rings: string[] = [];
    if (cs.outlineStyle !== "none" && Number.parseFloat(cs.outlineWidth) > 0) rings.push(cs.outlineColor);
    // box-shadow layers, split on the commas outside parentheses; a ring has a spread (4th length) > 0
    let depth = 0;
    let part = "";
    for (const ch of `${cs.boxShadow},`) {
      if (ch === "(") depth++;
      if (ch === ")") depth--;
      if (ch === "," && depth === 0) {
        const m = part.trim().match(/^(.*?)\s+(-?[\d.]+)px\s+(-?[\d.]+)px\s+(-?[\d.]+)px\s+(-?[\d.]+)px/);
        if (m && Number.parseFloat(m[5]) > 0) rings.push(m[1]);
        part = "";
      } else part += ch;
    }
    const contrasts = rings
      .map(rgba)
      .filter((c) => c[3] > 0)
      .map((c) => ratio(over(c, behind), behind));
    const focused = snap();
    el.blur();
    const unfocused = snap();
    el.focus();
    unchanged[theme] = focused === unfocused;
    ringContrast[theme] = contrasts.length ? Math.max(...contrasts) : null;
  }
  if (pageTheme) root.dataset.theme = pageTheme;
  const text = (el.getAttribute("aria-label") || el.innerText || el.getAttribute("placeholder") || "")
    .trim()
    .replace(/\s+/g, " ")
    .slice(0, 30);
  return {
    key: `${el.tagName}#${el.id}:${text}`,
    name: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""} "${text}"`,
    unchanged,
    ringContrast,
  };
}

/**
 * Tabs through the page from the top (up to `max` stops) and reports every stop whose focus is not
 * visible: nothing changes when it takes focus (WCAG 2.4.7), or its ring has less than 3:1 contrast
 * with what it is drawn on (WCAG 1.4.11). Stops that show focus another way (a background change, no
 * ring) pass.
 */
async function focusProblems(
  page: Page,
  label: string,
  themes: readonly string[],
  max = 40,
): Promise<string[]> {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(readFocusStop, [...themes]);
    if (!stop || seen.has(stop.key)) continue;
    seen.add(stop.key);
    for (const theme of themes) {
      const contrast = stop.ringContrast[theme];
      if (stop.unchanged[theme]) out.push(`${label} [${theme}]: no focus indicator on ${stop.name}`);
      else if (contrast !== null && contrast < 3)
        out.push(`${label} [${theme}]: focus ring ${contrast.toFixed(2)}:1 on ${stop.name}`);
    }
  }
  return out;
}

test("full audit: public pages at 390 and 1280 px", async ({ page }) => {
  test.skip(!FULL, "set UI_AUDIT_FULL=1");
  test.setTimeout(1_800_000);
  await loadAxe(page);
  const found: string[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    for (const route of PUBLIC) {
      await openPublic(page, route);
      found.push(...(await layoutProblems(page, `${route} @${width}`)));
      if (width === 390) found.push(...(await focusProblems(page, `${route} @${width}`, THEME_IDS)));
      for (const theme of THEME_IDS) {
        await switchTheme(page, theme);
        const full = theme === "monochrome-elite" || theme === "midnight-blue";
        found.push(
          ...(await seriousViolations(
            page,
            `${route} @${width} [${theme}]`,
            full ? undefined : COLOUR_RULES,
          )),
        );
      }
      await page.evaluate(() => localStorage.removeItem("pitchwise-theme"));
    }
  }
  expect(found).toEqual([]);
});

for (const width of [390, 1280]) {
  test(`full audit: signed-in routes @${width}`, async ({ page, baseURL }) => {
    test.skip(!FULL, "set UI_AUDIT_FULL=1");
    test.setTimeout(1_800_000);
    const ids = await seed(page, baseURL!);
    await loadAxe(page);
    const found: string[] = [];
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    for (const route of routes(ids)) {
      await open(page, route);
      await switchTheme(page, "monochrome-elite");
      found.push(...(await layoutProblems(page, `${route} @${width}`)));
      found.push(...(await focusProblems(page, `${route} @${width}`, THEME_IDS)));
      for (const theme of THEME_IDS) {
        await switchTheme(page, theme);
        const full = theme === "midnight-blue";
        found.push(
          ...(await seriousViolations(
            page,
            `${route} @${width} [${theme}]`,
            full ? undefined : COLOUR_RULES,
          )),
        );
      }
      await switchTheme(page, "monochrome-elite");
    }
    expect(found).toEqual([]);
  });
}

/** Full axe in the default and a dark theme, colour rules in every theme, and the layout checks. */
async function checkState(page: Page, label: string, width: number): Promise<string[]> {
  const found: string[] = [];
  found.push(...(await layoutProblems(page, `${label} @${width}`)));
  for (const theme of THEME_IDS) {
    await switchTheme(page, theme);
    const full = theme === "midnight-blue" || theme === "monochrome-elite";
    found.push(
      ...(await seriousViolations(page, `${label} @${width} [${theme}]`, full ? undefined : COLOUR_RULES)),
    );
  }
  await switchTheme(page, "monochrome-elite");
  return found;
}

/**
 * Arms a recorder of where focus is at the moment the open dialog leaves the page: a MutationObserver
 * callback, which runs right after the removal and before any timer (so a focus return done later, in
 * a timeout, is not counted). `then` (optional, in the page) runs at that moment too: a user's next move.
 */
async function recordFocusAtClose(page: Page, then?: "focus-main") {
  await page.evaluate((next) => {
    const w = window as unknown as { __focusAtClose?: Element | null };
    const content = document.querySelector("[role=dialog]");
    w.__focusAtClose = undefined;
    const mo = new MutationObserver(() => {
      if (!content || content.isConnected) return;
      mo.disconnect();
      w.__focusAtClose = document.activeElement;
      if (next === "focus-main") document.querySelector<HTMLElement>("main")?.focus();
    });
    mo.observe(document.body, { childList: true, subtree: true });
  }, then);
}

/** Where focus was when the dialog left (recordFocusAtClose): "opener" or a short description. */
async function focusAtClose(opener: Awaited<ReturnType<ReturnType<Page["locator"]>["elementHandle"]>>) {
  return opener.evaluate((el) => {
    const a = (window as unknown as { __focusAtClose?: Element | null }).__focusAtClose;
    if (a === undefined) return "(the dialog was not removed)";
    if (a === el) return "opener";
    return a ? `<${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ""}>` : "nothing";
  });
}

/**
 * Opens a dialog from `opener` with the keyboard, checks the focus trap, Escape and focus return: the
 * opener element itself (not a re-rendered copy, which the locator would find) has focus at the very
 * moment the dialog leaves the page, and still has it once the page's timers have run. No wait for
 * focus to arrive: a return that comes late (or never) is what this reports.
 */
async function dialogKeyboard(
  page: Page,
  label: string,
  opener: ReturnType<Page["locator"]>,
): Promise<string[]> {
  const out: string[] = [];
  await opener.focus();
  const el = await opener.elementHandle();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  for (let i = 0; i < 25; i++) {
    await page.keyboard.press("Tab");
    const inside = await page.evaluate(() => !!document.activeElement?.closest("[role=dialog]"));
    if (!inside) {
      out.push(`${label}: focus left the dialog after ${i + 1} Tab`);
      break;
    }
  }
  await recordFocusAtClose(page);
  await page.keyboard.press("Escape");
  const closed = await expect(dialog)
    .toHaveCount(0, { timeout: 5_000 })
    .then(() => true)
    .catch(() => false);
  if (!closed) return [...out, `${label}: Escape did not close`];
  if (!(await el.evaluate((e) => e.isConnected)))
    return [...out, `${label}: the opener was replaced while the dialog was open`];
  const atClose = await focusAtClose(el);
  if (atClose !== "opener")
    out.push(`${label}: focus was on ${atClose} as the dialog closed, not on the opener`);
  // and it stays there once the dialog's deferred close handling (a timer) has run
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  if (!(await el.evaluate((e) => e === document.activeElement)))
    out.push(`${label}: focus did not stay on the opener`);
  await el.dispose();
  return out;
}

for (const width of [390, 1280]) {
  test(`full audit: empty, error and dialog states @${width}`, async ({ page, baseURL }) => {
    test.skip(!FULL, "set UI_AUDIT_FULL=1");
    test.setTimeout(1_800_000);
    const found: string[] = [];
    await loadAxe(page);
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    // empty account
    const email = `empty-${Date.now()}@example.com`;
    const reg = await page.request.post("/api/auth/register", {
      data: { name: "Eve Empty", email, password: "correct-horse-battery", business_name: "Empty Co" },
    });
    expect(reg.ok()).toBe(true);
    for (const route of [
      "/dashboard",
      "/contacts",
      "/campaigns",
      "/studio?tab=library",
      "/contacts/map",
      "/settings?tab=api-keys",
      "/settings?tab=webhooks",
      "/settings?tab=team",
    ]) {
      await open(page, route);
      found.push(...(await checkState(page, `empty ${route}`, width)));
    }
    await page.context().clearCookies();
    // signed out error states
    await page.goto("/login");
    await page.getByRole("button", { name: "Sign In" }).click();
    found.push(...(await checkState(page, "login empty submit", width)));
    await page.getByLabel("Email").fill("nobody@example.com");
    await page.getByLabel("Password").fill("wrong-password-123");
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page.getByRole("alert").first()).toBeVisible();
    found.push(...(await checkState(page, "login wrong password", width)));
    await page.goto("/register");
    await page
      .getByRole("button", { name: /create|sign up|register/i })
      .first()
      .click();
    found.push(...(await checkState(page, "register empty submit", width)));

    const ids = await seed(page, baseURL!);
    await open(page, "/contacts");
    const steps: [string, string][] = [
      ["Add Contact", "add contact"],
      ["Import", "import"],
      ["Segments", "segments"],
    ];
    for (const [button, label] of steps) {
      const opener = page.getByRole("main").getByRole("button", { name: button }).first();
      found.push(...(await dialogKeyboard(page, label, opener)));
      await opener.click();
      await expect(page.getByRole("dialog")).toBeVisible();
      found.push(...(await checkState(page, `dialog ${label}`, width)));
      if (label === "add contact") {
        await page.getByRole("dialog").getByRole("button", { name: "Add Contact" }).click();
        await expect(page.getByRole("dialog").getByRole("alert")).toBeVisible();
        found.push(...(await checkState(page, "dialog add contact error", width)));
      }
      await page.keyboard.press("Escape");
      await expect(page.getByRole("dialog")).toHaveCount(0);
    }
    await page.getByRole("checkbox").first().check();
    found.push(...(await checkState(page, "contacts bulk bar", width)));
    for (const button of ["Add Tag", "Update Stage", "Update Status"]) {
      const opener = page.getByRole("button", { name: button });
      found.push(...(await dialogKeyboard(page, button, opener)));
      await opener.click();
      found.push(...(await checkState(page, `dialog ${button}`, width)));
      await page.keyboard.press("Escape");
    }
    await open(page, `/contacts/${ids.contactId}`);
    for (const button of ["Send Email", "Send SMS", "Call"]) {
      const opener = page.getByRole("main").getByRole("button", { name: button, exact: false }).first();
      if (!(await opener.count())) {
        found.push(`no button ${button}`);
        continue;
      }
      found.push(...(await dialogKeyboard(page, button, opener)));
      await opener.click();
      found.push(...(await checkState(page, `dialog ${button}`, width)));
      await page.keyboard.press("Escape");
    }
    expect(found).toEqual([]);
  });
}

test("keyboard focus is visible on every Tab stop, with a 3:1 ring, in light, dark and bright themes", async ({
  page,
}) => {
  await page.request.post("/api/auth/register", {
    data: {
      name: "Kim Keys",
      email: `keys-${Date.now()}@example.com`,
      password: "correct-horse-battery",
      business_name: "Keys Co",
    },
  });
  const found: string[] = [];
  // the sidebar is dark in monochrome-elite, purple-royal and steel-gray; the primary is bright in
  // lime-electric, amber-sunset and mint-fresh; midnight-blue is dark
  const themes = [
    "monochrome-elite",
    "lime-electric",
    "amber-sunset",
    "mint-fresh",
    "purple-royal",
    "midnight-blue",
  ];
  // the sidebar and its account menu, then the page; the settings tabs, their panel and form fields
  for (const [width, route, stops] of [
    [1280, "/dashboard", 22],
    [390, "/settings?tab=profile", 16],
  ] as const) {
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    await open(page, route);
    found.push(...(await focusProblems(page, `${route} @${width}`, themes, stops)));
  }
  // a control on a primary-coloured panel (the landing page's trial call to action): its ring is not
  // the panel's own colour
  await page.setViewportSize({ width: 390, height: 844 });
  await page.context().clearCookies();
  await page.goto("/");
  await page.keyboard.press("Tab");
  await page.getByRole("link", { name: "Get Started Free" }).focus();
  const stop = await page.evaluate(readFocusStop, themes);
  for (const theme of themes) {
    const contrast = stop?.ringContrast[theme];
    if (contrast == null || contrast < 3) found.push(`/ [${theme}]: Get Started Free ring ${contrast}`);
  }
  expect(found).toEqual([]);
});

test("the contact map's cluster marker and the map itself show a 3:1 focus ring against the map in every theme", async ({
  page,
  baseURL,
}) => {
  // five contacts at one ZIP code: one cluster button on the map (WCAG 1.4.11 for its focus ring)
  await seed(page, baseURL!);
  await open(page, "/contacts/map");
  const cluster = page.getByTestId("map-cluster").first();
  await expect(cluster).toBeVisible({ timeout: 30_000 });
  await page.keyboard.press("Tab");
  await cluster.focus();
  /** The themes where the focused element's ring is under 3:1 (or absent), labelled. */
  const lowRings = (stop: FocusStop | null, label: string) =>
    THEME_IDS.filter((t) => (stop?.ringContrast[t] ?? 0) < 3).map(
      (t) => `${label} ${t}: ${stop?.ringContrast[t]?.toFixed(2)}:1`,
    );
  const stop = await page.evaluate(readFocusStop, [...THEME_IDS]);
  expect(stop?.name).toContain("here: zoom in");
  // the map itself (arrow keys pan it): its ring is drawn on the light basemap in every theme
  await page.locator(".maplibregl-canvas").focus();
  const canvas = await page.evaluate(readFocusStop, [...THEME_IDS]);
  expect(canvas?.name).toContain("canvas");
  expect([...lowRings(stop, "cluster"), ...lowRings(canvas, "map")]).toEqual([]);
});

test("a form field's error message is its accessible description", async ({ page }) => {
  await page.goto("/register");
  await page.getByLabel("Name", { exact: true }).fill("   ");
  await page.getByLabel("Email").fill("sam@example.com");
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create Account" }).click();
  // a screen reader reads the message with the field, not only the red text under it
  const name = page.getByLabel("Name", { exact: true });
  await expect(name).toHaveAccessibleDescription("Please enter your name");
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Password")).toHaveAccessibleDescription(
    "Password must be at least 8 characters",
  );
  await expect(page.getByLabel("Email")).not.toHaveAttribute("aria-describedby");
  // once corrected (checked again as the user types), the message and the description go
  await name.fill("Sam");
  await expect(name).not.toHaveAttribute("aria-describedby");
  await expect(name).toHaveAttribute("aria-invalid", "false");
});

test("solid buttons keep 4.5:1 label contrast when hovered, in every theme", async ({ page }) => {
  await loadAxe(page);
  await page.goto("/login");
  const submit = page.getByRole("button", { name: "Sign In" });
  await submit.hover();
  const found: string[] = [];
  for (const theme of THEME_IDS) {
    await switchTheme(page, theme);
    const ids = await page.evaluate(async () =>
      (
        await (window as unknown as { axe: typeof import("axe-core") }).axe.run(
          { include: ["button[type=submit]"] },
          { runOnly: { type: "rule", values: ["color-contrast"] }, resultTypes: ["violations"] },
        )
      ).violations.flatMap((v) => v.nodes.map((n) => n.failureSummary ?? v.id)),
    );
    found.push(...ids.map((f) => `[${theme}] ${f.replace(/\s+/g, " ").slice(0, 200)}`));
  }
  expect(found).toEqual([]);
});

for (const width of [390, 1280]) {
  test(`a dialog opened from the keyboard traps Tab, closes on Escape and gives focus back, with or without an autofocused field @${width}`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    await page.request.post("/api/auth/register", {
      data: {
        name: "Dee Dialog",
        email: `dialog-${width}-${Date.now()}@example.com`,
        password: "correct-horse-battery",
        business_name: "Dialog Co",
      },
    });
    await open(page, "/contacts");
    const found: string[] = [];
    // Add Contact focuses its first field itself (autoFocus); Import CSV leaves focus to the dialog
    for (const name of ["Add Contact", "Import CSV"]) {
      found.push(
        ...(await dialogKeyboard(page, name, page.getByRole("main").getByRole("button", { name }).first())),
      );
    }
    expect(found).toEqual([]);
  });
}

test("a focus the user moves right as a dialog closes is not taken back by the dialog", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.request.post("/api/auth/register", {
    data: {
      name: "Mo Mover",
      email: `dialog-move-${Date.now()}@example.com`,
      password: "correct-horse-battery",
      business_name: "Mover Co",
    },
  });
  await open(page, "/contacts");
  const opener = page.getByRole("main").getByRole("button", { name: "Add Contact" }).first();
  await opener.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog")).toBeVisible();
  // as the dialog leaves, focus moves on (to the page's main region, as the skip link does)
  await recordFocusAtClose(page, "focus-main");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  await expect(page.locator("main")).toBeFocused();
});
