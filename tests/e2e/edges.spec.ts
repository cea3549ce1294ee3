import { expect, type Page, test } from "@playwright/test";
import { silentWav } from "../integration/studio-helpers";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";
import { withE2eDb } from "./e2e-info";
import { expectWhollyShown } from "./layout-helpers";

/**
 * Issue 14's rough edges, as a user meets them: the import dialog shows rows kept with an invalid
 * phone apart from rejected rows; after 'select all N matching' an unticked contact is left out (the
 * contacts list's bulk actions and the campaign contact picker); the voicemail builder picks a
 * recording from the media library; one navigation drawer on phones.
 */

/** A verified account on the Business plan. */
function register(page: Page) {
  return registerVerifiedBusiness(page, { prefix: "edges-e2e", name: "Eddie Edges", business: "Edges Co" });
}

test("import dialog: rows kept without a valid phone are listed apart from rejected rows", async ({
  page,
}) => {
  await register(page);
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Import CSV" }).first().click();
  const csv = [
    "First Name,Email,Phone",
    "Ada,ada@edges.example,+14155550101",
    "Bad,bad@edges.example,(188)169-1674x58692",
    "Nomail,,+14155550102",
    "Worse,worse@edges.example,12",
  ].join("\n");
  await page
    .getByTestId("import-file-input")
    .setInputFiles({ name: "edges.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-imported")).toHaveText("Imported: 3", { timeout: 60_000 });
  const dialog = page.getByRole("dialog");
  await expect(
    dialog.getByText("2 contacts kept without a valid phone number (they won't get SMS or calls)"),
  ).toBeVisible();
  await expect(dialog.getByTestId("import-phone-invalid")).toContainText("Lines 3, 5.");
  await expect(dialog.getByTestId("import-errors")).toHaveText("Errors: 1");
  await expect(dialog.getByText("1 row rejected (not imported):")).toBeVisible();
  await expect(dialog.getByTestId("import-rejected-rows")).toHaveText("Line 4: Missing email");
  const download = await page.request.get(
    (await dialog
      .getByRole("link", { name: "Download rejected rows and numbers to fix (CSV)" })
      .getAttribute("href")) ?? "",
  );
  const report = (await download.text()).trim().split(/\r?\n/);
  expect(report[0]).toBe("line,reason,row,imported");
  expect(report.filter((l) => l.endsWith(",yes")).map((l) => l.split(",")[0])).toEqual(["3", "5"]);
  expect(report.filter((l) => l.endsWith(",no")).map((l) => l.split(",")[0])).toEqual(["4"]);
  // not a clean import: the dialog stays open to be read
  await page.waitForTimeout(2500);
  await expect(dialog).toBeVisible();
});

test("import dialog: a website or time zone the contact rules refuse is left empty, the row imported and listed", async ({
  page,
}) => {
  await register(page);
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Import CSV" }).first().click();
  const csv = [
    "First Name,Email,Website,Time Zone",
    "Ada,ada@fields.example,ada.example,America/Chicago",
    "Jay,jay@fields.example,javascript:alert(1),Mars/Base",
  ].join("\n");
  await page
    .getByTestId("import-file-input")
    .setInputFiles({ name: "fields.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-imported")).toHaveText("Imported: 2", { timeout: 60_000 });
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByText("1 contact imported with a field left empty")).toBeVisible();
  const cleared = dialog.getByTestId("import-fields-cleared").getByRole("listitem");
  await expect(cleared).toHaveText([
    /^Line 3: Website 'javascript:alert\(1\)' must be a web address .*: contact imported without it$/,
    /^Line 3: Timezone 'Mars\/Base' must be a time zone name .*: contact imported without it$/,
  ]);
  await expect(dialog.getByTestId("import-errors")).toHaveCount(0);
  await expect(dialog.getByRole("link", { name: "Download rows with fields to fix (CSV)" })).toBeVisible();
  // not a clean import: the dialog stays open to be read
  await page.waitForTimeout(2500);
  await expect(dialog).toBeVisible();
});

