import { type Browser, expect, type Page, test } from "@playwright/test";
import { open } from "./a11y-helpers";
import { inviteLinkFromOutbox, registerVerifiedBusiness, verifyEmailThroughOutbox } from "./account-helpers";

/**
 * WCAG 2.4.3 Focus Order: a confirmed action that removes the control which opened its dialog (the
 * member's Remove button goes with the member's row, a Revoke button with its invitation, the
 * contacts list's bulk-actions bar with the selection) must not drop keyboard focus on <body>. Focus
 * goes to the same button of the row that took the removed row's place, else the list's heading, or
 * (contacts) to the contact list region. Cancelling still gives focus back to the opener.
 */

/** What has focus: the tag, the accessible name-ish text and the aria-label, for readable failures. */
async function focused(page: Page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    return {
      tag: a?.tagName.toLowerCase() ?? "none",
      label: a?.getAttribute("aria-label") ?? null,
      text: (a?.textContent ?? "").trim().slice(0, 40),
    };
  });
}

/** Focus is somewhere other than <body> once the page has settled after the removal. */
async function expectFocusNotOnBody(page: Page) {
  // the removal happens after the request and the list's refetch: give focus loss time to happen
  await page.waitForLoadState("networkidle").catch(() => {});
  await expect.poll(async () => (await focused(page)).tag).not.toBe("body");
}

