import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";

/**
 * Add Contact opens empty every time (a QA pass): a cancelled entry's values and its error came back
 * with the next opening, focus at the end of the old first name, so the next contact was saved as
 * "MartaZoë". Cancel and Escape both discard the entry; keyboard only, at 390 px.
 */
test.use({ viewport: { width: 390, height: 844 } });

test("Add Contact forgets a cancelled entry and its error", async ({ page, baseURL }) => {
  await loadAxe(page);
  const origin = new URL(baseURL ?? "http://127.0.0.1:3100").origin;
  const email = `addreset-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Ada Adder", email, password: "correct-horse-battery", business_name: "Ada Co" },
    headers: { origin },
  });
  expect(reg.ok()).toBe(true);
  await page.goto("/contacts");
  const opener = page.getByRole("button", { name: "Add Contact" }).first();
  const dialog = page.getByRole("dialog", { name: "Add Contact" });
  const first = dialog.getByLabel("First name");
  const mail = dialog.getByLabel("Email");

  // a refused entry, then Cancel
  await opener.click();
  await first.fill("Marta");
  await mail.fill("marta@");
  await mail.press("Enter");
  await expect(dialog.getByText("Please enter a valid email address")).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);

  // opened again (from the keyboard): empty, no error, focus in an empty first name
  await opener.focus();
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await expect(first).toHaveValue("");
  await expect(mail).toHaveValue("");
  await expect(first).toBeFocused();
  await expect(dialog.getByText("Please enter a valid email address")).toHaveCount(0);
  expect(await seriousViolations(page, "add contact reopened")).toEqual([]);

  // Escape discards an entry too
  await page.keyboard.type("Otto");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await opener.click();
  await expect(first).toHaveValue("");

  // the next contact is saved under its own name
  await page.keyboard.type("Zoë");
  await mail.fill(`zoe-${email}`);
  await dialog.getByRole("button", { name: "Add Contact" }).click();
  await expect(dialog).toHaveCount(0);
  const list = await page.request.get(`/api/contacts?search=${encodeURIComponent(`zoe-${email}`)}`);
  const contacts = (await list.json()).contacts as { first_name: string }[];
  expect(contacts.map((c) => c.first_name)).toEqual(["Zoë"]);
});
