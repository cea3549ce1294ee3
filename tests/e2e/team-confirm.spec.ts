import { expect, test } from "@playwright/test";
import { open } from "./a11y-helpers";
import { inviteLinkFromOutbox, registerVerifiedBusiness, verifyEmailThroughOutbox } from "./account-helpers";
import { expectWhollyShown } from "./layout-helpers";

/**
 * Settings > Team: each pending invitation's Resend and Revoke buttons say whose invitation they act
 * on (a screen reader heard "Revoke, Revoke" before), revoking asks first (Escape keeps it, focus back
 * on the button), and leaving a workspace asks first too (one click left at once before). The leave and
 * remove confirmations say how many API keys the departure revokes (the person's own keys in the
 * workspace), and say nothing of keys when there are none.
 */
test("invitation Revoke buttons name the invitee and ask first; Leave workspace asks first", async ({
  page,
  browser,
}) => {
  await registerVerifiedBusiness(page, {
    prefix: "team",
    name: "Tia Team",
    business: "Team Confirm Co",
  });
  const origin = new URL(page.url()).origin;
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  const amy = `amy-${stamp}@example.com`;
  const ben = `ben-${stamp}@example.com`;
  for (const [email, role] of [
    [amy, "member"],
    [ben, "admin"],
  ] as const) {
    const res = await page.request.post("/api/workspaces/current/invites", {
      headers: { origin },
      data: { email, role },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }

  await open(page, "/settings?tab=team");
  const invites = page.getByRole("list", { name: "Pending invitations" });
  await expect(invites.getByTestId("invite-row")).toHaveCount(2);
  await expect(invites.getByRole("button", { name: `Resend the invitation to ${amy}` })).toBeVisible();
  const revokeAmy = invites.getByRole("button", { name: `Revoke the invitation to ${amy}` });
  await expect(invites.getByRole("button", { name: `Revoke the invitation to ${ben}` })).toBeVisible();

  // from the keyboard: the dialog asks, Escape keeps the invitation and focus returns to the button
  await revokeAmy.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: `Revoke the invitation to ${amy}?` });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(revokeAmy).toBeFocused();
  await expect(invites.getByTestId("invite-row")).toHaveCount(2);

  // confirmed: only that invitation goes
  await revokeAmy.click();
  await page.getByRole("button", { name: "Revoke invitation" }).click();
  await expect(page.getByText("Invitation revoked.")).toBeVisible();
  await expect(invites.getByTestId("invite-row")).toHaveCount(1);
  await expect(invites.getByTestId("invite-row")).toContainText(ben);

  // Ben (an admin) joins through his link, then Leave workspace asks before it takes his access away
  const { token } = await inviteLinkFromOutbox(page, ben);
  const mateContext = await browser.newContext();
  const mate = await mateContext.newPage();
  await mate.goto("/");
  const registered = await mate.request.post("/api/auth/register", {
    headers: { origin },
    data: { name: "Ben Mate", email: ben, password: "correct-horse-battery" },
  });
  expect(registered.ok(), await registered.text()).toBe(true);
  // only the invited address, once confirmed, may accept
  await verifyEmailThroughOutbox(mate, ben);
  const accepted = await mate.request.post(`/api/invites/${token}/accept`, { headers: { origin } });
  expect(accepted.ok(), await accepted.text()).toBe(true);
  await open(mate, "/settings?tab=team");
  const leave = mate.getByRole("button", { name: "Leave workspace" });
  const counted = (p: typeof page) =>
    p.waitForResponse((r) => r.url().includes("apiKeys.revokedOnDeparture") && r.ok());
  // no keys of his yet: the confirmation says nothing of keys once the count is in
  let count = counted(mate);
  await leave.click();
  const leaving = mate.getByRole("dialog", { name: "Leave Team Confirm Co?" });
  await expect(leaving).toBeVisible();
  await count;
  await expect(leaving).toContainText("An owner or admin can invite you again.");
  await expect(leaving).not.toContainText("API key");
  await leaving.getByRole("button", { name: "Cancel" }).click();
  await expect(mate.getByRole("dialog")).toHaveCount(0);
  await expect(leave).toBeFocused();
  // he makes two API keys: leaving would revoke them, and the confirmation says so
  for (const name of ["Ben sync", "Ben form"]) {
    const made = await mate.request.post("/api/api-keys", {
      headers: { origin },
      data: { name, scopes: ["contacts:read"] },
    });
    expect(made.ok(), await made.text()).toBe(true);
  }
  await leave.click();
  await expect(leaving).toContainText("Your 2 API keys will be revoked.");
  await leaving.getByRole("button", { name: "Cancel" }).click();
  await expect(mate.getByRole("dialog")).toHaveCount(0);
  // still a member: the owner's team list shows him, and removing him says his keys go too
  await page.reload();
  const benRow = page.getByTestId("member-row").filter({ hasText: ben });
  await expect(benRow).toBeVisible();
  count = counted(page);
  await benRow.getByRole("button", { name: "Remove" }).click();
  const removing = page.getByRole("dialog", { name: "Remove Ben Mate?" });
  await expect(removing).toContainText("Their 2 API keys will be revoked.");
  await count;
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await mateContext.close();

  // on a phone (390 px) members' and invitees' addresses are shown whole, not cut to "team-17...@..."
  const longInvitee = `olivia.featherstonehaugh-montgomery-${stamp}@extraordinarily-long-domain.example.com`;
  const invited = await page.request.post("/api/workspaces/current/invites", {
    headers: { origin },
    data: { email: longInvitee, role: "member" },
  });
  expect(invited.ok(), await invited.text()).toBe(true);
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "/settings?tab=team");
  for (const row of await page.getByTestId("member-row").all()) {
    for (const line of await row.locator("p").all()) await expectWhollyShown(line);
  }
  await expectWhollyShown(
    invites.getByTestId("invite-row").filter({ hasText: longInvitee }).locator("p").first(),
  );
});
