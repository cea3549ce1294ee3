import { expect, test } from "@playwright/test";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";

/**
 * The contact page's Send SMS, Send Email and Call dialogs offer the campaigns' merge-tag buttons and
 * preview the text with its tags filled in for the contact before it is sent; the server fills the
 * same tags (crm.messages), so the text in the outbox is the preview's. A QA pass found "Hi
 * {{first_name}}" sent with the braces.
 */
test("the send dialogs insert merge tags, preview them filled in, and the outbox gets the filled text", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "merge-tags", name: "Mia Merge", business: "Merge Co" });
  const origin = new URL(page.url()).origin;
  // a number of this test's own (a STOP another test left on a shared number would block the send)
  const mobile = `+1646${String(2_000_000 + Math.floor(Math.random() * 7_000_000))}`;
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    // opted in to texts and calls, 2 pm where she is (no quiet hours in the way)
    data: {
      first_name: "Nia",
      last_name: "Ortiz",
      email: `nia-${Date.now()}@example.com`,
      mobile,
      company: "Ortiz Bakery",
      custom_fields: { industry: "bakery" },
      sms_opt_in: true,
      call_opt_in: true,
      timezone: zoneAt(14),
    },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  await page.goto(`/contacts/${id}`);
  await expect(page.getByRole("heading", { name: "Nia Ortiz" })).toBeVisible();

  // SMS: typed text plus two inserted tags; the preview shows it filled in
  await page.getByRole("button", { name: "Send SMS" }).click();
  const sms = page.getByRole("dialog", { name: "Send SMS" });
  const box = sms.getByLabel("Message");
  await box.fill("Hi ");
  await box.press("End");
  await sms.getByRole("button", { name: /^Insert first name/ }).click();
  await expect(box).toHaveValue("Hi {{first_name|there}}");
  await box.press("End");
  await box.pressSequentially(", your {{industry}} order from ");
  await sms.getByRole("button", { name: /^Insert my business/ }).click();
  await expect(box).toHaveValue("Hi {{first_name|there}}, your {{industry}} order from {{my_business}}");
  await expect(sms.getByTestId("message-preview-body")).toHaveText("Hi Nia, your bakery order from Merge Co");
  await sms.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByText("SMS sent successfully!")).toBeVisible();
  const outbox = await page.request.get(`/api/dev/outbox?channel=sms&to=${encodeURIComponent(mobile)}`);
  const bodies = ((await outbox.json()).messages as { body: string }[]).map((m) => m.body);
  expect(bodies.some((b) => b.includes("Hi Nia, your bakery order from Merge Co"))).toBe(true);
  expect(bodies.some((b) => b.includes("{{"))).toBe(false);

  // email: the subject's tags are previewed too
  await page.getByRole("button", { name: "Send Email" }).click();
  const email = page.getByRole("dialog", { name: "Send Email" });
  await email.getByLabel("Subject").fill("For {{first_name}} at {{company}}");
  await email.getByLabel("Message").fill("Dear {{name}},\n\n{{nickname|Thanks}} from {{my_business}}");
  await expect(email.getByTestId("message-preview-subject")).toHaveText("For Nia at Ortiz Bakery");
  await expect(email.getByTestId("message-preview-body")).toHaveText(
    "Dear Nia Ortiz,\n\nThanks from Merge Co",
  );
  await email.getByRole("button", { name: "Cancel" }).click();

  // call: the script as it will be spoken
  await page.getByRole("button", { name: "Call", exact: true }).click();
  const call = page.getByRole("dialog", { name: "Call" });
  await call.getByLabel("Script (spoken by an AI voice)").fill("Hello {{company}}, this is {{my_business}}.");
  await expect(call.getByTestId("message-preview")).toContainText("What Nia Ortiz hears");
  await expect(call.getByTestId("message-preview-body")).toHaveText("Hello Ortiz Bakery, this is Merge Co.");
});

test("on a slow device, typing right after an inserted tag stays where it was typed", async ({ page }) => {
  // frames 300 ms apart, as on a busy phone: the insert used to place the caret after the tag one frame
  // later, so it moved the caret back under text typed in the meantime
  await page.addInitScript(() => {
    window.requestAnimationFrame = (cb) => window.setTimeout(() => cb(performance.now()), 300);
  });
  await registerVerifiedBusiness(page, { prefix: "merge-tags-slow", name: "Sol Slow", business: "Slow Co" });
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Slow frames");
  await page.getByRole("button", { name: "Next" }).click();
  const box = page.getByLabel("Message");
  await box.fill("Hi ");
  await box.press("End");
  await page.getByRole("button", { name: /^Insert first name/ }).click();
  // typed at once, in the box, over several of those frames
  await box.press("End");
  await box.pressSequentially(", your order is ready", { delay: 40 });
  await expect(box).toHaveValue("Hi {{first_name|there}}, your order is ready");
});