test("import dialog: bytes the file's encoding could not read are listed with the field they are in", async ({
  page,
}) => {
  await register(page);
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Import CSV" }).first().click();
  // UTF-8 (more well-formed multi-byte sequences than stray bytes) with a stray Windows-1252 'é' (0xE9)
  const csv = Buffer.concat([
    Buffer.from(
      "First Name,Email,Company\nZoë Müller,zoe@enc-e2e.example,Ñuñez\nAda,ada@enc-e2e.example,Caf",
      "utf8",
    ),
    Buffer.from([0xe9]),
    Buffer.from("\n", "utf8"),
  ]);
  await page
    .getByTestId("import-file-input")
    .setInputFiles({ name: "encoding.csv", mimeType: "text/csv", buffer: csv });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-imported")).toHaveText("Imported: 2", { timeout: 60_000 });
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByText("Some characters of 1 field could not be read")).toBeVisible();
  await expect(dialog.getByTestId("import-encoding").getByRole("listitem")).toHaveText([
    /^Company: some bytes are not valid UTF-8 and were read as \uFFFD, on line 3: /,
  ]);
  await expect(dialog.getByTestId("import-fields-cleared")).toHaveCount(0);
  // the report lists them too (line, reason with the field and its lines)
  const report = dialog.getByRole("link", { name: "Download the fields to check (CSV)" });
  await expect(report).toBeVisible();
  const csv2 = await page.request.get((await report.getAttribute("href")) as string);
  expect(await csv2.text()).toMatch(/Company: some bytes are not valid UTF-8/);
  // not a clean import: the dialog stays open to be read
  await page.waitForTimeout(2500);
  await expect(dialog).toBeVisible();
});

test("select all matching, untick one: bulk actions and the voicemail picker leave it out; recording from the library", async ({
  page,
}) => {
  test.setTimeout(300_000);
  await register(page);
  const origin = new URL(page.url()).origin;
  const day = zoneAt(13);
  const rows = Array.from({ length: 60 }, (_, k) => ({
    first_name: `Edge${String(k + 1).padStart(2, "0")}`,
    last_name: "Person",
    email: `edge${k + 1}@edges.example`,
    phone: `+1415555${String(1000 + k)}`,
    timezone: day,
  }));
  const imported = await page.request.post("/api/contacts/import", {
    data: { contacts: rows },
    headers: { origin },
  });
  expect(imported.ok(), await imported.text()).toBe(true);

  // ---- contacts list: all 60 matching, minus one, get the new stage ----
  await page.goto("/contacts");
  await expect(page.getByRole("heading", { name: "Contacts (60)" })).toBeVisible({ timeout: 60_000 });
  await page.getByRole("checkbox", { name: "Select all" }).check();
  await page.getByRole("button", { name: "Select all 60 matching" }).click();
  await expect(page.getByTestId("selected-count")).toHaveText("60 selected");
  const first = page.getByRole("checkbox", { name: /^Select Edge\d+ Person$/ }).first();
  const excludedName = ((await first.getAttribute("aria-label")) ?? "").replace(/^Select /, "");
  await first.uncheck();
  await expect(first).not.toBeChecked();
  await expect(page.getByTestId("selected-count")).toHaveText("59 selected");
  await page.getByRole("button", { name: "Update Stage" }).click();
  const stageDialog = page.getByRole("dialog");
  await expect(stageDialog.getByText("Set the lifecycle stage of 59 contacts.")).toBeVisible();
  await stageDialog.getByLabel("Lifecycle stage").selectOption("customer");
  await stageDialog.getByRole("button", { name: "Update Stage" }).click();
  await expect(page.getByText("Updated 59 contacts to customer")).toBeVisible();
  const customers = await (await page.request.get("/api/contacts?stage=customer&limit=200")).json();
  expect(customers.pagination.total).toBe(59);
  expect(
    customers.contacts.map(
      (c: { first_name: string; last_name: string }) => `${c.first_name} ${c.last_name}`,
    ),
  ).not.toContain(excludedName);

  // ---- a recording in the media library (uploaded; the worker makes its MP3) ----
  const up = await page.request.post("/api/audio/upload", {
    headers: { origin },
    multipart: {
      name: "Spring greeting",
      audio: { name: "greeting.wav", mimeType: "audio/wav", buffer: silentWav(1) },
    },
  });
  expect(up.ok(), await up.text()).toBe(true);
  let recordingId = 0;
  await expect
    .poll(
      async () => {
        const media = (await (await page.request.get("/api/media/list")).json()).media as {
          id: number;
          name: string;
          processing_status: string;
        }[];
        const m = media.find((x) => x.name === "Spring greeting");
        recordingId = m?.id ?? 0;
        return m?.processing_status;
      },
      { timeout: 120_000 },
    )
    .toBe("ready");

  // ---- voicemail builder, opened from the recording's 'Use in Campaign' in the library: the recording
  // is preselected; then the contact picker with an exclusion ----
  await page.goto("/studio?tab=library");
  await page
    .getByTestId("media-card")
    .filter({ hasText: "Spring greeting" })
    .getByRole("button", { name: "Use in Campaign" })
    .click();
  await expect(page).toHaveURL(new RegExp(`/campaigns/voice\\?audioId=${recordingId}$`));
  await page.getByLabel("Campaign name").fill("Spring voicemail");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByRole("link", { name: "Record one in Studio" })).toHaveAttribute(
    "href",
    /\/studio\?tab=record-audio/,
  );
  const recording = page.getByLabel("Recording from your media library (optional)");
  await expect(recording.locator("option", { hasText: "Spring greeting" })).toHaveCount(1);
  await expect(recording).toHaveValue(String(recordingId));
  await expect(page.getByLabel("Preview of Spring greeting")).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("checkbox", { name: "Select all on this page" }).check();
  await expect(page.getByTestId("picker-selected")).toHaveText("25 selected");
  await page.getByRole("button", { name: "Select all 60 matching" }).click();
  await expect(page.getByTestId("picker-selected")).toHaveText("60 selected");
  await page
    .getByRole("checkbox", { name: /^Select Edge\d+ Person$/ })
    .nth(1)
    .uncheck();
  await expect(page.getByTestId("picker-selected")).toHaveText("59 selected");
  await expect(page.getByText(/except 1 unticked contact/)).toBeVisible();
  await page.locator("[data-wizard-next]").click();
  await expect(page.getByTestId("preflight-audience")).toHaveText("59", { timeout: 60_000 });
  await page.getByRole("group", { name: "Consent" }).getByRole("checkbox").check();
  await expect(page.getByTestId("preflight-now")).toHaveText("59", { timeout: 60_000 });
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText("Sending to 59 contacts.")).toBeVisible();
  const [campaign] = await withE2eDb(
    (sql) => sql`select content from campaigns where name = 'Spring voicemail' order by id desc limit 1`,
  );
  expect(campaign.content.audioMediaId).toBe(recordingId);

  // a link naming no recording of this workspace preselects nothing: the picker says text to speech
  await page.goto(`/campaigns/voice?audioId=${recordingId + 1_000_000}`);
  await page.getByLabel("Campaign name").fill("Stale link");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(recording.locator("option", { hasText: "Spring greeting" })).toHaveCount(1);
  await expect(recording).toHaveValue("");
});

