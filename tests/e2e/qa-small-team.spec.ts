import { expect, type Page, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";
import { e2eReceiverPort, withE2eDb } from "./e2e-info";
import { expectWhollyShown } from "./layout-helpers";
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
 *   key and Add endpoint stay off after it, their field emptied);
 * - a contact added through an API key whose name is one long word, and a note holding a long link,
 *   widened the contact's page past 390 px (no wrap inside a word).
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

test("Pause and Resume by keyboard keep focus; a paused campaign says when it sends once resumed", async ({
  page,
  browser,
  baseURL,
}) => {
  await registerVerifiedBusiness(page, { prefix: "ana-qpause", name: "Ana Owner", business: "Pause Bakery" });
  const ben = await memberJoins(page, browser, baseURL!, {
    prefix: "ben-qpause",
    name: "Ben Admin",
    business: "Ben Co",
    role: "admin",
  });
  const at = new Date(Date.now() + 2 * DAY);
  const name = `Ben's weekend sale ${Date.now().toString(36)}`;
  const launched = await ben.tab.request.post("/api/campaigns/email/launch", {
    headers: { origin: baseURL! },
    data: {
      campaignName: name,
      subject: "Weekend sale",
      body: "Hi there",
      contacts: [{ name: "Rita", email: `rita-qpause-${Date.now()}@example.com` }],
      scheduledAt: at.toISOString(),
    },
  });
  expect(launched.ok(), await launched.text()).toBe(true);
  const id = (await launched.json()).campaignId as number;
  await ben.context.close();
  const when = at.toLocaleString("en-US", {
    timeZone: "America/Detroit",
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });

  await page.goto(`/campaigns/${id}`);
  const status = page.getByTestId("campaign-status-line");
  await expect(status).toContainText(`sends ${when}`);
  await page.getByRole("button", { name: "Pause" }).focus();
  await page.keyboard.press("Enter");
  await expect(status).toContainText("paused");
  // the paused campaign keeps its time: resuming it waits for it (campaigns.service resumeCampaign)
  await expect(status).toContainText(`sends ${when} once resumed`);
  await expect(status).toBeFocused();
  expect(await focusLost(page)).toBe(false);
  // Tab from the status line reaches Resume
  const resume = page.getByRole("button", { name: "Resume" });
  for (let i = 0; i < 4 && !(await resume.evaluate((b) => b === document.activeElement)); i++)
    await page.keyboard.press("Tab");
  await expect(resume).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(status).toContainText("scheduled");
  await expect(status).toBeFocused();

  // Ben is removed: his campaign is paused; the list and report say when it sends once resumed
  await withE2eDb(
    (sql) =>
      sql`update campaigns set status = 'paused', pause_cause = 'departure', error = ${"Paused because Ben Admin, who scheduled it, was removed from the workspace. Resume it to send it as scheduled (at once if that time has passed), or cancel it."} where id = ${id}`,
  );
  await page.goto("/campaigns");
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(`sends ${when} once resumed`);
  await expect(row).toContainText("its launcher left");
  await page.goto(`/campaigns/${id}`);
  await expect(status).toContainText(`sends ${when} once resumed`);
});

test("Send invitation, Create key and Add endpoint keep keyboard focus through their request", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "ana-qfocus", name: "Ana Owner", business: "Focus Bakery" });

  await page.goto("/settings?tab=team");
  await page.getByLabel("Email").fill(`dan-qfocus-${Date.now()}@example.com`);
  const send = page.getByRole("button", { name: "Send invitation" });
  await send.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(/^Invitation sent to dan-qfocus-/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Revoke" })).toBeVisible();
  // focus is back in the emptied Email field, for the next teammate
  await expect(page.getByLabel("Email")).toBeFocused();
  await expect(page.getByLabel("Email")).toHaveValue("");
  // a refusal: focus in the field the sentence describes
  await page.getByLabel("Email").fill("ana-qfocus-nobody@");
  await send.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("alert").filter({ hasText: "valid email" })).toBeVisible();
  await expect(page.getByLabel("Email")).toBeFocused();

  await page.goto("/settings?tab=api-keys");
  await page.getByLabel("Name").fill("Website form");
  const create = page.getByRole("button", { name: "Create key" });
  await create.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Your new key (shown once):")).toBeVisible();
  // the name field is emptied, so Create key stays off: focus goes to the new key's Copy and hide
  await expect(page.getByRole("button", { name: "Copy and hide" })).toBeFocused();

  await page.goto("/settings?tab=webhooks");
  await page.getByLabel(/Endpoint URL/).fill(`http://127.0.0.1:${e2eReceiverPort()}/qfocus`);
  const add = page.getByRole("button", { name: "Add endpoint" });
  await add.focus();
  await page.keyboard.press("Enter");
  // the URL field is emptied, so Add endpoint stays off: focus goes to the secret shown once
  await expect(page.getByTestId("webhook-secret")).toBeFocused();
});

test("at 390 px a contact added through a key with a one-word name, and a note with a long link, fit the screen", async ({
  page,
  baseURL,
}) => {
  await registerVerifiedBusiness(page, { prefix: "ana-qwrap", name: "Ana Owner", business: "Wrap Bakery" });
  const origin = baseURL!;
  const made = await page.request.post("/api/api-keys", {
    headers: { origin },
    data: {
      name: "ZapierWebsiteContactFormIntegrationForTheSpringWeddingSeason",
      scopes: ["contacts:write"],
    },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const auth = { origin, authorization: `Bearer ${(await made.json()).key}` };
  const created = await page.request.post("/api/v1/contacts", {
    headers: auth,
    data: { first_name: "Hal", email: `hal-qwrap-${Date.now()}@example.com` },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const contactId = (await created.json()).id as number;
  const link = `https://example.com/quotes/${"spring-wedding-bouquets-".repeat(4)}final`.replaceAll("-", "");
  const note = await page.request.post(`/api/v1/contacts/${contactId}/notes`, {
    headers: auth,
    data: { note_text: `Form sent: ${link}` },
  });
  expect(note.ok(), await note.text()).toBe(true);

  const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
  await page.goto(`/contacts/${contactId}`);
  await expect(page.getByTestId("contact-added")).toContainText("Added through API key 'ZapierWebsite");
  await expectWhollyShown(page.getByTestId("contact-added"));
  expect(await pageWidth()).toBeLessThanOrEqual(390);
  await page.getByRole("tab", { name: /Notes/ }).click();
  const shown = page.getByTestId("note");
  await expect(shown).toContainText(link);
  await expectWhollyShown(shown);
  expect(await pageWidth()).toBeLessThanOrEqual(390);
});
