import { expect, type Page, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";
import { memberJoins } from "./team-helpers";

/**
 * Settings > Team after a QA pass: a double click on Send invitation or Resend is one request with one
 * outcome (it sent two: a green banner beside a red refusal, and a resend whose first emailed link
 * was already dead); a resend says the earlier link no longer works; role changes, transfers and
 * leaving say what happened; the "joined <date>" of a member never breaks inside at 390 px; a tab of a
 * removed member says their access ended instead of offering to switch back; and invite pages that
 * cannot be used lead on (dashboard, sign in, or the workspace the person already belongs to).
 */

/** How many emails to `email` the dev outbox holds. */
async function emailsTo(page: Page, email: string): Promise<number> {
  const res = await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`);
  expect(res.ok()).toBe(true);
  return ((await res.json()).messages as unknown[]).length;
}

test("a double click on Send invitation sends one invitation with one outcome", async ({ page }) => {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  await registerVerifiedBusiness(page, {
    prefix: "olive-sendqa",
    name: "Olive Owner",
    business: "Sendqa Co",
  });
  const ada = `ada-sendqa-${stamp}@example.com`;
  await page.goto("/settings?tab=team");
  await page.getByLabel("Email").fill(ada);
  await page.getByRole("button", { name: "Send invitation" }).dblclick();
  await expect(page.getByText(`Invitation sent to ${ada} as a member.`)).toBeVisible();
  await expect(page.getByTestId("invite-row")).toHaveCount(1);
  await page.waitForTimeout(1500);
  await expect(page.getByText("already has a pending invitation")).toHaveCount(0);
  expect(await emailsTo(page, ada)).toBe(1);
});

test("at 390 px a member's email may break anywhere, the joined date never inside", async ({ page }) => {
  await registerVerifiedBusiness(page, {
    prefix: "olive-with-a-rather-long-address-joinedqa",
    name: "Olive Owner",
    business: "Joinedqa Co",
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/settings?tab=team");
  const row = page.getByTestId("member-row").first();
  const joined = row.getByText(/^joined /);
  await expect(joined).toBeVisible();
  expect(await joined.evaluate((e) => getComputedStyle(e).whiteSpace)).toBe("nowrap");
  const lines = await joined.evaluate(
    (e) => new Set([...e.getClientRects()].map((r) => Math.round(r.top))).size,
  );
  expect(lines).toBe(1);
  expect(await row.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
});

test("a double click on Resend sends one email, and the banner says the earlier link no longer works", async ({
  page,
  baseURL,
}) => {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  await registerVerifiedBusiness(page, {
    prefix: "olive-resendqa",
    name: "Olive Owner",
    business: "Resendqa Co",
  });
  const ada = `ada-resendqa-${stamp}@example.com`;
  const invited = await page.request.post("/api/workspaces/current/invites", {
    headers: { origin: baseURL! },
    data: { email: ada, role: "member" },
  });
  expect(invited.ok(), await invited.text()).toBe(true);
  await page.goto("/settings?tab=team");
  await page.getByRole("button", { name: `Resend the invitation to ${ada}` }).dblclick();
  await expect(
    page.getByText(`Invitation sent again to ${ada}. The link in the earlier email no longer works.`),
  ).toBeVisible();
  await page.waitForTimeout(1500);
  await expect(page.getByText("sent less than a minute ago")).toHaveCount(0);
  expect(await emailsTo(page, ada)).toBe(2);
});

test("a role change, a transfer and leaving say what happened; the one who left lands in a workspace named after her", async ({
  page,
  browser,
  baseURL,
}) => {
  await registerVerifiedBusiness(page, {
    prefix: "olive-roleqa",
    name: "Olive Owner",
    business: "Roleqa Co",
  });
  const ada = await memberJoins(page, browser, baseURL!, {
    prefix: "ada-roleqa",
    name: "Ada Admin",
    business: "",
  });
  await ada.context.close();

  await page.goto("/settings?tab=team");
  await page.getByRole("combobox", { name: "Role of Ada Admin" }).click();
  await page.getByRole("option", { name: "Admin" }).click();
  await expect(page.getByText("Ada Admin is now an admin.")).toBeVisible();

  await page.getByLabel("New owner").click();
  await page.getByRole("option", { name: "Ada Admin" }).click();
  await page.getByRole("button", { name: "Transfer", exact: true }).click();
  await page.getByRole("button", { name: "Transfer ownership" }).click();
  await expect(
    page.getByText("Ownership of Roleqa Co moved to Ada Admin. You are now an admin."),
  ).toBeVisible();
  await expect(page).toHaveURL(/\/settings\?tab=team$/);

  // leaving: said in the workspace the session lands in, her own, named after her (not "Roleqa Co")
  await page.getByRole("button", { name: "Leave workspace" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Leave workspace" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText("You left Roleqa Co.")).toBeVisible();
  await expect(page.getByTestId("sidebar-workspace")).toContainText("Olive Owner's workspace");
});

test("a removed member's tab says their access ended and offers only to continue", async ({
  page,
  browser,
  baseURL,
}) => {
  await registerVerifiedBusiness(page, { prefix: "olive-tabqa", name: "Olive Owner", business: "Tabqa Co" });
  const mia = await memberJoins(page, browser, baseURL!, {
    prefix: "mia-tabqa",
    name: "Mia Member",
    business: "Mia Design",
  });
  await mia.tab.goto("/contacts");
  await expect(mia.tab.getByTestId("workspace-switcher")).toContainText("Tabqa Co");

  const members = await page.request.get("/api/workspaces/current/members");
  const miaId = ((await members.json()).members as { user_id: string; email: string }[]).find(
    (m) => m.email === mia.email,
  )!.user_id;
  const removed = await page.request.delete(`/api/workspaces/current/members/${miaId}`, {
    headers: { origin: baseURL! },
  });
  expect(removed.ok(), await removed.text()).toBe(true);

  await mia.tab.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  const dialog = mia.tab.getByTestId("workspace-changed-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("Your access to ‘Tabqa Co’ has ended");
  await expect(dialog).toContainText("You are no longer a member of ‘Tabqa Co’");
  await expect(dialog.getByRole("button", { name: /Switch back/ })).toHaveCount(0);
  await dialog.getByRole("button", { name: "Continue in ‘Mia Design’" }).click();
  await expect(mia.tab).toHaveURL(/\/dashboard$/);
  await expect(mia.tab.getByTestId("sidebar-workspace")).toContainText("Mia Design");
  await mia.context.close();
});

test("invite links that cannot be used lead on: to the workspace one belongs to, the dashboard, or sign in", async ({
  page,
  browser,
  baseURL,
}) => {
  await registerVerifiedBusiness(page, {
    prefix: "olive-linkqa",
    name: "Olive Owner",
    business: "Linkqa Co",
  });
  const mia = await memberJoins(page, browser, baseURL!, {
    prefix: "mia-linkqa",
    name: "Mia Member",
    business: "Mia Studio",
  });
  const tab = mia.tab;
  // she works in her own workspace, then opens the used link again (Back after accepting)
  await tab.goto("/dashboard");
  await tab.getByTestId("workspace-switcher").click();
  await tab.getByRole("option", { name: /Mia Studio/ }).click();
  await expect(tab.getByTestId("workspace-switcher")).toContainText("Mia Studio");
  await tab.goto(mia.link);
  await expect(tab.getByText("You're already a member of Linkqa Co.")).toBeVisible();
  await tab.getByRole("button", { name: "Go to Linkqa Co" }).click();
  await expect(tab).toHaveURL(/\/dashboard$/);
  await expect(tab.getByTestId("workspace-switcher")).toContainText("Linkqa Co");

  // removed from it, she opens the used link again: a way back to her dashboard
  const members = await page.request.get("/api/workspaces/current/members");
  const miaId = ((await members.json()).members as { user_id: string; email: string }[]).find(
    (m) => m.email === mia.email,
  )!.user_id;
  const removed = await page.request.delete(`/api/workspaces/current/members/${miaId}`, {
    headers: { origin: baseURL! },
  });
  expect(removed.ok(), await removed.text()).toBe(true);
  await tab.goto(mia.link);
  await expect(tab.getByText("This invitation has already been used.")).toBeVisible();
  await expect(tab.getByText("already a member")).toHaveCount(0);
  await tab.getByRole("link", { name: "Go to dashboard" }).click();
  await expect(tab).toHaveURL(/\/dashboard$/);
  // an invalid link, signed in
  await tab.goto("/invite/abcdefghijklmnopqrst");
  await expect(tab.getByText("This invitation link is not valid")).toBeVisible();
  await expect(tab.getByRole("link", { name: "Go to dashboard" })).toBeVisible();
  await mia.context.close();

  // signed out: sign in
  const anonContext = await browser.newContext();
  const anon = await anonContext.newPage();
  await anon.goto("/invite/abcdefghijklmnopqrst");
  await expect(anon.getByText("This invitation link is not valid")).toBeVisible();
  await anon.getByRole("link", { name: "Sign in" }).click();
  await expect(anon).toHaveURL(/\/login/);
  await anonContext.close();
});
