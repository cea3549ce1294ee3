import { expect, test } from "@playwright/test";
import { daytimePhone } from "../daytime-phone";
import { expectWhollyShown } from "./layout-helpers";

/** Client shell end to end: auth, dashboard, theme persistence, logout guard, landing demo form. */

test("register, see the dashboard, switch theme, survive a reload, log out", async ({ page }) => {
  const email = `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

  await page.goto("/register");
  await page.getByLabel("Name", { exact: true }).fill("Ada Tester");
  await page.getByLabel("Business Name").fill("Test Co");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Create Account" }).click();

  await expect(page).toHaveURL(/\/dashboard$/);
  // a first visit is welcomed, not welcomed back (issue 14)
  await expect(page.getByRole("heading", { name: "Welcome to Pitchwise, Ada Tester!" })).toBeVisible();
  await expect(page.getByText(/Welcome back/)).toHaveCount(0);
  for (const title of ["Total Campaigns", "Total Contacts", "Messages Sent", "Engagement Rate"]) {
    await expect(page.getByRole("heading", { name: title, exact: true })).toBeVisible();
  }
  await expect(page.getByTestId("stat-card").first()).toContainText("from last month");
  // on a phone (390 px) Account Details shows the whole email, not "e2e-17...@exam..."
  await page.setViewportSize({ width: 390, height: 844 });
  await expectWhollyShown(page.getByTitle(email));
  await page.setViewportSize({ width: 1280, height: 720 });
  await expect(page.getByRole("link", { name: "Dashboard", exact: true }).first()).toHaveAttribute(
    "aria-current",
    "page",
  );

  await page
    .getByRole("navigation", { name: "Main navigation" })
    .getByRole("link", { name: "Settings" })
    .click();
  await expect(page).toHaveURL(/\/settings/);
  await page.getByRole("tab", { name: "Theme" }).click();
  const saved = page.waitForResponse(
    (res) => res.url().includes("/trpc/user.updateSettings") && res.request().method() === "POST",
  );
  await page.getByRole("button", { name: "Ocean Deep" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "ocean-deep");
  await expect(
    page.getByText(/Theme applied! Saving to your profile|Theme saved to your profile/),
  ).toBeVisible();
  expect((await saved).ok()).toBe(true);
  expect(await page.evaluate(() => localStorage.getItem("pitchwise-theme"))).toBe("ocean-deep");

  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "ocean-deep");
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();

  await page.getByRole("button", { name: "Logout" }).click();
  await expect(page).toHaveURL(/\/login/);

  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login\?redirect=/);
  await expect(page.getByRole("button", { name: "Sign In" })).toBeVisible();
});

test("landing page demo form validates, succeeds and resets", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("link", { name: "Sign Up Free" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Login" })).toBeVisible();

  const send = page.getByRole("button", { name: "Send Me a Demo" });
  await send.click();
  await expect(page.getByText("Please enter your name")).toBeVisible();

  await page.getByLabel("Name").fill("Demo Visitor");
  await send.click();
  await expect(page.getByText("Please provide at least a phone number or email")).toBeVisible();
  await expect(page.getByText("Please enter your name")).toHaveCount(0);
  // announced, and tied to both fields it is about (a screen reader heard only "invalid")
  await expect(page.getByRole("alert").filter({ hasText: "at least a phone number or email" })).toBeVisible();
  await expect(page.getByLabel("Phone")).toHaveAccessibleDescription(
    "Please provide at least a phone number or email",
  );
  await expect(page.getByLabel("Email")).toHaveAccessibleDescription(
    "Please provide at least a phone number or email",
  );

  // a number where it is day now: the demo keeps quiet hours (08:00-21:00 where the number is)
  await page.getByLabel("Phone").fill(daytimePhone(123));
  await page.getByLabel("Email").fill(`demo-${Date.now()}@example.com`);
  await send.click();

  for (const item of [
    "AI Voice Call Incoming",
    "Text Message Sent",
    "Email with Video Delivered",
    "AI Avatar Video Included",
  ]) {
    await expect(page.getByText(item)).toBeVisible();
  }
  await expect(page.getByRole("link", { name: "Start Your Free Trial" })).toHaveAttribute(
    "href",
    "/register",
  );

  await page.getByRole("button", { name: "Try Demo Again" }).click();
  await expect(page.getByRole("button", { name: "Send Me a Demo" })).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveValue("");
});
