import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * Opt-outs stay visible and stay off (a QA pass): a person who unsubscribed and replied STOP is not
 * opted back in by a CSV import's "yes" (the import dialog says how many such people the file held),
 * the contact page's timeline names each opt-out's channel and how, its edit form cannot tick the
 * flag, and Contacts > Opt-outs lists the workspace's suppression list (search, channel filter, the
 * contact's link, CSV export, no remove action), keyboard-usable, at 390 px, without serious axe
 * violations.
 */
test("opt-outs: the import keeps them off and says so, the timeline names them, the Opt-outs screen lists them", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const origin = new URL(baseURL ?? "http://127.0.0.1:3100").origin;
  const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
  await registerVerifiedBusiness(page, { prefix: "optouts-e2e", name: "Olive Owner", business: "Olive Co" });
  const una = `una-${stamp}@optouts.example`;
  const otto = `otto-${stamp}@optouts.example`;
  const mobile = `+1415555${String(Math.floor(1000 + Math.random() * 8999))}`;
  const made = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Una", last_name: "Subscribe", email: una, mobile, sms_opt_in: true },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const unaId = (await made.json()).contact.id as number;
  expect(
    (
      await page.request.post("/api/contacts", {
        headers: { origin },
        data: { first_name: "Otto", email: otto },
      })
    ).ok(),
  ).toBe(true);

  // the person's opt-outs as the unsubscribe page, a STOP reply and a keypress record them
  await withE2eDb(async (sql) => {
    const [c] = await sql<{ workspace_id: string }[]>`select workspace_id from contacts where id = ${unaId}`;
    const ws = c!.workspace_id;
    await sql`insert into suppressions (workspace_id, channel, value, reason, source) values
      (${ws}, 'email', ${una}, 'unsubscribed', 'unsubscribe page'),
      (${ws}, 'sms', ${mobile}, 'stop_reply', 'twilio inbound'),
      (${ws}, 'voice', ${mobile}, 'keypress_opt_out', 'call keypress')`;
    await sql`update contacts set email_opt_in = false, sms_opt_in = false where id = ${unaId}`;
    await sql`insert into activities (workspace_id, contact_id, activity_type, metadata) values
      (${ws}, ${unaId}, 'opted_out', ${sql.json({ source: "unsubscribe page", opt_in_before: true })}),
      (${ws}, ${unaId}, 'opted_out', ${sql.json({ channel: "sms", keyword: "stop", opt_in_before: true })}),
      (${ws}, ${unaId}, 'opted_out', ${sql.json({ channel: "voice", method: "keypress", digit: "9" })})`;
  });

  // a CSV import updating both with "yes": Una stays opted out, and the dialog says so
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Import CSV" }).first().click();
  const csv = ["First Name,Email,Email Opt In,SMS Opt In", `Una,${una},yes,yes`, `Otto,${otto},yes,yes`].join(
    "\n",
  );
  await page
    .getByTestId("import-file-input")
    .setInputFiles({ name: "optouts.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByText("Update them with the file's values").click();
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const dialog = page.getByRole("dialog");
  // both were in the contacts already, none new (they read "Imported: 2" before): Otto's SMS opt-in
  // is updated; Una's row changes nothing (her opt-ins stay off), so she is left as she was
  await expect(dialog.getByTestId("import-updated")).toHaveText("Updated (already in your contacts): 1", {
    timeout: 60_000,
  });
  await expect(dialog.getByTestId("import-skipped")).toHaveText(
    "Left as they were (already in your contacts): 1",
  );
  await expect(dialog.getByTestId("import-imported")).toHaveText("New contacts: 0");
  await expect(
    dialog.getByText(
      "1 person in this file opted out earlier: their opt-in stays off. Only they can opt back in.",
    ),
  ).toBeVisible();
  await expect(dialog.getByTestId("import-opted-out")).toContainText("Line 2:");
  await dialog.getByRole("button", { name: "Close" }).last().click();

  // the contact page: the flags say No, the timeline names each opt-out, the edit cannot tick them
  await page.goto(`/contacts/${unaId}`);
  const emailOptIn = page
    .getByText("Email opt-in", { exact: true })
    .locator("xpath=following-sibling::dd[1]");
  await expect(emailOptIn).toContainText("No");
  await page.getByRole("tab", { name: "Activity" }).click();
  await expect(page.getByText("Unsubscribed from email (unsubscribe page)")).toBeVisible();
  await expect(page.getByText("Opted out of SMS (replied STOP)")).toBeVisible();
  await expect(page.getByText("Opted out of calls (pressed 9)")).toBeVisible();
  await page.getByRole("tab", { name: "Overview" }).click();
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  await expect(page.locator("#edit-email_opt_in")).toBeDisabled();
  await expect(page.locator("#edit-email_opt_in")).not.toBeChecked();
  await expect(page.locator("#edit-sms_opt_in")).toBeDisabled();
  await expect(page.locator("#edit-call_opt_in")).toBeDisabled();

  // Contacts > Opt-outs
  await loadAxe(page);
  await page.goto("/contacts");
  await page.getByRole("link", { name: "Opt-outs" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Opt-outs" })).toBeVisible();
  await expect(page.getByTestId("opt-outs-read-only")).toHaveText(
    "Only the person can opt back in (for texts, by replying START), so opt-outs cannot be removed here.",
  );
  const table = page.getByRole("region", { name: "Opt-outs" });
  await expect(table.getByRole("row")).toHaveCount(4);
  const emailRow = table.getByRole("row").filter({ hasText: una });
  await expect(emailRow).toContainText("Email");
  await expect(emailRow).toContainText("unsubscribed (unsubscribe page)");
  await expect(table.getByRole("row").filter({ hasText: "replied STOP" })).toContainText(mobile);
  await expect(table.getByRole("row").filter({ hasText: "pressed 9" })).toContainText("Calls");
  expect(await page.getByRole("button", { name: /remove|delete/i }).count()).toBe(0);
  expect(await seriousViolations(page, "opt-outs")).toEqual([]);

  // keyboard: the search field, the channel filter, then the contact's link
  await page.getByLabel("Search").focus();
  await page.keyboard.type("replied");
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(page.getByTestId("opt-outs-count")).toHaveText("1 opt-out match");
  await page.getByLabel("Search").fill("");
  await page.getByLabel("Channel").selectOption("email");
  await expect(table.getByRole("row")).toHaveCount(2);
  await page.getByLabel("Search").fill("nobody-at-all");
  await expect(page.getByText("No opt-outs match")).toBeVisible();
  await page.getByLabel("Search").fill("");
  await page.getByLabel("Channel").selectOption("");
  await expect(table.getByRole("row")).toHaveCount(4);

  // the CSV export (the same filter as the screen)
  const href = await page.getByRole("link", { name: "Export CSV" }).getAttribute("href");
  const download = await page.request.get(href ?? "");
  expect(download.status()).toBe(200);
  const text = await download.text();
  expect(text).toContain("channel,address,reason,source,how,opted_out_at,contact_id,contact_name");
  expect(text).toContain(una);
  expect(text).toContain("Una Subscribe");

  // at 390 px the page does not scroll sideways (the table scrolls in its own focusable region)
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("heading", { level: 1, name: "Opt-outs" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousViolations(page, "opt-outs 390")).toEqual([]);

  await emailRow.getByRole("link", { name: "Una Subscribe" }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/contacts/${unaId}$`));
});