test("one navigation drawer on phones: opens, navigates, closes", async ({ page }) => {
  await register(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Open navigation" }).click();
  const drawer = page.getByRole("dialog", { name: "Navigation" });
  await expect(drawer).toBeVisible();
  await drawer.getByRole("link", { name: "All Contacts", exact: true }).click();
  await expect(page).toHaveURL(/\/contacts$/);
  await expect(drawer).toBeHidden();
  // Escape closes it and focus returns to the menu button
  await page.getByRole("button", { name: "Open navigation" }).click();
  await expect(drawer).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
  await expect(page.getByRole("button", { name: "Open navigation" })).toBeFocused();

  // the contact cards (Grid view) fit the phone and show long values whole: the one-column grid used to
  // grow to the longest line (the page was 844 px wide) and each line was cut with an ellipsis
  const created = await page.request.post("/api/contacts", {
    headers: { origin: new URL(page.url()).origin },
    data: {
      first_name: "Maximiliana-Alexandrina",
      last_name: "Featherstonehaugh-Montgomery",
      email: "maximiliana.alexandrina.featherstonehaugh@extraordinarily-long-company-domain.example.com",
      company: "International Consolidated Widgets and Gadgets Holdings LLC",
    },
  });
  expect(created.ok(), await created.text()).toBe(true);
  await page.reload();
  await page.getByRole("button", { name: "Grid view" }).click();
  const card = page.getByRole("link").filter({ hasText: "Featherstonehaugh-Montgomery" });
  for (const line of await card.locator("p").all()) await expectWhollyShown(line);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
