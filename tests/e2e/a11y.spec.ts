import { createRequire } from "node:module";
import { expect, type Page, test } from "@playwright/test";
import type Axe from "axe-core";
import { THEME_IDS } from "../../src/server/features/user/user.schemas";
import { accountLinkFromOutbox, registerVerifiedBusiness } from "./account-helpers";

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

const STAGES = ["subscriber", "lead", "prospect", "customer", "advocate"] as const;
const STATUSES = ["new", "contacted", "qualified", "unqualified"] as const;

/** Registers a user with five contacts (every stage and status) and one launched email campaign. */
async function seed(page: Page, origin: string): Promise<{ contactId: number; campaignId: string }> {
  const email = `a11y-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Alex Access", email, password: "correct-horse-battery", business_name: "Access Co" },
  });
  expect(reg.ok()).toBe(true);
  // launches need a verified address (issue 11); the verification mail is sent by a job
  const headers = { origin };
  await expect(async () => {
    const token = new URL(await accountLinkFromOutbox(page, email, "verify-email")).searchParams.get("token");
    const res = await page.request.post("/api/auth/verify-email", { data: { token }, headers });
    expect(res.ok(), await res.text()).toBe(true);
  }).toPass({ timeout: 30_000 });
  let contactId = 0;
  for (const [i, stage] of STAGES.entries()) {
    const r = await page.request.post("/api/contacts", {
      headers,
      data: {
        first_name: ["Maria", "Sam", "Lee", "Kim", "Ola"][i],
        last_name: "Lopez",
        email: `c${i}-${email}`,
        phone: `+1 415 555 01${10 + i}`,
        company: i % 2 ? "Lopez Bakery" : "",
        city: "Bay City",
        state: "MI",
        postal_code: "48706",
        lifecycle_stage: stage,
        lead_status: STATUSES[i % STATUSES.length],
      },
    });
    expect(r.ok(), await r.text()).toBe(true);
    contactId = (await r.json()).contact.id;
  }
  const launch = await page.request.post("/api/campaigns/email/launch", {
    headers,
    data: {
      campaignName: "Spring offer",
      subject: "Hello {{first_name|there}}",
      body: "Hi {{first_name|there}}, spring is here.",
      contacts: [
        { name: "Maria Lopez", email: `c0-${email}` },
        { name: "Sam Lopez", email: `c1-${email}` },
      ],
    },
  });
  expect(launch.ok(), await launch.text()).toBe(true);
  return { contactId, campaignId: String((await launch.json()).campaignId) };
}

function routes(ids: { contactId: number; campaignId: string }): string[] {
  return [
    "/dashboard",
    "/studio?tab=record-video",
    "/studio?tab=record-audio",
    "/studio?tab=upload",
    "/studio?tab=ai-avatar",
    "/studio?tab=editor",
    "/studio?tab=library",
    "/campaigns",
    `/campaigns/${ids.campaignId}`,
    "/campaigns/video",
    "/email-campaign",
    "/campaigns/sms",
    "/campaigns/call",
    "/campaigns/voice",
    "/contacts",
    `/contacts/${ids.contactId}`,
    "/contacts/map",
    "/contacts/business-search",
    "/settings?tab=profile",
    "/settings?tab=theme",
    "/settings?tab=preferences",
    "/settings?tab=team",
    "/settings?tab=workspace",
    "/settings?tab=billing",
    "/settings?tab=api-keys",
    "/settings?tab=webhooks",
    "/pricing",
  ];
}

/** Opens a route and waits until its page heading is drawn and no loading text is left. */
async function open(page: Page, route: string) {
  await page.goto(route);
  await expect(page.locator("main h1").first()).toBeVisible();
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  await page.waitForLoadState("networkidle").catch(() => {});
}

/** axe-core's browser bundle, loaded into every page of the axe tests before the app's own scripts. */
const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * Makes axe-core part of every document this page loads (an init script), so each analysis is one
 * small call. (Sending the 650 kB bundle into the page before every analysis, as @axe-core/playwright
 * does twice per run, cost more than the analysis itself: most of each test's time.)
 */
async function loadAxe(page: Page) {
  await page.context().addInitScript({ path: AXE_SCRIPT });
}

/**
 * Runs axe-core on the page as it is now and returns one line per serious or critical violation.
 * `rules` limits the run to those rule ids (the theme pass); by default every WCAG 2.0/2.1 A and AA rule
 * runs. Same-origin frames are checked too (the app has no cross-origin ones).
 */
async function seriousViolations(page: Page, label: string, rules?: string[]): Promise<string[]> {
  const options: Axe.RunOptions = {
    runOnly: rules
      ? { type: "rule", values: rules }
      : { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    resultTypes: ["violations"],
  };
  const result = await page.evaluate(
    (opts) =>
      (window as unknown as { axe: typeof Axe }).axe.run(
        // the map canvas and its tiles are pictures, not text
        { exclude: [".maplibregl-canvas-container"] },
        opts,
      ),
    options,
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${label}: ${v.id} (${v.impact}) x${v.nodes.length}: ${v.nodes
          .slice(0, 3)
          .map(
            (n) => `${n.target.join(" ")} ${n.failureSummary?.split("\n").slice(1).join(" ").slice(0, 160)}`,
          )
          .join(" | ")}`,
    );
}

/**
 * Switches the theme the way Settings does (applyTheme in src/client/themes: data-theme on <html> and
 * the localStorage choice), without a reload, then waits until no CSS transition is running: the app
 * turns transitions off under prefers-reduced-motion (which these tests emulate), so this passes at
 * once unless a transition slips through, and axe then reads the settled colours.
 */
async function switchTheme(page: Page, theme: string) {
  await page.evaluate((t) => {
    document.documentElement.dataset.theme = t;
    localStorage.setItem("pitchwise-theme", t);
  }, theme);
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          new Promise<number>((resolve) =>
            requestAnimationFrame(() =>
              resolve(document.getAnimations().filter((a) => a instanceof CSSTransition).length),
            ),
          ),
      ),
    )
    .toBe(0);
}

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

/** The serious axe rules whose outcome depends on the theme's colours. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

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
