import { expect, test } from "@playwright/test";

/**
 * Issue 14 section 4: the workspace's phone country is chosen in Settings > Workspace, and from then
 * on a national number typed on Add Contact is read in that country (020 7946 0018 -> +442079460018).
 */
test("choosing United Kingdom in Settings > Workspace makes a national UK number save in E.164", async ({
  page,
  baseURL,
}) => {
  const email = `phone-country-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Gwen Grant", email, password: "correct-horse-battery", business_name: "Grant & Co" },
    headers: { origin: baseURL! },
  });
  expect(reg.ok(), await reg.text()).toBe(true);

  await page.goto("/settings?tab=workspace");
  const country = page.getByLabel("Phone country");
  await expect(country).toHaveValue("US");
  await expect(country.locator("option:checked")).toHaveText(/\(\+1\)$/);
  await country.selectOption("GB");
  await expect(country.locator("option:checked")).toHaveText("United Kingdom (+44)");
  await page.getByRole("button", { name: "Save workspace" }).click();
  await expect(page.getByText("Workspace settings saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Phone country")).toHaveValue("GB");

  await page.goto("/contacts");
  await page.getByRole("button", { name: "Add Contact" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("First name").fill("Harriet");
  await dialog.getByLabel("Email").fill(`harriet-${Date.now()}@example.co.uk`);
  await dialog.locator("#ac-phone").fill("020 7946 0018");
  await dialog.getByRole("button", { name: "Add Contact" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("020 7946 0018").first()).toBeVisible();

  const list = await page.request.get("/api/contacts?search=Harriet");
  expect(list.ok()).toBe(true);
  const contacts = (await list.json()).contacts as { first_name: string; phone_e164: string | null }[];
  expect(contacts.map((c) => [c.first_name, c.phone_e164])).toEqual([["Harriet", "+442079460018"]]);
});
