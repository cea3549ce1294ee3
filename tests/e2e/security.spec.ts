import { expect, test } from "@playwright/test";
import { upgradeThroughLocalCheckout } from "./billing-helpers";
import { collectCsp } from "./csp-helpers";

/**
 * Issue 11: the Content-Security-Policy. Every main page loads in Chromium without a single CSP
 * refusal ('Refused to ...' in the console, or a `securitypolicyviolation` event).
 */

test("the app's main pages, the API docs and the local checkout load with no CSP refusal", async ({
  page,
}) => {
  test.setTimeout(420_000);
  const { violations, refusals } = await collectCsp(page);

  const res = await page.goto("/");
  const csp = res?.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("default-src 'self'");
  expect(csp).toMatch(/script-src 'self' 'sha256-/);
  await expect(page.getByRole("heading").first()).toBeVisible();
  expect(await violations()).toEqual([]);
  // the saved theme still applies before first paint (the hashed inline script ran)
  await page.evaluate(() => localStorage.setItem("pitchwise-theme", "ocean-deep"));
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "ocean-deep");
  await page.evaluate(() => localStorage.removeItem("pitchwise-theme"));

  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();
  await page.goto("/register");
  const email = `csp-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await page.getByLabel("Name", { exact: true }).fill("Csp Tester");
  await page.getByLabel("Business Name").fill("Csp Co");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await violations()).toEqual([]);

  for (const [path, ready] of [
    ["/dashboard", () => page.getByRole("heading", { name: /Welcome (back|to Pitchwise)/ })],
    ["/contacts", () => page.getByRole("heading", { name: "Contacts (0)", exact: true, level: 1 })],
    ["/contacts/map", () => page.locator(".maplibregl-canvas")],
    ["/campaigns", () => page.getByRole("heading").first()],
    ["/studio", () => page.getByRole("heading").first()],
    ["/video-creator", () => page.getByRole("heading").first()],
    ["/settings", () => page.getByRole("heading").first()],
  ] as const) {
    await page.goto(path);
    await expect(ready()).toBeVisible({ timeout: 60_000 });
    // lazy chunks, workers and map resources finish loading
    await page.waitForTimeout(1500);
    expect(await violations(), path).toEqual([]);
  }

  await page.goto("/docs/api");
  await expect(page.locator(".swagger-ui .info .title")).toBeVisible({ timeout: 60_000 });
  expect(await violations(), "/docs/api").toEqual([]);

  await upgradeThroughLocalCheckout(page);
  expect(await violations(), "local checkout").toEqual([]);

  expect(refusals).toEqual([]);
});
