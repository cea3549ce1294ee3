import fs from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import type Axe from "axe-core";
import { silentWav } from "../integration/studio-helpers";
import { loadAxe, switchTheme } from "./a11y-helpers";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";

/*
 * Confirmations ask in the app's own dialog, never the browser's window.confirm (outside the app's
 * themes and its focus handling): a contact's SMS / call without opt-in, a note's,
 * a segment's, a saved search's, a media file's and a video's delete, and a campaign's cancel. Each
 * dialog names the thing; Cancel or Escape keeps everything and gives focus back to the button that
 * opened it; the confirm does the action, and when that removed the button focus goes to the next
 * row's button (or a heading / panel), not <body>. No native dialog may open (page.on("dialog")), and
 * axe finds no serious violation in the open dialog at 390 px in a light and a dark theme. The lead
 * search's filter tabs follow the WAI-ARIA tabs keyboard pattern. A saved search's Swap Location asks
 * in the app's dialog, not window.prompt (refusals inline, focus back on the button). A confirmed action
 * that fails (its button disabled while the request ran) leaves focus on that button, not <body>.
 */

test.use({ viewport: { width: 390, height: 844 }, reducedMotion: "reduce" });

const MEDIA = path.resolve(import.meta.dirname, "../../../shared/data/media");
const HAVE_MEDIA = fs.existsSync(path.join(MEDIA, "mdn-flower.mp4"));

