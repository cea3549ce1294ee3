import { expect, test } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * QA: the SMS builder's review said "Message segments 2, Total messages 6" for three recipients of a
 * two-segment text, while the plan's monthly SMS meter counts one message per recipient (3). The
 * review now says both plainly: what counts against the plan this month (3 messages, with the plan's
 * limit and usage from the server's billing.usage) and what the carrier bills (6 segments).
 */

/** An Etc/GMT zone where it is now about 14:00, so quiet hours (8am-9pm local) never defer the SMS. */
function daytimeZone(): string {
  const o = ((14 - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

test("the SMS review counts plan messages per recipient and carrier segments apart", async ({ page }) => {
  const email = `seg-e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Seg Ment", email, password: "correct-horse-battery", business_name: "Seg Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  await withE2eDb(
    (sql) =>
      sql`update workspaces set plan = 'professional', subscription_status = 'active' where owner_id = (select id from users where email = ${email})`,
  );
  await page.goto("/dashboard");
  const origin = new URL(page.url()).origin;
  const names = ["Ada Lovelace", "Alan Turing", "Grace Hopper"];
  for (const [i, name] of names.entries()) {
    const [first_name, last_name] = name.split(" ");
    const created = await page.request.post("/api/contacts", {
      data: { first_name, last_name, email: `seg-${i}-${Date.now()}@example.com`, phone: `+1515343577${i}` },
      headers: { origin },
    });
    expect(created.ok(), await created.text()).toBe(true);
    const id = (await created.json()).contact.id as number;
    const put = await page.request.put(`/api/contacts/${id}`, {
      data: { timezone: daytimeZone(), sms_opt_in: true },
      headers: { origin },
    });
    expect(put.ok(), await put.text()).toBe(true);
  }

  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Two segments");
  await page.getByRole("button", { name: "Next" }).click();
  // 200 GSM-7 characters, with "Seg Co: " and "Reply STOP to opt out": 2 segments as sent
  await page
    .getByLabel("Message")
    .fill(`Hi, ${"spring offer at the shop this week ".repeat(6)}`.slice(0, 200));
  await expect(page.getByTestId("sms-counter")).toContainText("2 segments (GSM-7)");
  await page.getByRole("button", { name: "Next" }).click();
  for (const name of names) await page.getByRole("checkbox", { name: `Select ${name}` }).check();
  await page.getByRole("button", { name: "Next" }).click();

  const card = (label: string) =>
    page.locator("dl > div").filter({ has: page.getByText(label, { exact: true }) });
  await expect(card("Recipients")).toContainText("3");
  await expect(card("Message segments")).toContainText("2per message");
  await expect(card("Total messages")).toContainText("3one per recipient, counted by your plan");
  await expect(card("Segments billed")).toContainText("6by the carrier");
  const count = page.getByTestId("sms-plan-count");
  await expect(count).toContainText(
    "Counts against your plan this month: 3 SMS messages, one per recipient, however many segments each has.",
  );
  // the plan's facts are the server's (billing.usage): Professional, 500 SMS a month, none used yet
  await expect(count).toContainText(
    "Your Professional plan includes 500 SMS messages a month: 0 used so far, 500 left.",
  );
  await expect(count).toContainText(
    "Billed by the carrier: 2 segments per message, 6 segments in all. Segments do not count against your plan.",
  );
});
