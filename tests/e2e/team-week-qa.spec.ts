import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { inviteLinkFromOutbox, registerVerifiedBusiness, verifyEmailThroughOutbox } from "./account-helpers";

/**
 * A small team's week, found by a QA pass: after an invitation sent as Admin the role picker stayed on
 * Admin, so the next teammate was made an admin by accident, and the banner did not say which role
 * went out; a member's Team tab showed no invite form and no reason; an invitee who accepted landed
 * on the contacts with nothing saying which workspace they had joined (on a phone the switcher is
 * behind the menu); and the notes on a contact were unsigned, the contact itself not saying who
 * added it. At 390 px, by keyboard, with axe.
 */

async function registerIn(page: Page, email: string, name: string) {
  await page.goto("/");
  const origin = new URL(page.url()).origin;
  const reg = await page.request.post("/api/auth/register", {
    headers: { origin },
    data: { name, email, password: "correct-horse-battery", business_name: `${name} Co` },
  });
  expect(reg.ok(), await reg.text()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
}

test("invite as admin then member by keyboard at 390 px; the joiner is told where they are; a member reads why they cannot invite; notes are signed", async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await loadAxe(page);
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  await registerVerifiedBusiness(page, { prefix: "ana-week", name: "Ana Owner", business: "Week Roofing" });
  const ben = `ben-week-${stamp}@example.com`;
  const cara = `cara-week-${stamp}@example.com`;

  await page.goto("/settings?tab=team");
  // Ben as an admin, chosen by keyboard
  await page.getByLabel("Email").fill(ben);
  await page.getByRole("combobox", { name: "Role" }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("option", { name: "Admin" }).press("Enter");
  await expect(page.getByRole("combobox", { name: "Role" })).toHaveText("Admin");
  await page.getByRole("button", { name: "Send invitation" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Invitation sent to ${ben} as an admin.`)).toBeVisible();
  // the picker is back on Member: Cara goes out as a member without touching it
  await expect(page.getByRole("combobox", { name: "Role" })).toHaveText("Member");
  await page.getByLabel("Email").fill(cara);
  await page.getByLabel("Email").press("Enter");
  await expect(page.getByText(`Invitation sent to ${cara} as a member.`)).toBeVisible();
  await expect(page.getByTestId("invite-row").filter({ hasText: cara })).toContainText("Member");
  await expect(page.getByTestId("invite-row").filter({ hasText: ben })).toContainText("Admin");
  expect(await seriousViolations(page, "owner's team tab")).toEqual([]);

  // Cara registers and accepts on her phone: the page she lands on says where she is
  const caraContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const caraPage = await caraContext.newPage();
  await loadAxe(caraPage);
  await registerIn(caraPage, cara, "Cara Member");
  const { link } = await inviteLinkFromOutbox(caraPage, cara);
  await caraPage.goto(link);
  await caraPage.getByRole("button", { name: "Accept and join Week Roofing" }).click();
  await expect(caraPage).toHaveURL(/\/contacts$/);
  await expect(
    caraPage.getByText("You joined Week Roofing as a member and are working in it now."),
  ).toBeVisible();

  // her Team tab says why there is no invite form, and offers Leave only
  await caraPage.goto("/settings?tab=team");
  await expect(
    caraPage.getByText(
      "Only the workspace owner or an admin can manage team members. Ask one of them to invite a teammate or change a role.",
    ),
  ).toBeVisible();
  await expect(caraPage.getByRole("button", { name: "Send invitation" })).toHaveCount(0);
  await expect(caraPage.getByRole("button", { name: "Remove" })).toHaveCount(0);
  await expect(caraPage.getByRole("button", { name: "Leave workspace" })).toBeVisible();
  expect(await seriousViolations(caraPage, "member's team tab")).toEqual([]);
  const overflow = await caraPage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // she writes a note on a contact; the owner sees it signed with her name
  const origin = new URL(caraPage.url()).origin;
  const created = await caraPage.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Dora", last_name: "Client", email: `dora-week-${stamp}@example.com` },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const contactId = (await created.json()).contact.id as number;
  await caraPage.goto(`/contacts/${contactId}`);
  await caraPage.getByRole("tab", { name: /Notes/ }).click();
  await caraPage.getByLabel("New note").fill("Called Dora, she wants a quote.");
  await caraPage.getByRole("button", { name: "Add Note" }).click();
  await page.goto(`/contacts/${contactId}`);
  await expect(page.getByTestId("contact-added")).toContainText("Added by Cara Member on");
  await page.getByRole("tab", { name: /Notes/ }).click();
  await expect(page.getByTestId("note")).toContainText("Called Dora, she wants a quote.");
  await expect(page.getByTestId("note")).toContainText("Cara Member ·");
  await caraContext.close();
});
