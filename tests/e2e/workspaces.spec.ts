import { expect, test } from "@playwright/test";
import { accountLinkFromOutbox, inviteLinkFromOutbox, verifyEmailThroughOutbox } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * Issue 10: an owner invites a teammate, who registers through the link, confirms the address from
 * the emailed verification link (which leads back to the invitation), shares the contacts, and is
 * removed. Another signed-in account holding the link is told whose invitation it is (masked) and
 * offered to switch account instead of joining.
 */
test("owner invites a teammate by email; the teammate registers through the link, sees shared contacts; removal ends access", async ({
  page,
  browser,
  baseURL,
}) => {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  const ownerEmail = `owner-${stamp}@example.com`;
  const mateEmail = `mate-${stamp}@example.com`;

  await page.goto("/register");
  await page.getByLabel("Name", { exact: true }).fill("Olive Owner");
  await page.getByLabel("Business Name").fill("Olive Plumbing");
  await page.getByLabel("Email").fill(ownerEmail);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  // inviting emails someone: the owner confirms their own address first (an unverified account cannot)
  await verifyEmailThroughOutbox(page, ownerEmail);
  // Business plan (5 seats): set in the database until billing can sell it
  await withE2eDb(
    (sql) =>
      sql`update workspaces set plan = 'business' where name = 'Olive Plumbing' and owner_id = (select id from users where email = ${ownerEmail})`,
  );
  const created = await page.request.post("/api/contacts", {
    data: { first_name: "Maria", last_name: "Shared", email: `maria-${stamp}@example.com` },
    headers: { origin: baseURL! },
  });
  expect(created.ok()).toBe(true);
  const contactId = (await created.json()).contact.id as number;

  await page.goto("/settings?tab=team");
  await page.getByLabel("Email").fill(mateEmail);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${mateEmail} as a member.`)).toBeVisible();
  await expect(page.getByTestId("invite-row")).toContainText(mateEmail);

  // the link from the invite email in the outbox
  const { link } = await inviteLinkFromOutbox(page, mateEmail);

  // someone else, signed in with another account, opens the forwarded link: no way to join, the
  // invited address masked, and a way to switch account
  const strangerContext = await browser.newContext();
  const stranger = await strangerContext.newPage();
  await stranger.goto("/");
  const strangerEmail = `stranger-${stamp}@example.com`;
  const reg = await stranger.request.post("/api/auth/register", {
    headers: { origin: baseURL! },
    data: { name: "Sam Stranger", email: strangerEmail, password: "correct-horse-battery" },
  });
  expect(reg.ok(), await reg.text()).toBe(true);
  await stranger.goto(link);
  await expect(
    stranger.getByText(
      "This invitation was sent to m•••@example.com. Sign in with that address to accept it.",
    ),
  ).toBeVisible();
  await expect(stranger.getByText(mateEmail)).toHaveCount(0);
  await expect(stranger.getByRole("button", { name: /^Accept/ })).toHaveCount(0);
  await stranger.getByRole("button", { name: "Sign out and switch account" }).click();
  await expect(stranger).toHaveURL(/\/login\?redirect=/);
  await strangerContext.close();

  const mateContext = await browser.newContext();
  const mate = await mateContext.newPage();
  await mate.goto(link);
  await expect(mate.getByRole("heading", { name: "Join Olive Plumbing" })).toBeVisible();
  await mate.getByRole("link", { name: "Create an account to join" }).click();
  await mate.getByLabel("Name", { exact: true }).fill("Mia Mate");
  await mate.getByLabel("Business Name").fill("");
  await mate.getByLabel("Email").fill(mateEmail);
  await mate.getByLabel("Password").fill("correct-horse-battery");
  await mate.getByRole("button", { name: "Create Account" }).click();
  await expect(mate).toHaveURL(/\/invite\//);
  // the new address is not confirmed yet: the invitation waits for the emailed link
  await expect(mate.getByText("Confirm your email to join")).toBeVisible();
  await expect(mate.getByText(`open the link we emailed to ${mateEmail}`)).toBeVisible();
  await expect(mate.getByRole("button", { name: "Accept and join Olive Plumbing" })).toHaveCount(0);
  const verifyLink = await accountLinkFromOutbox(mate, mateEmail, "verify-email");
  await mate.goto(verifyLink);
  await expect(mate.getByText("Your email address is verified.")).toBeVisible();
  await mate.getByRole("link", { name: "Continue to join Olive Plumbing" }).click();
  await expect(mate).toHaveURL(/\/invite\//);
  await mate.getByRole("button", { name: "Accept and join Olive Plumbing" }).click();
  await expect(mate).toHaveURL(/\/contacts$/);
  await expect(mate.getByText("Maria Shared")).toBeVisible();
  await expect(mate.getByTestId("workspace-switcher")).toContainText("Olive Plumbing");

  // the owner sees the new member and removes them
  await page.goto("/settings?tab=team");
  const row = page.getByTestId("member-row").filter({ hasText: mateEmail });
  await expect(row).toBeVisible();
  await row.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByText("Member removed. Their access ended.")).toBeVisible();
  await expect(page.getByTestId("member-row").filter({ hasText: mateEmail })).toHaveCount(0);

  // the teammate's next navigation is refused the owner's data
  await mate.goto(`/contacts/${contactId}`);
  await expect(mate.getByText("Contact not found")).toBeVisible();
  await mate.goto("/contacts");
  await expect(mate.getByText("Maria Shared")).toHaveCount(0);
  await mateContext.close();
});
