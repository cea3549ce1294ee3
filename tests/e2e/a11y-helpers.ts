import { createRequire } from "node:module";
import { expect, type Page } from "@playwright/test";
import type Axe from "axe-core";
import { accountLinkFromOutbox } from "./account-helpers";

/*
 * Shared by the accessibility and layout specs (a11y.spec.ts, ui-audit.spec.ts): the seeded account,
 * the list of signed-in routes, opening a route, axe-core in the page and switching themes.
 */

const STAGES = ["subscriber", "lead", "prospect", "customer", "advocate"] as const;
const STATUSES = ["new", "contacted", "qualified", "unqualified"] as const;

/** Registers a user with five contacts (every stage and status) and one launched email campaign. */
export async function seed(page: Page, origin: string): Promise<{ contactId: number; campaignId: string }> {
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

export function routes(ids: { contactId: number; campaignId: string }): string[] {
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
export async function open(page: Page, route: string) {
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
export async function loadAxe(page: Page) {
  await page.context().addInitScript({ path: AXE_SCRIPT });
}

/**
 * Runs axe-core on the page as it is now and returns one line per serious or critical violation.
 * `rules` limits the run to those rule ids (the theme pass); by default every WCAG 2.0/2.1 A and AA rule
 * runs. Same-origin frames are checked too (the app has no cross-origin ones).
 */
export async function seriousViolations(page: Page, label: string, rules?: string[]): Promise<string[]> {
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
export async function switchTheme(page: Page, theme: string) {
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

/** The serious axe rules whose outcome depends on the theme's colours. */
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"];
