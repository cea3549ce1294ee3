import { expect, type Page, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";

/**
 * A tag put on by mistake could not be taken off in the app: the list's bulk bar had only Add Tag and
 * the contact page's tag chips no remove control (the server's bulk `remove_tag` was unused).
 */
async function taggedContacts(page: Page, names: string[]) {
  const headers = { origin: new URL(page.url()).origin };
  const tag = await page.request.post("/api/contacts/tags", { headers, data: { name: "Wrong Tag" } });
  expect(tag.ok(), await tag.text()).toBe(true);
  const tagId = (await tag.json()).tag.id as number;
  const ids: number[] = [];
  for (const first_name of names) {
    const c = await page.request.post("/api/contacts", {
      headers,
      data: {
        first_name,
        last_name: "Tagged",
        email: `${first_name.toLowerCase()}-${Date.now()}@example.com`,
      },
    });
    expect(c.ok(), await c.text()).toBe(true);
    ids.push((await c.json()).contact.id as number);
  }
  const added = await page.request.post("/api/contacts/bulk/operation", {
    headers,
    data: { contactIds: ids, operation: "add_tag", data: { tag_id: tagId } },
  });
  expect(added.ok(), await added.text()).toBe(true);
  return ids;
}

test("the contacts list's bulk bar removes a tag from the selected contacts", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "untag-bulk", name: "Una Untag", business: "Untag Co" });
  await taggedContacts(page, ["Ada", "Bea", "Cy"]);
  await page.goto("/contacts");
  const rows = page.getByRole("row").filter({ hasText: "Tagged" });
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: "Wrong Tag" })).toHaveCount(3);
  for (const name of ["Ada Tagged", "Bea Tagged"])
    await page.getByRole("checkbox", { name: `Select ${name}` }).check();
  await page.getByRole("button", { name: "Remove Tag" }).click();
  const dialog = page.getByRole("dialog", { name: "Remove Tag from Contacts" });
  await dialog.getByLabel("Tag", { exact: true }).selectOption({ label: "Wrong Tag" });
  await dialog.getByRole("button", { name: "Remove Tag" }).click();
  await expect(page.getByText("Removed the tag from 2 contacts")).toBeVisible();
  await expect(rows.filter({ hasText: "Wrong Tag" })).toHaveCount(1);
  await expect(rows.filter({ hasText: "Cy Tagged" })).toContainText("Wrong Tag");
});

test("the contact page's tag chip has a remove button; focus stays on the tag row", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "untag-one", name: "Una Untag", business: "Untag Co" });
  const [id] = await taggedContacts(page, ["Dee"]);
  await page.goto(`/contacts/${id}`);
  const tags = page.getByTestId("contact-tags");
  await expect(tags).toContainText("Wrong Tag");
  const remove = tags.getByRole("button", { name: "Remove tag Wrong Tag" });
  await remove.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Removed the tag Wrong Tag")).toBeVisible();
  await expect(tags).not.toContainText("Wrong Tag");
  await expect(tags).toBeFocused();
  // the tag itself is kept, and the contact no longer carries it
  const detail = await page.request.get(`/api/contacts/${id}`);
  expect((await detail.json()).tags).toEqual([]);
});
