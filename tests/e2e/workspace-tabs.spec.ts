import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { accountLinkFromOutbox, inviteLinkFromOutbox, registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

// axe reads settled colours (no dialog or toast half-way through its entry animation)
test.use({ reducedMotion: "reduce" });

/**
 * Two tabs of one browser share a session, and so its active workspace. When one tab switches
 * workspace, the other tab (still showing the first workspace) must not act in the new one: its next
 * call is refused and it says so (workspace-changed-dialog), offering to switch back or continue.
 */
test("a tab left on a workspace another tab switched away from says so instead of acting in the other one", async ({
  page,
  browser,
  baseURL,
}) => {
  const origin = { origin: baseURL! };
  // Olive's Business workspace invites Mia, who has her own workspace too
  await registerVerifiedBusiness(page, {
    prefix: "olive-tabs",
    name: "Olive Owner",
    business: "Olive Plumbing",
  });
  const miaEmail = `mia-tabs-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const invited = await page.request.post("/api/workspaces/current/invites", {
    data: { email: miaEmail, role: "member" },
    headers: origin,
  });
  expect(invited.ok(), await invited.text()).toBe(true);

  const context = await browser.newContext();
  const tab1 = await context.newPage();
  await loadAxe(tab1);
  await tab1.goto("/");
  const reg = await tab1.request.post("/api/auth/register", {
    headers: origin,
    data: {
      name: "Mia Member",
      email: miaEmail,
      password: "correct-horse-battery",
      business_name: "Mia Design",
    },
  });
  expect(reg.ok(), await reg.text()).toBe(true);
  const verify = new URL(await accountLinkFromOutbox(tab1, miaEmail, "verify-email")).searchParams.get(
    "token",
  );
  expect(
    (await tab1.request.post("/api/auth/verify-email", { data: { token: verify }, headers: origin })).ok(),
  ).toBe(true);
  const { token } = await inviteLinkFromOutbox(tab1, miaEmail);
  const accepted = await tab1.request.post(`/api/invites/${token}/accept`, { headers: origin });
  expect(accepted.ok(), await accepted.text()).toBe(true);

  // two tabs on Olive Plumbing's contacts
  await tab1.goto("/contacts");
  await expect(tab1.getByTestId("workspace-switcher")).toContainText("Olive Plumbing");
  const tab2 = await context.newPage();
  await tab2.goto("/contacts");
  await expect(tab2.getByTestId("workspace-switcher")).toContainText("Olive Plumbing");

  // the second tab switches to Mia's own workspace
  await tab2.getByTestId("workspace-switcher").click();
  await tab2.getByRole("option", { name: /Mia Design/ }).click();
  await expect(tab2).toHaveURL(/\/dashboard$/);
  await expect(tab2.getByTestId("workspace-switcher")).toContainText("Mia Design");

  // the first tab still shows Olive Plumbing; adding a contact there is refused, not put in Mia Design
  const email = `stale-tab-${Date.now()}@example.com`;
  await tab1.getByRole("button", { name: "Add Contact" }).first().click();
  const add = tab1.getByRole("dialog");
  await add.getByLabel("First name").fill("Stale");
  await add.getByLabel("Email").fill(email);
  await add.getByRole("button", { name: "Add Contact" }).click();
  const changed = tab1.getByTestId("workspace-changed-dialog");
  await expect(changed).toBeVisible();
  await expect(changed).toContainText(
    "This tab shows ‘Olive Plumbing’, but your account is now working in ‘Mia Design’",
  );
  await expect(changed).toContainText("Nothing was changed.");
  expect(await seriousViolations(tab1, "workspace changed dialog")).toEqual([]);
  const stored = await withE2eDb((sql) => sql`select 1 from contacts where email = ${email}`);
  expect(stored.length).toBe(0);
  // Escape does not hide it: every screen of the tab belongs to the other workspace
  await tab1.keyboard.press("Escape");
  await expect(changed).toBeVisible();

  // switching back: this tab works in Olive Plumbing again, and now the second tab is the stale one
  await changed.getByRole("button", { name: "Switch back to ‘Olive Plumbing’" }).click();
  await expect(tab1.getByTestId("workspace-changed-dialog")).toHaveCount(0);
  await expect(tab1.getByTestId("workspace-switcher")).toContainText("Olive Plumbing");

  // the second tab notices as soon as it is looked at again (one auth.me when it becomes visible)
  await tab2.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  const changed2 = tab2.getByTestId("workspace-changed-dialog");
  await expect(changed2).toContainText(
    "This tab shows ‘Mia Design’, but your account is now working in ‘Olive Plumbing’",
  );
  await changed2.getByRole("button", { name: "Continue in ‘Olive Plumbing’" }).click();
  await expect(tab2).toHaveURL(/\/dashboard$/);
  await expect(tab2.getByTestId("workspace-switcher")).toContainText("Olive Plumbing");
  await expect(tab2.getByTestId("workspace-changed-dialog")).toHaveCount(0);
  await context.close();
});
