import { expect, test } from "@playwright/test";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";

/**
 * The development outbox's "Reply as ... / Send reply" form (simulating a texted STOP) was refused
 * while signed in: the page went out with Helmet's `Referrer-Policy: no-referrer`, so Chromium
 * posted the form with `Origin: null` and the same-origin check answered 403 "Cross-site request
 * refused". The page now sends `same-origin`, as the local billing pages do. The contact page then
 * shows the STOP beside the contact's SMS opt-in (crm.optOuts), and no longer after a START.
 */
test("the dev outbox's reply form sends a STOP while the user is signed in", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "outbox-reply", name: "Olga Outbox", business: "Olga Co" });
  const origin = new URL(page.url()).origin;
  // a number for this run (a STOP holds in every workspace; START at the end gives it back)
  const phone = `+1628555${9000 + Math.floor(Math.random() * 1000)}`;
  const made = await page.request.post("/api/contacts", {
    data: { first_name: "Rita", email: `rita-${Date.now()}@example.com`, phone, timezone: zoneAt(14) },
    headers: { origin },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const id = (await made.json()).contact.id as number;
  // a number STOPped by an earlier run on this database is given back first
  const start = () =>
    page.request.post("/api/webhooks/twilio/inbound", {
      form: { From: phone, To: "Pitchwise", Body: "START" },
      headers: { origin },
    });
  expect((await start()).ok()).toBe(true);
  const sent = await page.request.post(`/api/contacts/${id}/send-sms`, {
    data: { message: `Hello from the outbox ${Date.now()}` },
    headers: { origin },
  });
  expect(sent.ok(), await sent.text()).toBe(true);

  await page.goto(`/dev/outbox?channel=sms&to=${encodeURIComponent(phone)}`);
  const card = page.locator("article.msg").filter({ hasText: "Hello from the outbox" }).first();
  await card.getByRole("textbox").fill("STOP");
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/webhooks/twilio/inbound"));
  await card.getByRole("button", { name: "Send reply" }).click();
  const res = await answered;
  const twiml = await res.text();
  expect(res.status(), twiml).toBe(200);
  expect(twiml).not.toContain("Cross-site request refused");
  // the STOP took effect: the reply to the number confirms it and the next text is refused
  expect(twiml).toMatch(/unsubscribed/i);
  const again = await page.request.post(`/api/contacts/${id}/send-sms`, {
    data: { message: "After the STOP" },
    headers: { origin },
  });
  expect(again.ok()).toBe(false);

  // the contact page says so beside the SMS opt-in flag, which a STOP does not change by itself
  await page.goto(`/contacts/${id}`);
  const smsOptOut = page.getByTestId("opt-out-texts");
  await expect(smsOptOut).toContainText("Opted out");
  await expect(smsOptOut).toContainText("They replied STOP to a text from your sending number.");
  await expect(page.getByTestId("opt-out-emails")).toHaveCount(0);

  expect((await start()).ok()).toBe(true);
  await page.reload();
  await expect(page.getByText("SMS opt-in", { exact: true })).toBeVisible();
  await expect(page.getByTestId("opt-out-texts")).toHaveCount(0);
});
