import { expect, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";

/**
 * The contact page's Send SMS and Call dialogs say the number the server sends to (compliance
 * contactNumberFor: a text to the mobile first, a call to the phone first). The Call dialog said the
 * mobile and the call went to the phone (a QA pass).
 */

test("Send SMS names the mobile, Call names the phone", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "send-number", name: "Nina Number", business: "Number Co" });
  const origin = new URL(page.url()).origin;
  // two numbers of this test's own (a STOP another test left on a shared number would block the send)
  const seven = () => String(2_000_000 + Math.floor(Math.random() * 7_000_000));
  const phone = `+1212${seven()}`;
  const mobile = `+1646${seven()}`;
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Dana", last_name: "Dual", email: `dana-${Date.now()}@example.com`, phone, mobile },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  await page.goto(`/contacts/${id}`);
  await expect(page.getByRole("heading", { name: "Dana Dual" })).toBeVisible();

  await page.getByRole("button", { name: "Send SMS" }).click();
  await expect(page.getByRole("dialog", { name: "Send SMS" })).toContainText(`To ${mobile}`);
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "Call", exact: true }).click();
  const call = page.getByRole("dialog", { name: "Call" });
  await expect(call).toContainText(`To ${phone}`);
  await expect(call).not.toContainText(mobile);
});
