import { expect, test } from "@playwright/test";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";

/**
 * The launch skips a text whose merge tags fill it past 1,600 characters, but the SMS builder's review
 * (the server's preflight) did not know the message: it promised two texts and the launch sent one.
 * The review now sends the message with the preflight and shows the skip with the other reasons, and
 * its count is the launch's.
 */
test("the SMS review counts and names the texts too long once filled in, as the launch then does", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "sms-long", name: "Lou Long", business: "Long Co" });
  const origin = new URL(page.url()).origin;
  const people = [
    { first_name: "Vera", last_name: "Verbose", company: "Longword ".repeat(23).slice(0, 200).trim() },
    { first_name: "Sam", last_name: "Short", company: "Tiny Tea" },
  ];
  for (const p of people) {
    const created = await page.request.post("/api/contacts", {
      headers: { origin },
      data: {
        ...p,
        email: `sms-long-${p.first_name}-${Date.now()}@example.com`,
        mobile: `+1646${String(2_000_000 + Math.floor(Math.random() * 7_000_000))}`,
        sms_opt_in: true,
        timezone: zoneAt(14),
      },
    });
    expect(created.ok(), await created.text()).toBe(true);
  }

  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Company shout-out");
  await page.getByRole("button", { name: "Next" }).click();
  // nine {{company}} tags: 1,799+ characters for Vera's 199-character company, a short text for Sam
  await page.getByLabel("Message").fill(Array(9).fill("{{company}}").join(" "));
  await page.getByRole("button", { name: "Next" }).click();
  for (const p of people)
    await page.getByRole("checkbox", { name: `Select ${p.first_name} ${p.last_name}` }).check();
  await page.getByRole("button", { name: "Next" }).click();

  const card = (label: string) =>
    page.locator("dl > div").filter({ has: page.getByText(label, { exact: true }) });
  await expect(page.getByTestId("preflight-reasons")).toContainText(
    "1 skipped: message too long once filled in (over 1,600 characters)",
  );
  await expect(page.getByTestId("preflight-skipped")).toHaveText("1");
  await expect(page.getByTestId("preflight-now")).toHaveText("1");
  await expect(card("Recipients")).toContainText("1");

  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(
    page.locator("#main-content").getByText("Campaign launched! Sending to 1 contact."),
  ).toBeVisible();
});
