import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { loadAxe, open, seriousViolations } from "./a11y-helpers";
import { inviteLinkFromOutbox, registerVerifiedBusiness, verifyEmailThroughOutbox } from "./account-helpers";

/**
 * Settings > Workspace > Delete workspace and Settings > Profile > Delete account, as a person uses
 * them: a workspace shared with a teammate blocks the account's deletion (the card says which and
 * why); the owner deletes that workspace by typing its name and the password (a wrong name is
 * refused with the server's sentence) and lands in a new empty workspace; then deletes the account with the current
 * password and DELETE, and the sign-in page says so. The dialogs have no serious axe violations and
 * work at 390 px.
 */
// axe reads settled colours (no dialog or toast half-way through its entry animation)
test.use({ reducedMotion: "reduce" });

test("delete a shared workspace by its name, then the account with the password and DELETE", async ({
  page,
  browser,
}) => {
  await loadAxe(page);
  const business = `Deletion Co ${Date.now()}`;
  const email = await registerVerifiedBusiness(page, { prefix: "deleter", name: "Dee Leter", business });
  const origin = new URL(page.url()).origin;
  const mateEmail = `mate-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const invited = await page.request.post("/api/workspaces/current/invites", {
    headers: { origin },
    data: { email: mateEmail, role: "member" },
  });
  expect(invited.ok(), await invited.text()).toBe(true);
  const { token } = await inviteLinkFromOutbox(page, mateEmail);
  const mateContext = await browser.newContext();
  const mate = await mateContext.newPage();
  await mate.goto("/");
  const registered = await mate.request.post("/api/auth/register", {
    headers: { origin },
    data: { name: "Mo Mate", email: mateEmail, password: "correct-horse-battery" },
  });
  expect(registered.ok(), await registered.text()).toBe(true);
  await verifyEmailThroughOutbox(mate, mateEmail);
  expect((await mate.request.post(`/api/invites/${token}/accept`, { headers: { origin } })).ok()).toBe(true);
  await mateContext.close();

  // the account cannot go while it owns a workspace with a member: the card says which and what to do
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "/settings?tab=profile");
  await expect(
    page.getByText(`${business}: you own it and 1 other person is a member.`, { exact: false }),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete account" })).toBeDisabled();
  expect(await seriousViolations(page, "profile tab, deletion blocked")).toEqual([]);

  // Settings > Workspace: a wrong name is refused; the right one deletes it
  const before = (await (await page.request.get("/api/auth/me")).json()).workspace.id as string;
  await open(page, "/settings?tab=workspace");
  await page.getByRole("button", { name: "Delete workspace" }).click();
  const dialog = page.getByRole("dialog", { name: `Delete ${business}?` });
  await expect(dialog).toContainText("1 other member loses access at once and is told by email.");
  // a copy first: the dialog's export link downloads every contact of the workspace
  const download = page.waitForEvent("download");
  await dialog.getByRole("link", { name: "Export all contacts (CSV)" }).click();
  const csv = await (await download).path();
  expect(fs.readFileSync(csv, "utf8").split("\n")[0]).toContain("email");
  const nameBox = dialog.getByLabel(`Type ${business} to confirm`);
  await nameBox.fill(business.toLowerCase());
  await dialog.getByLabel("Current password").fill("correct-horse-battery");
  await dialog.getByRole("button", { name: "Delete this workspace" }).click();
  await expect(dialog.getByRole("alert")).toHaveText(
    `Type the workspace's name, ${business}, exactly as it is to confirm.`,
  );
  // the request has settled (the error shows a moment before the buttons are enabled again)
  await expect(dialog.getByRole("button", { name: "Delete this workspace" })).toBeEnabled();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeEnabled();
  expect(await seriousViolations(page, "delete workspace dialog")).toEqual([]);
  await nameBox.fill(business);
  await dialog.getByRole("button", { name: "Delete this workspace" }).click();
  await page.waitForURL("**/dashboard");
  const me = await (await page.request.get("/api/auth/me")).json();
  // a new empty workspace of theirs (named after their business again, as at sign-up)
  expect(me.workspace.id).not.toBe(before);
  expect(me.workspace.role).toBe("owner");

  // now the account: the card lists the new empty workspace as deleted with it
  await open(page, "/settings?tab=profile");
  await expect(
    page.getByText(`${me.workspace.name} is deleted with its contacts, campaigns and media`),
  ).toBeVisible();
  await page.getByRole("button", { name: "Delete account" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete your account?" });
  await confirm.getByLabel("Current password").fill("not-the-password");
  await confirm.getByLabel("Type DELETE to confirm").fill("DELETE");
  await confirm.getByRole("button", { name: "Delete my account" }).click();
  await expect(confirm.getByRole("alert")).toHaveText(
    "That is not your current password. Enter your current password to delete your account.",
  );
  await expect(confirm.getByRole("button", { name: "Delete my account" })).toBeEnabled();
  await expect(confirm.getByRole("button", { name: "Cancel" })).toBeEnabled();
  expect(await seriousViolations(page, "delete account dialog")).toEqual([]);
  await confirm.getByLabel("Current password").fill("correct-horse-battery");
  await confirm.getByRole("button", { name: "Delete my account" }).click();
  await page.waitForURL("**/login?deleted=account");
  await expect(page.getByRole("status")).toContainText("Your account was deleted.");
  expect(await seriousViolations(page, "sign-in after deletion")).toEqual([]);
  // the address no longer signs in
  const login = await page.request.post("/api/auth/login", {
    headers: { origin },
    data: { email, password: "correct-horse-battery" },
  });
  expect(login.status()).toBe(401);
});
