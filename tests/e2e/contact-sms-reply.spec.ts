import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";

/**
 * A contact's reply to a campaign text shows its words on the contact page's Activity tab (a QA pass:
 * the row read only "SMS reply received <date>", although crm.get sends the reply as the activity's
 * metadata.body). The reply is shown as text (markup in it is not markup), wraps however long it is
 * (a 390 px page does not scroll sideways), and the tab has no serious axe violation.
 */
test("the Activity tab shows the text of an SMS reply, as text and wrapped", async ({ page }) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  await registerVerifiedBusiness(page, { prefix: "sms-reply", name: "Rhea Reply", business: "Rhea Co" });
  const origin = new URL(page.url()).origin;
  const phone = `+1628555${1000 + Math.floor(Math.random() * 8000)}`;
  const headers = { origin };
  // a STOP left on this number by an earlier run is given back first
  const start = await page.request.post("/api/webhooks/twilio/inbound", {
    form: { From: phone, To: "Pitchwise", Body: "START" },
    headers,
  });
  expect(start.ok()).toBe(true);
  const made = await page.request.post("/api/contacts", {
    data: {
      first_name: "Ruth",
      email: `ruth-${Date.now()}@example.com`,
      phone,
      sms_opt_in: true,
      timezone: zoneAt(14),
    },
    headers,
  });
  expect(made.ok(), await made.text()).toBe(true);
  const id = (await made.json()).contact.id as number;
  const launch = await page.request.post("/api/campaigns/sms/launch", {
    data: {
      campaignName: `Reply test ${Date.now()}`,
      message: "Spring tune-ups are open this week",
      audience: { contactIds: [id] },
    },
    headers,
  });
  expect(launch.ok(), await launch.text()).toBe(true);

  // the contact replies from the dev outbox, as the QA tester did
  await expect
    .poll(
      async () => {
        await page.goto(`/dev/outbox?channel=sms&to=${encodeURIComponent(phone)}`);
        return page.locator("article.msg").filter({ hasText: "Spring tune-ups" }).count();
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  const longWord = "Supercalifragilisticexpialidocious".repeat(4);
  const reply = `Yes please <b>Tuesday</b> works, ${longWord} & thanks!`;
  const card = page.locator("article.msg").filter({ hasText: "Spring tune-ups" }).first();
  await card.getByRole("textbox").fill(reply);
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/webhooks/twilio/inbound"));
  await card.getByRole("button", { name: "Send reply" }).click();
  expect((await answered).status()).toBe(200);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/contacts/${id}`);
  await page.getByRole("tab", { name: "Activity" }).click();
  const row = page
    .getByRole("listitem")
    .filter({ hasText: "SMS reply received" })
    .filter({ hasText: "Tuesday" });
  await expect(row).toHaveCount(1);
  const quote = row.getByTestId("activity-reply");
  // the words as sent, markup shown as typed (not a <b> element)
  await expect(quote).toHaveText(reply);
  await expect(quote.locator("b")).toHaveCount(0);
  // the long word wraps inside the row: nothing runs past the 390 px screen
  const box = await quote.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  expect(await quote.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousViolations(page, "activity tab at 390 px")).toEqual([]);
});