/** Records every native dialog (alert/confirm/prompt) the page opens; Playwright would dismiss it. */
function nativeDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on("dialog", (d) => {
    seen.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return seen;
}

/** Clicks `button` and expects the app's dialog named `name`, not a browser confirm. */
async function ask(page: Page, native: string[], button: Locator, name: string | RegExp): Promise<Locator> {
  await button.click();
  const dialog = page.getByRole("dialog", { name });
  // a window.confirm is recorded (and dismissed) during the click: then no app dialog ever shows
  await dialog.waitFor({ timeout: 5_000 }).catch(() => {});
  expect(native, "a browser dialog opened instead of the app's own").toEqual([]);
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Serious or critical axe violations inside the open dialog, in a light and a dark theme. */
async function dialogViolations(page: Page, dialog: Locator, label: string): Promise<string[]> {
  await expect(dialog).toBeVisible();
  const found: string[] = [];
  for (const theme of ["monochrome-elite", "midnight-blue"]) {
    await switchTheme(page, theme);
    const violations = await page.evaluate(
      () =>
        (window as unknown as { axe: typeof Axe }).axe.run(
          { include: [['[role="dialog"][data-state="open"]']] },
          {
            runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
            resultTypes: ["violations"],
          },
        ),
      undefined,
    );
    for (const v of violations.violations)
      if (v.impact === "serious" || v.impact === "critical")
        found.push(
          `${label} [${theme}]: ${v.id} x${v.nodes.length}: ${v.nodes
            .slice(0, 2)
            .map((n) => n.target.join(" "))
            .join(" | ")}`,
        );
  }
  return found;
}

/** Nothing is focused but <body> once the page settled: a lost focus. */
const focusedTag = (page: Page) =>
  page.evaluate(() => document.activeElement?.tagName.toLowerCase() ?? "none");

test("contact page: SMS and call without opt-in, and a note's delete, ask in the app's dialog", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await loadAxe(page);
  const native = nativeDialogs(page);
  await registerVerifiedBusiness(page, {
    prefix: "confirm-contact",
    name: "Cora Confirm",
    business: "Confirm Co",
  });
  const origin = new URL(page.url()).origin;
  const headers = { origin };
  const phone = "+14232623060";
  const created = await page.request.post("/api/contacts", {
    headers,
    // not opted in to SMS or calls; 2 pm where the contact is (no quiet hours in the way)
    data: {
      first_name: "Olive",
      last_name: "Optout",
      email: `olive-${Date.now()}@example.com`,
      phone,
      timezone: zoneAt(14),
    },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  for (const text of ["First note to keep", "Second note to delete", "Third note"]) {
    const r = await page.request.post(`/api/contacts/${id}/notes`, { headers, data: { note_text: text } });
    expect(r.ok(), await r.text()).toBe(true);
  }
  const problems: string[] = [];
  await page.goto(`/contacts/${id}`);
  await expect(page.getByRole("heading", { name: "Olive Optout" })).toBeVisible();

  // ---- SMS: the opt-in question sits on top of the Send SMS dialog ----
  await page.getByRole("button", { name: "Send SMS" }).click();
  const sms = page.getByRole("dialog", { name: "Send SMS" });
  const smsText = `Hello Olive ${Date.now()}`;
  await sms.getByLabel("Message").fill(smsText);
  const send = sms.getByRole("button", { name: "Send", exact: true });
  const optIn = await ask(page, native, send, "Send the SMS to Olive Optout?");
  await expect(optIn).toContainText("This contact has not opted in to SMS. Send anyway?");
  // a warning, not a destructive action: the confirm is the primary button, not the red one
  await expect(optIn.getByRole("button", { name: "Send anyway" })).toHaveAttribute("class", /bg-primary/);
  problems.push(...(await dialogViolations(page, optIn, "SMS opt-in")));
  // Escape: nothing sent, the message is kept, focus back on Send
  await page.keyboard.press("Escape");
  await expect(optIn).toHaveCount(0);
  await expect(sms).toBeVisible();
  await expect(sms.getByLabel("Message")).toHaveValue(smsText);
  await expect(send).toBeFocused();
  // Cancel: the same
  await (await ask(page, native, send, "Send the SMS to Olive Optout?"))
    .getByRole("button", { name: "Cancel" })
    .click();
  await expect(page.getByRole("dialog", { name: "Send the SMS to Olive Optout?" })).toHaveCount(0);
  await expect(send).toBeFocused();
  // the texts of this run's message to the number (a database an earlier run used holds its texts too)
  const outbox = async () =>
    (
      (await (await page.request.get(`/api/dev/outbox?channel=sms&to=${encodeURIComponent(phone)}`)).json())
        .messages as { body: string }[]
    )
      .map((m) => m.body)
      // (a first text is led by the business's name: "Confirm Co: Hello Olive ...")
      .filter((b) => b.includes(smsText));
  expect(await outbox()).toEqual([]);
  // Send anyway: sent
  await (await ask(page, native, send, "Send the SMS to Olive Optout?"))
    .getByRole("button", { name: "Send anyway" })
    .click();
  await expect(page.getByText("SMS sent successfully!")).toBeVisible();
  await expect(sms).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Send SMS" })).toBeFocused();
  await expect.poll(async () => (await outbox()).length).toBe(1);

  // ---- Call: asked the same way; cancelling keeps the script and calls no one ----
  await page.getByRole("button", { name: "Call", exact: true }).click();
  const call = page.getByRole("dialog", { name: "Call" });
  await call.getByLabel("Script (spoken by an AI voice)").fill("Hi Olive, this is Confirm Co.");
  const callAsk = await ask(
    page,
    native,
    call.getByRole("button", { name: "Call", exact: true }),
    "Call Olive Optout?",
  );
  await expect(callAsk).toContainText("This contact has not opted in to calls. Call anyway?");
  await expect(callAsk.getByRole("button", { name: "Call anyway" })).toBeVisible();
  await callAsk.getByRole("button", { name: "Cancel" }).click();
  await expect(callAsk).toHaveCount(0);
  await expect(call.getByLabel("Script (spoken by an AI voice)")).toHaveValue(
    "Hi Olive, this is Confirm Co.",
  );
  await call.getByRole("button", { name: "Cancel" }).click();
  await expect(call).toHaveCount(0);

  // ---- a note's delete ----
  await page.getByRole("tab", { name: /Notes/ }).click();
  const notes = page.getByTestId("note");
  await expect(notes).toHaveCount(3);
  const second = notes.filter({ hasText: "Second note to delete" });
  const del = second.getByRole("button", { name: "Delete note" });
  let dialog = await ask(page, native, del, "Delete this note?");
  await expect(dialog).toContainText("Second note to delete");
  await expect(dialog).toContainText("This cannot be undone.");
  await expect(dialog.getByRole("button", { name: "Delete note" })).toHaveAttribute(
    "class",
    /bg-destructive/,
  );
  problems.push(...(await dialogViolations(page, dialog, "note delete")));
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(notes).toHaveCount(3);
  await expect(del).toBeFocused();
  dialog = await ask(page, native, del, "Delete this note?");
  await dialog.getByRole("button", { name: "Delete note" }).click();
  await expect(notes).toHaveCount(2);
  await expect(page.getByText("Second note to delete")).toHaveCount(0);
  // focus: the Delete of the note that took its place, not <body>
  await expect.poll(() => focusedTag(page)).not.toBe("body");
  const sameSlot = notes.nth(1).getByRole("button", { name: "Delete note" });
  const nextNote = notes
    .filter({ hasText: "First note to keep" })
    .or(notes.filter({ hasText: "Third note" }));
  await expect(nextNote).toHaveCount(2);
  await expect(sameSlot).toBeFocused();

  expect(native).toEqual([]);
  expect(problems, problems.join("\n")).toEqual([]);
});

test("contacts: a segment's delete asks on top of the Segments dialog; focus goes to the next segment", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  const native = nativeDialogs(page);
  await registerVerifiedBusiness(page, { prefix: "confirm-seg", name: "Sid Segment", business: "Seg Co" });
  const origin = new URL(page.url()).origin;
  for (const [name, search] of [
    ["Bakers", "bake"],
    ["Cooks", "cook"],
  ]) {
    const r = await page.request.post("/api/contacts/lists", {
      headers: { origin },
      data: { name, filter: { search } },
    });
    expect(r.ok(), await r.text()).toBe(true);
  }
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Segments" }).click();
  const segments = page.getByRole("dialog", { name: "Segments" });
  const list = segments.getByRole("list", { name: "Saved segments" });
  await expect(list.getByRole("listitem")).toHaveCount(2);

  const del = list.getByRole("button", { name: "Delete Bakers" });
  let dialog = await ask(page, native, del, 'Delete the segment "Bakers"?');
  await expect(dialog).toContainText("Its contacts are kept");
  await expect(dialog.getByRole("button", { name: "Delete segment" })).toHaveAttribute(
    "class",
    /bg-destructive/,
  );
  const problems = await dialogViolations(page, dialog, "segment delete");
  // Escape closes only the confirmation: the Segments dialog stays, with both segments, focus on Delete
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(segments).toBeVisible();
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(del).toBeFocused();

  dialog = await ask(page, native, del, 'Delete the segment "Bakers"?');
  await dialog.getByRole("button", { name: "Delete segment" }).click();
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list).not.toContainText("Bakers");
  await expect(segments).toBeVisible();
  await expect(list.getByRole("button", { name: "Delete Cooks" })).toBeFocused();
  const left = (await (await page.request.get("/api/contacts/lists/all")).json()).lists as { name: string }[];
  expect(left.map((l) => l.name)).toEqual(["Cooks"]);

  expect(native).toEqual([]);
  expect(problems, problems.join("\n")).toEqual([]);
});

test("campaign report: Cancel asks in the app's dialog; Keep campaign keeps it, Cancel campaign cancels it", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  const native = nativeDialogs(page);
  const email = await registerVerifiedBusiness(page, {
    prefix: "confirm-camp",
    name: "Cam Cancel",
    business: "Cancel Co",
  });
  const origin = new URL(page.url()).origin;
  const launch = await page.request.post("/api/campaigns/email/launch", {
    headers: { origin },
    data: {
      campaignName: "Autumn offer",
      subject: "Hello",
      body: "Hi there, autumn is here.",
      contacts: [{ name: "Rae Recipient", email: `rae-${email}` }],
      // scheduled for tomorrow: it stays cancellable while the test runs
      scheduledAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
    },
  });
  expect(launch.ok(), await launch.text()).toBe(true);
  const id = (await launch.json()).campaignId as number;
  const state = async () => (await (await page.request.get(`/api/campaigns/${id}`)).json()).campaign.status;
  expect(await state()).toBe("scheduled");
  await page.goto(`/campaigns/${id}`);
  const status = page.getByTestId("campaign-status-line");

  const cancel = page.getByRole("button", { name: "Cancel", exact: true });
  let dialog = await ask(page, native, cancel, 'Cancel the campaign "Autumn offer"?');
  await expect(dialog).toContainText("Queued messages will not be sent.");
  await expect(dialog.getByRole("button", { name: "Cancel campaign" })).toHaveAttribute(
    "class",
    /bg-destructive/,
  );
  const problems = await dialogViolations(page, dialog, "campaign cancel");
  await dialog.getByRole("button", { name: "Keep campaign" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(cancel).toBeFocused();
  await page.reload();
  await expect(status).toContainText(/scheduled/i);
  expect(await state()).toBe("scheduled");

  dialog = await ask(page, native, cancel, 'Cancel the campaign "Autumn offer"?');
  await dialog.getByRole("button", { name: "Cancel campaign" }).click();
  await expect(status).toContainText(/cancelled/i);
  await expect(cancel).toHaveCount(0);
  // the Cancel button went with the campaign's state: focus is on the status line, not <body>
  await expect(status).toBeFocused();
  expect(await state()).toBe("cancelled");

  expect(native).toEqual([]);
  expect(problems, problems.join("\n")).toEqual([]);
});

test("studio media library: a file's delete names it in the app's dialog; focus goes to the next file's Delete", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  const native = nativeDialogs(page);
  await registerVerifiedBusiness(page, { prefix: "confirm-media", name: "Mo Media", business: "Media Co" });
  const origin = new URL(page.url()).origin;
  for (const name of ["Greeting one", "Greeting two"]) {
    const up = await page.request.post("/api/audio/upload", {
      headers: { origin },
      multipart: { name, audio: { name: "greeting.wav", mimeType: "audio/wav", buffer: silentWav(1) } },
    });
    expect(up.ok(), await up.text()).toBe(true);
  }
  await page.goto("/studio?tab=library");
  const cards = page.getByTestId("media-card");
  await expect(cards).toHaveCount(2);
  const first = await cards.first().locator("h3").innerText();
  const other = first === "Greeting one" ? "Greeting two" : "Greeting one";

  const del = page.getByRole("button", { name: `Delete ${first}` });
  let dialog = await ask(page, native, del, `Delete "${first}"?`);
  await expect(dialog).toContainText("This cannot be undone.");
  await expect(dialog.getByRole("button", { name: "Delete file" })).toHaveAttribute(
    "class",
    /bg-destructive/,
  );
  const problems = await dialogViolations(page, dialog, "media delete");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(cards).toHaveCount(2);
  await expect(del).toBeFocused();

  dialog = await ask(page, native, del, `Delete "${first}"?`);
  await dialog.getByRole("button", { name: "Delete file" }).click();
  await expect(cards).toHaveCount(1);
  await expect(cards).toContainText(other);
  await expect(page.getByRole("button", { name: `Delete ${other}` })).toBeFocused();

  expect(native).toEqual([]);
  expect(problems, problems.join("\n")).toEqual([]);
});

test("studio video editor: Delete Video names the video in the app's dialog, then returns to the videos", async ({
  page,
}) => {
  test.skip(!HAVE_MEDIA, "../shared/data/media is absent: this test needs the shared flower clip");
  test.setTimeout(120_000);
  await loadAxe(page);
  const native = nativeDialogs(page);
  await registerVerifiedBusiness(page, { prefix: "confirm-video", name: "Vi Video", business: "Video Co" });
  const origin = new URL(page.url()).origin;
  const up = await page.request.post("/api/videos/upload", {
    headers: { origin },
    multipart: {
      name: "Flower clip",
      video: {
        name: "flower.mp4",
        mimeType: "video/mp4",
        buffer: fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")),
      },
    },
  });
  expect(up.ok(), await up.text()).toBe(true);
  await page.goto("/studio?tab=editor");
  await page.getByRole("button", { name: "Open Flower clip in the editor" }).click();
  const del = page.getByRole("button", { name: "Delete Video" });
  let dialog = await ask(page, native, del, 'Delete "Flower clip"?');
  await expect(dialog).toContainText("This cannot be undone.");
  await expect(dialog.getByRole("button", { name: "Delete video" })).toHaveAttribute(
    "class",
    /bg-destructive/,
  );
  const problems = await dialogViolations(page, dialog, "video delete");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(
    page.getByRole("tabpanel", { name: "Video Editor" }).getByRole("heading", { name: "Flower clip" }),
  ).toBeVisible();
  await expect(del).toBeFocused();

  dialog = await ask(page, native, del, 'Delete "Flower clip"?');
  await dialog.getByRole("button", { name: "Delete video" }).click();
  await expect(page.getByText("Video deleted successfully!")).toBeVisible();
  await expect(page.getByText("No videos available")).toBeVisible();
  // the editor view went: focus is on the Video Editor tab panel, not <body>
  await expect(page.getByRole("tabpanel", { name: "Video Editor" })).toBeFocused();

  expect(native).toEqual([]);
  expect(problems, problems.join("\n")).toEqual([]);
});

test("lead search: a saved search's delete asks in the app's dialog; focus goes to the next one's Delete", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await loadAxe(page);
  const native = nativeDialogs(page);
  await registerVerifiedBusiness(page, { prefix: "confirm-leads", name: "Lea Leads", business: "Leads Co" });
  await page.goto("/contacts/business-search");
  await expect(page.getByRole("heading", { name: "Business Lead Search" })).toBeVisible();
  const saveDialog = page.getByRole("dialog", { name: "Save Search" });
  for (const [name, type] of [
    ["Saginaw dentists", "dentist"],
    ["Saginaw bakeries", "bakery"],
  ]) {
    await page.getByLabel("Location").fill("Saginaw, MI");
    await page.getByLabel("Business type").fill(type);
    await page.getByRole("button", { name: "Save Search" }).click();
    await saveDialog.getByLabel("Search name").fill(name);
    await saveDialog.getByLabel("Search name").press("Enter");
    await expect(saveDialog).toBeHidden();
    await expect(page.getByTestId("saved-searches")).toContainText(name);
  }
  const saved = page.getByTestId("saved-searches").getByRole("listitem");
  await expect(saved).toHaveCount(2);

  const del = saved.filter({ hasText: "Saginaw dentists" }).getByRole("button", { name: /^Delete/ });
  let dialog = await ask(page, native, del, 'Delete the saved search "Saginaw dentists"?');
  await expect(dialog).toContainText("dentist in Saginaw, MI");
  await expect(dialog.getByRole("button", { name: "Delete saved search" })).toHaveAttribute(
    "class",
    /bg-destructive/,
  );
  const problems = await dialogViolations(page, dialog, "saved search delete");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(saved).toHaveCount(2);
  await expect(del).toBeFocused();

  dialog = await ask(page, native, del, 'Delete the saved search "Saginaw dentists"?');
  await dialog.getByRole("button", { name: "Delete saved search" }).click();
  await expect(saved).toHaveCount(1);
  await expect(saved).toContainText("Saginaw bakeries");
  await expect(page.getByRole("button", { name: "Delete Saginaw bakeries" })).toBeFocused();
  const left = (await (await page.request.get("/api/maps/saved-searches")).json()) as unknown;
  expect(JSON.stringify(left)).not.toContain("Saginaw dentists");

  expect(native).toEqual([]);
  expect(problems, problems.join("\n")).toEqual([]);
});

