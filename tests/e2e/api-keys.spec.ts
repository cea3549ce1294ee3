import { expect, type Page, test } from "@playwright/test";
import { open } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { expectWhollyShown } from "./layout-helpers";

/**
 * Settings > API keys: each Revoke button says which key it revokes (a screen reader heard "Revoke,
 * Revoke" before), and revoking asks first in the app's dialog: Escape and Cancel keep the key and
 * give focus back to the button that opened the dialog; only the dialog's confirm revokes.
 */

type Key = { id: string; name: string; prefix: string; revoked_at: string | null };

async function listKeys(page: Page): Promise<Key[]> {
  const res = await page.request.get("/api/api-keys");
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()).apiKeys as Key[];
}

test("each Revoke button names its key and asks before revoking; Escape and Cancel keep it", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "keys", name: "Kit Keys", business: "Keys Co" });
  const origin = new URL(page.url()).origin;
  for (const name of ["Zapier sync", "Website form"]) {
    const res = await page.request.post("/api/api-keys", {
      headers: { origin },
      data: { name, scopes: ["contacts:read"] },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
  const keys = await listKeys(page);
  const zapier = keys.find((k) => k.name === "Zapier sync")!;
  const website = keys.find((k) => k.name === "Website form")!;

  await open(page, "/settings?tab=api-keys");
  const list = page.getByRole("list", { name: "API keys" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  // one button per key, each named after its own key (name and prefix), the visible word first
  const buttons = list.getByRole("button");
  await expect(buttons).toHaveCount(2);
  const names = await buttons.evaluateAll((els) => els.map((el) => el.getAttribute("aria-label") ?? ""));
  expect(names.sort()).toEqual(
    [
      `Revoke API key Website form (${website.prefix}...)`,
      `Revoke API key Zapier sync (${zapier.prefix}...)`,
    ].sort(),
  );
  const revokeZapier = list.getByRole("button", { name: `Revoke API key Zapier sync (${zapier.prefix}...)` });
  await expect(revokeZapier).toHaveAccessibleName(`Revoke API key Zapier sync (${zapier.prefix}...)`);

  // from the keyboard: the dialog asks, Escape cancels, focus comes back to the button
  await revokeZapier.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Revoke API key Zapier sync?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(zapier.prefix);
  expect((await listKeys(page)).every((k) => k.revoked_at === null)).toBe(true);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(revokeZapier).toBeFocused();
  expect((await listKeys(page)).every((k) => k.revoked_at === null)).toBe(true);

  // Cancel does the same
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(revokeZapier).toBeFocused();
  expect((await listKeys(page)).every((k) => k.revoked_at === null)).toBe(true);

  // the dialog's confirm revokes that key only
  await revokeZapier.click();
  await dialog.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page.getByText("API key revoked. Requests with it are refused from now on.")).toBeVisible();
  const zapierRow = list.getByRole("listitem").filter({ hasText: "Zapier sync" });
  await expect(zapierRow.getByText("Revoked", { exact: true })).toBeVisible();
  await expect(revokeZapier).toHaveCount(0);
  await expect(
    list.getByRole("button", { name: `Revoke API key Website form (${website.prefix}...)` }),
  ).toBeVisible();
  const after = await listKeys(page);
  expect(after.find((k) => k.id === zapier.id)?.revoked_at).not.toBeNull();
  expect(after.find((k) => k.id === website.id)?.revoked_at).toBeNull();
  // focus is not dropped to the page when the button it was on goes: it is on the revoked key's row
  await expect(zapierRow.getByText("Zapier sync")).toBeFocused();

  // on a phone (390 px) a long key name is shown whole, not cut to "Zapier sync for the whole..."
  const longName = "Wholesale order intake form on the bakery website (Zapier)";
  const created = await page.request.post("/api/api-keys", {
    headers: { origin },
    data: { name: longName, scopes: ["contacts:read"] },
  });
  expect(created.ok(), await created.text()).toBe(true);
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "/settings?tab=api-keys");
  await expectWhollyShown(list.getByTestId("api-key-row").filter({ hasText: longName }).locator("p").first());
});
