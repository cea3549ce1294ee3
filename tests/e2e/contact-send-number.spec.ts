import { expect, test } from "@playwright/test";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";

/**
 * The contact page's Send SMS and Call dialogs say the number the server sends to (compliance
 * contactNumberFor: a text to the mobile first, a call to the phone first). The Call dialog said the
 * mobile and the call went to the phone (a QA pass).
 */

test("Send SMS names the mobile and its text shows on the Activity tab; Call names the phone", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "send-number", name: "Nina Number", business: "Number Co" });
  const origin = new URL(page.url()).origin;
  // two numbers of this test's own (a STOP another test left on a shared number would block the send)
  const seven = () => String(2_000_000 + Math.floor(Math.random() * 7_000_000));
  const phone = `+1212${seven()}`;
  const mobile = `+1646${seven()}`;
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    // opted in to texts, 2 pm where she is (no quiet hours in the way)
    data: {
      first_name: "Dana",
      last_name: "Dual",
      email: `dana-${Date.now()}@example.com`,
      phone,
      mobile,
      sms_opt_in: true,
      timezone: zoneAt(14),
    },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  await page.goto(`/contacts/${id}`);
  await expect(page.getByRole("heading", { name: "Dana Dual" })).toBeVisible();

  await page.getByRole("button", { name: "Send SMS" }).click();
  const sms = page.getByRole("dialog", { name: "Send SMS" });
  await expect(sms).toContainText(`To ${mobile}`);
  // sent, the text and its number show on the Activity tab (both sides of the conversation)
  const text = `See you at 3 ${Date.now()}`;
  await sms.getByLabel("Message").fill(text);
  await sms.getByRole("button", { name: "Send", exact: true }).click();
  await expect(sms).toHaveCount(0);
  await page.getByRole("tab", { name: "Activity" }).click();
  const sent = page.getByTestId("activity-sent").filter({ hasText: text });
  await expect(sent).toContainText(`To ${mobile}`);
  await page.getByRole("button", { name: "Call", exact: true }).click();
  const call = page.getByRole("dialog", { name: "Call" });
  await expect(call).toContainText(`To ${phone}`);
  await expect(call).not.toContainText(mobile);
});