test("lead search: the filter tabs follow the WAI-ARIA tabs keyboard pattern", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "confirm-tabs", name: "Tab Tester", business: "Tabs Co" });
  await page.goto("/contacts/business-search");
  await expect(page.getByRole("heading", { name: "Business Lead Search" })).toBeVisible();
  // ---- Left/Right move and select, Home/End jump, one Tab stop ----
  await page.getByRole("button", { name: "Show Filters" }).click();
  const tablist = page.getByTestId("filter-panel").getByRole("tablist");
  const tabs = tablist.getByRole("tab");
  const count = await tabs.count();
  expect(count).toBeGreaterThan(3);
  const names = await tabs.allInnerTexts();
  const selected = tablist.getByRole("tab", { selected: true });
  await expect(selected).toHaveCount(1);
  await expect(selected).toHaveText(names[0]!);
  // one Tab stop: Tab from the control before the list lands on the selected tab
  await page.getByRole("button", { name: "Close filters" }).focus();
  await page.keyboard.press("Tab");
  await expect(tabs.nth(0)).toBeFocused();
  await page.keyboard.press("ArrowRight");
  await expect(tabs.nth(1)).toBeFocused();
  await expect(tabs.nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(tabs.nth(0)).toHaveAttribute("aria-selected", "false");
  await expect(tabs.nth(1)).toHaveAttribute("tabindex", "0");
  await expect(tabs.nth(0)).toHaveAttribute("tabindex", "-1");
  // the panel shows that category and is labelled by its tab
  await expect(page.getByRole("tabpanel", { name: names[1]! })).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await expect(tabs.nth(2)).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await expect(tabs.nth(1)).toBeFocused();
  await page.keyboard.press("End");
  await expect(tabs.nth(count - 1)).toBeFocused();
  await expect(tabs.nth(count - 1)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Home");
  await expect(tabs.nth(0)).toBeFocused();
  await expect(tabs.nth(0)).toHaveAttribute("aria-selected", "true");
  // Left from the first wraps to the last
  await page.keyboard.press("ArrowLeft");
  await expect(tabs.nth(count - 1)).toBeFocused();
  // Tab leaves the tab list (for the panel), it does not walk through every tab; Shift+Tab comes back
  // to the selected tab
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).not.toBe("tab");
  await page.keyboard.press("Shift+Tab");
  await expect(tabs.nth(count - 1)).toBeFocused();
  await expect(tabs.nth(count - 1)).toHaveAttribute("aria-selected", "true");
});

