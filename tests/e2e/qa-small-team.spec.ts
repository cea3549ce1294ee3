import { expect, type Page, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";
import { e2eReceiverPort, withE2eDb } from "./e2e-info";
import { memberJoins } from "./team-helpers";

/**
 * A QA pass as a small-business owner with two teammates, by keyboard and at 390 px, on the screens
 * changed last (contact notes, the campaign report's Pause / Resume, Settings' Team, API keys and
 * Webhooks). Each case failed on the build before its fix:
 * - a double click on Add Note added the note twice, and after adding (or leaving a note's edit)
 *   keyboard focus fell to the page's top;
 * - Pause / Resume pressed by keyboard dropped focus to the page's top (the pressed button is
 *   replaced), and a paused campaign whose time is still ahead did not say when it sends once resumed;
 * - Send invitation, Create key and a webhook endpoint's Add dropped focus to the page's top while
 *   their request ran (a focused button that turns disabled loses focus in Chromium): focus goes to
 *   the Email field (emptied, or marked with the refusal), and to the key or secret shown once (Create
 *   key and Add endpoint stay off after it, their field emptied).
 */

const DAY = 24 * 3600_000;

/** The focused element is `<body>` (focus lost), as seen in the page. */
async function focusLost(page: Page): Promise<boolean> {
  return page.evaluate(() => !document.activeElement || document.activeElement === document.body);
}

test.use({ viewport: { width: 390, height: 844 }, timezoneId: "America/Detroit" });

test("a note is added once on a double click; focus stays in the note box and returns to Edit", async ({
  page,
  baseURL,
}) => {
  await registerVerifiedBusiness(page, { prefix: "ana-qnote", name: "Ana Owner", business: "Note Bakery" });
  const created = await page.request.post("/api/contacts", {
    headers: { origin: baseURL! },
    data: { first_name: "Dora", email: `dora-qnote-${Date.now()}@example.com` },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const contactId = (await created.json()).contact.id as number;

  await page.goto(`/contacts/${contactId}`);
  await page.getByRole("tab", { name: /Notes/ }).click();
  const box = page.getByLabel("New note");
  await box.fill("Wants a quote for the spring bouquets.");
  await page.getByRole("button", { name: "Add Note" }).dblclick();
  const notes = page.getByTestId("note").filter({ hasText: "Wants a quote for the spring bouquets." });
  await expect(notes).toHaveCount(1);
  // the box is emptied and keeps focus for the next note (the emptied box turns Add Note off)
  await expect(box).toHaveValue("");
  await expect(box).toBeFocused();
  // after a reload, still one note: the second click sent nothing
  await page.reload();
  await page.getByRole("tab", { name: /Notes/ }).click();
  await expect(notes).toHaveCount(1);

  // Edit by keyboard; Escape, Cancel and Save each put focus back on the note's Edit
  const edit = notes.getByRole("button", { name: "Edit note" });
  await edit.focus();
  await page.keyboard.press("Enter");
  const editor = page.getByRole("textbox", { name: "Edit note" });
  await expect(editor).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(edit).toBeFocused();
  await page.keyboard.press("Enter");
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(edit).toBeFocused();
  await page.keyboard.press("Enter");
  await editor.fill("Wants a quote for the spring and summer bouquets.");
  await page.getByRole("button", { name: "Save" }).click();
  const edited = page.getByTestId("note").filter({ hasText: "spring and summer" });
  await expect(edited.getByRole("button", { name: "Edit note" })).toBeFocused();
});
