import { expect, type Page, test } from "@playwright/test";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";

/**
 * Issue 14 end to end: a user with 10,000 imported contacts finds 300 of them, tags them, launches
 * an SMS campaign at that tag with explicit consent after reading the preflight numbers, saves the
 * same contacts as a segment and sends an email campaign to it; Back from a contact returns to the
 * same filtered list.
 */

/** A verified account on the Business plan. */
function register(page: Page) {
  return registerVerifiedBusiness(page, { prefix: "aud-e2e", name: "Audie Ence", business: "Aud Co" });
}

test("10,000 contacts: tag 300, SMS at the tag with consent and preflight numbers, email to a saved segment", async ({
  page,
}) => {
  test.setTimeout(600_000);
  await register(page);
  const day = zoneAt(13);
  const night = zoneAt(3);
  // 1..300 are "Tagme" businesses: 1-40 opted in to SMS, 41-60 without a phone, 61-90 where it is night
  const rows = Array.from({ length: 10_000 }, (_, k) => {
    const i = k + 1;
    const mine = i <= 300;
    return {
      first_name: `Person${i}`,
      last_name: "Aud",
      email: `person${i}@aud.example.com`,
      phone: mine && i > 40 && i <= 60 ? "" : `+1415${String(2_000_000 + i)}`,
      company: mine ? "Tagme Bakery" : "Other Inc",
      sms_opt_in: mine && i <= 40 ? "true" : "false",
      timezone: mine && i > 60 && i <= 90 ? night : day,
    };
  });
  const origin = new URL(page.url()).origin;
  const imported = await page.request.post("/api/contacts/import", {
    data: { contacts: rows },
    headers: { origin },
    timeout: 300_000,
  });
  expect(imported.ok(), await imported.text()).toBe(true);
  expect((await imported.json()).created).toBe(10_000);

  // ---- find the 300, tag them all ("select all N matching") ----
  await page.goto("/contacts");
  await expect(page.getByRole("heading", { name: "Contacts (10,000)" })).toBeVisible({ timeout: 60_000 });
  await page.getByLabel("Search contacts").fill("tagme");
  await page.getByLabel("Search contacts").press("Enter");
  await expect(page).toHaveURL(/search=tagme/);
  // the heading keeps the workspace's count; the matches are said beside the list
  await expect(page.getByRole("heading", { name: "Contacts (10,000)" })).toBeVisible();
  await expect(page.getByTestId("match-count")).toHaveText("300 contacts match “tagme”");
  await page.getByRole("checkbox", { name: "Select all" }).check();
  await page.getByRole("button", { name: "Select all 300 matching" }).click();
  await expect(page.getByTestId("selected-count")).toHaveText("300 selected");
  await page.getByRole("button", { name: "Add Tag" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("New tag name").fill("Spring300");
  await dialog.getByRole("button", { name: "Create" }).click();
  await dialog.getByLabel("Tag", { exact: true }).selectOption({ label: "Spring300" });
  await dialog.getByRole("button", { name: "Add Tag" }).click();
  await expect(page.getByText("Tagged 300 contacts")).toBeVisible({ timeout: 60_000 });
  // the tags column shows it; the tag filter finds the same 300
  await expect(page.getByRole("cell", { name: "Spring300" }).first()).toBeVisible();

  // ---- Back from a contact returns to the same list ----
  // (an import's contacts share one created_at and are listed by id, which follows the lock order
  // of the insert, lower(email): any of the listed ones will do)
  await page
    .getByRole("link", { name: /^Person\d+ Aud$/ })
    .first()
    .click();
  await expect(page).toHaveURL(/\/contacts\/\d+$/);
  await page.goBack();
  await expect(page).toHaveURL(/search=tagme/);
  await expect(page.getByLabel("Search contacts")).toHaveValue("tagme");
  await expect(page.getByTestId("match-count")).toHaveText("300 contacts match “tagme”");

  // ---- save the filter as a segment ----
  await page.getByRole("button", { name: "Save as segment" }).click();
  await page.getByLabel("Segment name").fill("Tagme bakeries");
  await page.getByRole("button", { name: "Save segment" }).click();
  await expect(page.getByText('Saved segment "Tagme bakeries"')).toBeVisible();
  await page.getByRole("button", { name: "Segments" }).click();
  await expect(page.getByRole("dialog").getByText("300 contacts")).toBeVisible();
  await page.keyboard.press("Escape");

  // ---- SMS at the tag: preflight, consent as its own step, launch ----
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Spring SMS");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Message").fill("Hi {{first_name|there}}, spring treats at Aud Co.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.locator("label").filter({ hasText: "Segment, tag, stage or status" }).click();
  await page.getByLabel("Send to contacts by").selectOption("tag");
  await page.getByLabel("Tag", { exact: true }).selectOption({ label: "Spring300 (300)" });
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("preflight-audience")).toHaveText("300", { timeout: 60_000 });
  await expect(page.getByTestId("preflight-now")).toHaveText("40");
  await expect(page.getByTestId("preflight-deferred")).toHaveText("0");
  await expect(page.getByTestId("preflight-skipped")).toHaveText("260");
  await expect(page.getByTestId("preflight-reasons")).toContainText("240 skipped: not opted in to SMS");
  await expect(page.getByTestId("preflight-reasons")).toContainText("20 skipped: no valid phone number");
  const consent = page.getByRole("group", { name: "Consent" });
  await consent.getByRole("checkbox", { name: /I have consent to text the 240 contacts/ }).check();
  await expect(page.getByTestId("preflight-now")).toHaveText("250", { timeout: 60_000 });
  await expect(page.getByTestId("preflight-deferred")).toHaveText("30");
  await expect(page.getByTestId("preflight-window")).toContainText("Sending starts");
  await expect(page.getByTestId("preflight-skipped")).toHaveText("20");
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByText("Campaign launched! Sending to 280 contacts.").first()).toBeVisible({
    timeout: 60_000,
  });

  // ---- email campaign to the saved segment ----
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("Segment mail");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Subject").fill("Spring at Aud Co");
  await page.getByLabel("Email body").fill("Hi {{first_name|there}}, see you soon.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.locator("label").filter({ hasText: "Segment, tag, stage or status" }).click();
  await page.getByLabel("Segment", { exact: true }).selectOption({ label: "Tagme bakeries (300)" });
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("preflight-audience")).toHaveText("300", { timeout: 60_000 });
  await expect(page.getByTestId("preflight-now")).toHaveText("300");
  await expect(page.getByTestId("preflight-skipped")).toHaveText("0");
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText("Sending to 300 contacts.")).toBeVisible();
});

test("a launch that would reach nobody cannot be launched and says why", async ({ page }) => {
  await register(page);
  const origin = new URL(page.url()).origin;
  const res = await page.request.post("/api/contacts/import", {
    data: {
      contacts: [
        { first_name: "Cold", email: "cold1@aud.example.com", phone: "+14152990001" },
        { first_name: "Cold", email: "cold2@aud.example.com", phone: "+14152990002" },
      ],
    },
    headers: { origin },
  });
  expect(res.ok()).toBe(true);
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Nobody SMS");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Message").fill("Hi");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("checkbox", { name: "Select all on this page" }).check();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Nobody would receive this campaign")).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText("2 not opted in to SMS")).toBeVisible();
  await expect(page.getByRole("button", { name: "Launch Campaign" })).toBeDisabled();
});
