import { expect, test } from "@playwright/test";
import { loadAxe, open, seriousViolations, switchTheme } from "./a11y-helpers";
import { accountLinkFromOutbox, registerVerifiedBusiness } from "./account-helpers";

/**
 * Issue 11: forgot / reset password and email verification, as a person does them: the login page's
 * 'Forgot password?' link, the emailed link (dev outbox), a new password that signs in; a new
 * account's banner, resend, and the verification link. At 390 px wide, with the keyboard.
 */

test.use({ viewport: { width: 390, height: 844 } });

test("forgot password from the login page, reset through the emailed link, verify the email", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const email = `acct-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Ria Reset", email, password: "correct-horse-battery", business_name: "Ria Co" },
  });
  expect(reg.ok()).toBe(true);

  // signed in but unverified: the banner explains and resends
  await page.goto("/dashboard");
  const banner = page.getByRole("alert").filter({ hasText: "Please verify your email address" });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("cannot launch campaigns");
  // the registration's own verification email first (a background job), then the resend's, which
  // retires the first link
  await accountLinkFromOutbox(page, email, "verify-email");
  await banner.getByRole("button", { name: "Resend verification email" }).click();
  await expect(banner).toContainText(`We sent a new verification link to ${email}.`);
  const verifyLink = await accountLinkFromOutbox(page, email, "verify-email", 2);
  await page.goto(verifyLink);
  await expect(page.getByText("Your email address is verified. You can now launch campaigns.")).toBeVisible();
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: /Welcome (back|to Pitchwise)/ })).toBeVisible();
  await expect(page.getByText("Please verify your email address")).toHaveCount(0);
  // sign out through the API (the shell's menu is covered elsewhere)
  await page.request.post("/api/auth/logout", { headers: { origin: new URL(page.url()).origin } });

  // login page -> Forgot password? (keyboard only)
  await page.goto("/login");
  const forgot = page.getByRole("link", { name: "Forgot password?" });
  await expect(forgot).toBeVisible();
  await forgot.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/forgot-password$/);
  await expect(page.getByRole("heading", { name: "Forgot your password?" })).toBeVisible();
  await page.getByRole("button", { name: "Send Reset Link" }).click();
  await expect(page.getByText("Please enter your email")).toBeVisible();
  await page.getByLabel("Email").fill(email);
  await page.keyboard.press("Enter");
  await expect(
    page.getByText("If an account exists for that email, we have sent it a link to reset the password."),
  ).toBeVisible();
  // nothing scrolls sideways at 390 px
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  const resetLink = await accountLinkFromOutbox(page, email, "reset-password");
  await page.goto(resetLink);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await page.getByLabel("New password", { exact: true }).fill("short");
  await page.getByLabel("Repeat new password").fill("short");
  await page.getByRole("button", { name: "Set New Password" }).click();
  await expect(page.getByText("Password must be at least 8 characters")).toBeVisible();
  await page.getByLabel("New password", { exact: true }).fill("a-brand-new-password");
  await page.getByLabel("Repeat new password").fill("a-different-password");
  await page.keyboard.press("Enter");
  await expect(page.getByText("The passwords do not match")).toBeVisible();
  await page.getByLabel("Repeat new password").fill("a-brand-new-password");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: /Welcome (back|to Pitchwise), Ria Reset/ })).toBeVisible();

  // the link works once
  await page.request.post("/api/auth/logout", { headers: { origin: new URL(page.url()).origin } });
  await page.goto(resetLink);
  await page.getByLabel("New password", { exact: true }).fill("yet-another-password");
  await page.getByLabel("Repeat new password").fill("yet-another-password");
  await page.getByRole("button", { name: "Set New Password" }).click();
  await expect(
    page.getByText("This password reset link is invalid, already used or expired. Please request a new one."),
  ).toBeVisible();

  // the new password signs in
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-brand-new-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("login and register: an empty or malformed submit shows the app's own messages, linked to the fields, and focuses the first invalid one", async ({
  page,
}) => {
  // /login: Enter in the (autofocused) empty email field submits; no browser bubble blocks it
  await page.goto("/login");
  const email = page.getByLabel("Email");
  const password = page.getByLabel("Password");
  await expect(email).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(email).toHaveAccessibleDescription("Please enter your email");
  await expect(email).toHaveAttribute("aria-invalid", "true");
  await expect(password).toHaveAccessibleDescription("Please enter your password");
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Please enter your email")).toBeVisible();
  await expect(email).toBeFocused();
  // the email given: the first invalid field is now the password, and focus goes there
  await email.fill("sam@example.com");
  await page.keyboard.press("Enter");
  await expect(password).toBeFocused();
  await expect(email).not.toHaveAttribute("aria-describedby");
  await expect(password).toHaveAccessibleDescription("Please enter your password");
  // a malformed address is the app's message too, not the browser's
  await email.fill("sam@");
  await password.fill("whatever-123");
  await page.getByRole("button", { name: "Sign In" }).press("Enter");
  await expect(email).toHaveAccessibleDescription("Please enter a valid email address");
  await expect(email).toBeFocused();
  expect(new URL(page.url()).pathname).toBe("/login");

  // /register: Tab to Create Account and press Enter with every field empty
  await page.goto("/register");
  const name = page.getByLabel("Name", { exact: true });
  await expect(name).toBeFocused();
  await page.getByRole("button", { name: "Create Account" }).focus();
  await page.keyboard.press("Enter");
  await expect(name).toHaveAccessibleDescription("Please enter your name");
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Email")).toHaveAccessibleDescription("Please enter your email");
  await expect(page.getByLabel("Password")).toHaveAccessibleDescription(
    "Password must be at least 8 characters",
  );
  await expect(name).toBeFocused();
  // name given: focus moves to the email, the first field still wrong
  await name.fill("Sam");
  await page.getByLabel("Email").fill("not-an-email");
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
  await expect(page.getByLabel("Email")).toBeFocused();
  expect(new URL(page.url()).pathname).toBe("/register");
});

test("Settings > Profile at 390 px: a new email asks for the current password (labelled, keyboard), and the old address is told", async ({
  page,
}) => {
  const email = await registerVerifiedBusiness(page, {
    prefix: "prof",
    name: "Nia Profile",
    business: "Nia Co",
  });
  const next = `n-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
  await open(page, "/settings?tab=profile");
  const form = page.locator("form").filter({ has: page.getByLabel("Full Name") });
  const current = form.getByLabel("Current Password");
  // the same address: no password field, and other changes save without one
  await expect(current).toHaveCount(0);
  // the account's business name is not what messages are sent under: the field says where that is
  await expect(form.getByLabel("Business Name")).toHaveAccessibleDescription(
    "Yours, on your account. The name your emails and texts are sent under is the workspace's: Settings > Workspace.",
  );
  await expect(form.getByRole("link", { name: "Settings > Workspace" })).toHaveAttribute(
    "href",
    "/settings?tab=workspace",
  );
  await form.getByLabel("Business Name").fill("Nia Company");
  await form.getByRole("button", { name: "Save Profile" }).click();
  await expect(page.getByText("Profile updated successfully!")).toBeVisible();

  // a different address: the field appears right after the email, reached with Tab
  const emailField = form.getByLabel("Email");
  await emailField.fill(next);
  await expect(current).toBeVisible();
  await expect(current).toHaveAttribute("type", "password");
  await emailField.focus();
  await page.keyboard.press("Tab");
  await expect(current).toBeFocused();
  // submitted without it: the field says why and has focus
  await page.keyboard.press("Enter");
  await expect(current).toHaveAccessibleDescription("Enter your current password to change your email.");
  await expect(current).toBeFocused();
  // a wrong one: the server's sentence on the field, nothing changed
  await current.fill("not-my-password");
  await page.keyboard.press("Enter");
  await expect(current).toHaveAccessibleDescription(
    "That is not your current password. Enter your current password to change your email.",
  );
  // the right one: saved, the new address gets its link and the old one a notice
  await current.fill("correct-horse-battery");
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Profile updated. We sent a link to ${next}`)).toBeVisible();
  await expect(current).toHaveCount(0);
  await expect
    .poll(async () => {
      const res = await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`);
      const messages = (await res.json()).messages as { subject: string; body: string }[];
      return messages.find((m) => m.subject === "Your Pitchwise email was changed")?.body ?? "";
    })
    .toContain("Your Pitchwise email was changed to n•••@example.com");
  // the page fits 390 px: no horizontal scroll
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("the email-changed notice's recovery page at 390 px: explains, restores the old address by keyboard, leads to a new password, and refuses a tampered or used link", async ({
  page,
}) => {
  await loadAxe(page);
  await page.emulateMedia({ reducedMotion: "reduce" });
  const email = await registerVerifiedBusiness(page, {
    prefix: "recov",
    name: "Rae Recover",
    business: "Rae Co",
  });
  // someone with the password moves the account to their address
  const thiefEmail = `t-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
  const origin = new URL(page.url()).origin;
  const moved = await page.request.put("/api/user/profile", {
    headers: { origin },
    data: { name: "Rae Recover", email: thiefEmail, currentPassword: "correct-horse-battery" },
  });
  expect(moved.ok(), await moved.text()).toBe(true);
  let link = "";
  await expect
    .poll(async () => {
      const res = await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`);
      const messages = (await res.json()).messages as { subject: string; body: string }[];
      const body = messages.find((m) => m.subject === "Your Pitchwise email was changed")?.body ?? "";
      link = body.match(/https?:\/\/[^\s]+\/account\/recover-email\?token=[a-z2-7]+/)?.[0] ?? "";
      return link;
    })
    .toMatch(/recover-email\?token=/);
  const path = new URL(link).pathname + new URL(link).search;

  // a tampered link: a sentence, no button
  const last = path.at(-1) === "a" ? "b" : "a";
  await page.goto(`${path.slice(0, -1)}${last}`);
  await expect(page.getByRole("heading", { level: 1, name: "Secure your account" })).toBeVisible();
  await expect(page.getByRole("alert")).toHaveText(
    "This recovery link is not valid. Please open the link from the email exactly as it is.",
  );
  await expect(page.getByRole("button", { name: /Restore/ })).toHaveCount(0);

  // the real link: what will happen, then one button reached with the keyboard
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1, name: "Secure your account" })).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();
  await expect(page.getByText("Sign out every device signed in to the account")).toBeVisible();
  const restore = page.getByRole("button", { name: "Restore My Email" });
  await expect(restore).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const found = await seriousViolations(page, "recover-email light");
  await switchTheme(page, "midnight-blue");
  found.push(...(await seriousViolations(page, "recover-email dark")));
  await switchTheme(page, "monochrome-elite");
  expect(found).toEqual([]);
  for (let i = 0; i < 12 && !(await restore.evaluate((b) => b === document.activeElement)); i++)
    await page.keyboard.press("Tab");
  await expect(restore).toBeFocused();
  await page.keyboard.press("Enter");

  // restored: on the reset screen, told what happened; a new password signs in on the old address
  await expect(page).toHaveURL(/\/reset-password\?/);
  await expect(page.getByRole("status")).toContainText(
    `Your account is back on ${email} and every device was signed out. Now choose a new password.`,
  );
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expect(page.getByLabel("New password", { exact: true })).toBeFocused();
  await page.keyboard.type("rae-new-password-1");
  await page.keyboard.press("Tab");
  await page.keyboard.type("rae-new-password-1");
  await page.keyboard.press("Enter");
  await expect(page).not.toHaveURL(/reset-password/);
  const me = await page.request.get("/api/auth/me");
  expect(me.ok()).toBe(true);
  expect((await me.json()).user).toMatchObject({ email, email_verified: true });

  // the link works once
  await page.goto(path);
  await expect(page.getByRole("alert")).toContainText("This recovery link was already used");
  await expect(page.getByRole("button", { name: /Restore/ })).toHaveCount(0);
});