test("lead search: Swap Location asks in the app's dialog, not window.prompt; errors inline, focus back on the button", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await loadAxe(page);
  const native = nativeDialogs(page);
  await registerVerifiedBusiness(page, { prefix: "confirm-swap", name: "Sam Swap", business: "Swap Co" });
  await page.goto("/contacts/business-search");
  await expect(page.getByRole("heading", { name: "Business Lead Search" })).toBeVisible();
  const saveDialog = page.getByRole("dialog", { name: "Save Search" });
  await page.getByLabel("Location").fill("Saginaw, MI");
  await page.getByLabel("Business type").fill("dentist");
  await page.getByRole("button", { name: "Save Search" }).click();
  await saveDialog.getByLabel("Search name").fill("Saginaw dentists");
  await saveDialog.getByLabel("Search name").press("Enter");
  await expect(saveDialog).toBeHidden();
  const row = page
    .getByTestId("saved-searches")
    .getByRole("listitem")
    .filter({ hasText: "Saginaw dentists" });
  await expect(row).toContainText("dentist in Saginaw, MI");
  const savedLocation = async () =>
    (
      (await (await page.request.get("/api/maps/saved-searches")).json()).searches as { location: string }[]
    ).map((s) => s.location);
  expect(await savedLocation()).toEqual(["Saginaw, MI"]);

  const swap = row.getByRole("button", { name: "Swap Location" });
  let dialog = await ask(page, native, swap, "Swap location");
  await expect(dialog).toContainText('"Saginaw dentists": dentist in Saginaw, MI');
  const field = dialog.getByLabel("New location");
  // prefilled with the current location, focused and selected (typing replaces it)
  await expect(field).toHaveValue("Saginaw, MI");
  await expect(field).toBeFocused();
  expect(await field.evaluate((el: HTMLInputElement) => [el.selectionStart, el.selectionEnd])).toEqual([
    0,
    "Saginaw, MI".length,
  ]);
  const problems = await dialogViolations(page, dialog, "swap location");

  // Escape: nothing changes, focus back on Swap Location
  await page.keyboard.type("Bay City, MI");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(swap).toBeFocused();
  await expect(row).toContainText("dentist in Saginaw, MI");
  // Cancel: the same; the next opening starts again from the saved location
  dialog = await ask(page, native, swap, "Swap location");
  await expect(field).toHaveValue("Saginaw, MI");
  await field.fill("Bay City, MI");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(swap).toBeFocused();
  await expect(row).toContainText("dentist in Saginaw, MI");
  expect(await savedLocation()).toEqual(["Saginaw, MI"]);

  // an empty location is ignored (spec section 5): no request, the button disabled, the dialog stays
  dialog = await ask(page, native, swap, "Swap location");
  let swapRequests = 0;
  page.on("request", (r) => {
    if (r.url().includes("leads.swapLocation")) swapRequests++;
  });
  await field.fill("   ");
  await field.press("Enter");
  await expect(dialog.getByRole("button", { name: "Swap location" })).toBeDisabled();
  await expect(dialog).toBeVisible();
  await expect(field).toHaveValue("   ");
  await expect(field).toBeFocused();
  const error = dialog.getByRole("alert");
  await expect(error).toHaveCount(0);
  expect(swapRequests).toBe(0);

  // an unknown place, sent with the button while the request is held: the button shows it is working
  // (disabled), then the error; the typed text stays and focus is back in the field, not on <body>
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(
    (url) => url.pathname.includes("leads.swapLocation"),
    async (route) => {
      await held;
      await route.continue();
    },
  );
  await field.fill("Atlantis, ZZ");
  await dialog.getByRole("button", { name: "Swap location" }).click();
  const working = dialog.getByRole("button", { name: "Swapping..." });
  await expect(working).toBeDisabled();
  await expect(working).toHaveAttribute("aria-busy", "true");
  await expect.poll(() => focusedTag(page)).not.toBe("button"); // the disabled button lost focus
  release();
  await expect(error).toContainText('Location swap failed: We could not find "Atlantis, ZZ"');
  await expect(field).toHaveValue("Atlantis, ZZ");
  await expect(field).toBeFocused();
  expect(await savedLocation()).toEqual(["Saginaw, MI"]);
  problems.push(...(await dialogViolations(page, dialog, "swap location with its error")));
  await page.unroute((url) => url.pathname.includes("leads.swapLocation"));

  // a valid location: the search runs there, the saved search moves, focus back on Swap Location
  await field.fill("Bay City, MI");
  await dialog.getByRole("button", { name: "Swap location" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(row).toContainText("dentist in Bay City, MI");
  await expect(page.getByTestId("summary-location")).toHaveText("Bay City, MI");
  await expect(page.getByLabel("Location", { exact: true })).toHaveValue("Bay City, MI");
  await expect(swap).toBeFocused();
  expect(await savedLocation()).toEqual(["Bay City, MI"]);

  expect(native).toEqual([]);
  expect(problems, problems.join("\n")).toEqual([]);
});

test("a confirmed action that fails keeps focus on its button (a note's Delete, Send anyway), not <body>", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const native = nativeDialogs(page);
  await registerVerifiedBusiness(page, { prefix: "confirm-fail", name: "Fay Fail", business: "Fail Co" });
  const origin = new URL(page.url()).origin;
  const headers = { origin };
  const created = await page.request.post("/api/contacts", {
    headers,
    data: {
      first_name: "Nina",
      last_name: "Noreply",
      email: `nina-${Date.now()}@example.com`,
      phone: "+14232623061",
      timezone: zoneAt(14),
    },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  const note = await page.request.post(`/api/contacts/${id}/notes`, {
    headers,
    data: { note_text: "A note that stays" },
  });
  expect(note.ok(), await note.text()).toBe(true);
  /** Holds the tRPC call `procedure` for a second (its button shows its spinner, disabled), then fails it. */
  const failSlowly = (procedure: string) =>
    page.route(
      (url) => url.pathname.includes(procedure),
      async (route) => {
        await new Promise((r) => setTimeout(r, 1_000));
        await route.abort("connectionreset");
      },
    );
  await page.goto(`/contacts/${id}`);
  await expect(page.getByRole("heading", { name: "Nina Noreply" })).toBeVisible();

  // ---- a note's delete fails: its Delete (disabled while the request ran) gets focus back ----
  await page.getByRole("tab", { name: /Notes/ }).click();
  const notes = page.getByTestId("note");
  await expect(notes).toHaveCount(1);
  const del = notes.first().getByRole("button", { name: "Delete note" });
  await failSlowly("crm.deleteNote");
  const dialog = await ask(page, native, del, "Delete this note?");
  await dialog.getByRole("button", { name: "Delete note" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(del).toBeDisabled();
  await expect(page.getByText(/Failed to delete the note|Network error/).first()).toBeVisible();
  await expect(del).toBeEnabled();
  await expect(notes).toHaveCount(1);
  await expect(del).toBeFocused();

  // ---- Send anyway fails: the Send SMS dialog stays with its error, focus on Send ----
  await page.getByRole("button", { name: "Send SMS" }).click();
  const sms = page.getByRole("dialog", { name: "Send SMS" });
  await sms.getByLabel("Message").fill("Hello Nina");
  const send = sms.getByRole("button", { name: "Send", exact: true });
  await failSlowly("crm.sendSms");
  await (await ask(page, native, send, "Send the SMS to Nina Noreply?"))
    .getByRole("button", { name: "Send anyway" })
    .click();
  await expect(sms.getByRole("alert")).toContainText("Failed to send SMS");
  await expect(sms).toBeVisible();
  await expect(sms.getByLabel("Message")).toHaveValue("Hello Nina");
  await expect(send).toBeFocused();

  expect(native).toEqual([]);
});