/** Registers `email` in a fresh browser context, confirms it and accepts the invitation sent to it. */
async function joinAs(browser: Browser, origin: string, inviter: Page, email: string, name: string) {
  const { token } = await inviteLinkFromOutbox(inviter, email);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/");
  const reg = await page.request.post("/api/auth/register", {
    headers: { origin },
    data: { name, email, password: "correct-horse-battery" },
  });
  expect(reg.ok(), await reg.text()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  const accepted = await page.request.post(`/api/invites/${token}/accept`, { headers: { origin } });
  expect(accepted.ok(), await accepted.text()).toBe(true);
  await context.close();
}

test("Settings > Team: after Remove member and Revoke invitation, focus moves to the next row's button, then the heading", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  await registerVerifiedBusiness(page, { prefix: "focus", name: "Fay Focus", business: "Focus Co" });
  const origin = new URL(page.url()).origin;
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  const mates = [`ann-${stamp}@example.com`, `bob-${stamp}@example.com`];
  const pending = [`cat-${stamp}@example.com`, `dan-${stamp}@example.com`];
  for (const email of [...mates, ...pending]) {
    const res = await page.request.post("/api/workspaces/current/invites", {
      headers: { origin },
      data: { email, role: "member" },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
  await joinAs(browser, origin, page, mates[0]!, "Ann Mate");
  await joinAs(browser, origin, page, mates[1]!, "Bob Mate");

  await open(page, "/settings?tab=team");
  const members = page.getByRole("list", { name: "Members" });
  await expect(members.getByTestId("member-row")).toHaveCount(3);

  // cancelling keeps focus on the opener (the ConfirmDialog's behaviour)
  const removeButtons = members.getByRole("button", { name: "Remove" });
  await removeButtons.first().focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog", { name: "Remove Ann Mate?" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(removeButtons.first()).toBeFocused();

  // confirmed from the keyboard: Ann's row goes; focus lands on Bob's Remove button, not <body>
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Member removed. Their access ended.")).toBeVisible();
  await expect(members.getByTestId("member-row")).toHaveCount(2);
  await expectFocusNotOnBody(page);
  const bobRow = members.getByTestId("member-row").filter({ hasText: mates[1]! });
  await expect(bobRow.getByRole("button", { name: "Remove" })).toBeFocused();

  // the last removable member: focus goes to the list's heading
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
  await expect(members.getByTestId("member-row")).toHaveCount(1);
  await expectFocusNotOnBody(page);
  await expect(page.getByRole("heading", { name: "Members", exact: true })).toBeFocused();

  // revoking invitations: the next invitation's Revoke button, then (the list gone) the Members heading
  const invites = page.getByRole("list", { name: "Pending invitations" });
  await expect(invites.getByTestId("invite-row")).toHaveCount(2);
  await invites.getByRole("button", { name: `Revoke the invitation to ${pending[0]}` }).click();
  await page.getByRole("button", { name: "Revoke invitation" }).click();
  await expect(invites.getByTestId("invite-row")).toHaveCount(1);
  await expectFocusNotOnBody(page);
  const revokeDan = invites.getByRole("button", { name: `Revoke the invitation to ${pending[1]}` });
  await expect(revokeDan).toBeFocused();
  await page.keyboard.press("Enter");
  await page.getByRole("button", { name: "Revoke invitation" }).click();
  await expect(page.getByRole("list", { name: "Pending invitations" })).toHaveCount(0);
  await expectFocusNotOnBody(page);
  await expect(page.getByRole("heading", { name: "Members", exact: true })).toBeFocused();
});

test("Contacts: after a confirmed bulk delete or bulk stage update the selection's bar is gone and focus is on the contact list", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await registerVerifiedBusiness(page, { prefix: "bulkfocus", name: "Bea Bulk", business: "Bulk Co" });
  const origin = new URL(page.url()).origin;
  const stamp = Date.now();
  for (const first of ["Ada", "Ben", "Cy", "Dee"]) {
    const res = await page.request.post("/api/contacts", {
      headers: { origin },
      data: { first_name: first, last_name: "Focus", email: `${first.toLowerCase()}-${stamp}@example.com` },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
  await open(page, "/contacts");
  await expect(page.getByRole("heading", { name: "Contacts (4)" })).toBeVisible();
  const bar = page.getByRole("region", { name: "Bulk actions" });

  // bulk delete asks in the app's own dialog; cancelling gives focus back to Delete
  await page.getByRole("checkbox", { name: "Select Ada Focus" }).check();
  await page.getByRole("checkbox", { name: "Select Ben Focus" }).check();
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
  const del = bar.getByRole("button", { name: "Delete" });
  await del.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Delete 2 selected contacts?" });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(del).toBeFocused();

  // confirmed: the rows, their checkboxes and the bar go; focus is on the contact list, not <body>
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").getByRole("button", { name: "Delete contacts" }).click();
  await expect(page.getByText("Successfully deleted 2 contacts")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Contacts (2)" })).toBeVisible();
  await expect(bar).toHaveCount(0);
  await expectFocusNotOnBody(page);
  await expect(page.getByRole("region", { name: "Contact list" })).toBeFocused();

  // a bulk stage update clears the selection (and its bar) too
  await page.getByRole("checkbox", { name: "Select Cy Focus" }).check();
  await bar.getByRole("button", { name: "Update Stage" }).click();
  const stage = page.getByRole("dialog", { name: "Update Lifecycle Stage" });
  await stage.getByLabel("Lifecycle stage").selectOption({ index: 1 });
  await stage.getByRole("button", { name: "Update Stage" }).click();
  await expect(page.getByText(/^Updated 1 contact to/)).toBeVisible();
  await expect(bar).toHaveCount(0);
  await expectFocusNotOnBody(page);
  await expect(page.getByRole("region", { name: "Contact list" })).toBeFocused();
});

test("Contacts: a row's Delete asks in the app's dialog named after the contact (no browser confirm); cancel gives focus back, a confirmed delete puts it on the contact list", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "onefocus", name: "Oli One", business: "One Co" });
  const origin = new URL(page.url()).origin;
  const stamp = Date.now();
  for (const first of ["Ada", "Ben", "Cy"]) {
    const res = await page.request.post("/api/contacts", {
      headers: { origin },
      data: {
        first_name: first,
        last_name: "Single",
        email: `${first.toLowerCase()}-one-${stamp}@example.com`,
      },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
  // a browser confirm() would be dismissed by Playwright (nothing deleted): record any, expect none
  const native: string[] = [];
  page.on("dialog", (d) => {
    native.push(d.message());
    void d.dismiss();
  });
  await open(page, "/contacts");
  await expect(page.getByRole("heading", { name: "Contacts (3)" })).toBeVisible();

  const del = page.getByRole("button", { name: "Delete Ben Single" });
  await del.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Delete Ben Single?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("This cannot be undone.");
  // Escape cancels: nothing deleted, focus back on the row's Delete button
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(del).toBeFocused();
  await expect(page.getByRole("heading", { name: "Contacts (3)" })).toBeVisible();

  // confirmed by keyboard on the button named after the contact
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("dialog").getByRole("button", { name: "Delete Ben Single" });
  await confirm.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Deleted Ben Single")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Contacts (2)" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Ben Single" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Ada Single" })).toBeVisible();
  await expectFocusNotOnBody(page);
  await expect(page.getByRole("region", { name: "Contact list" })).toBeFocused();
  expect(native).toEqual([]);
});
