import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";

/**
 * Business Search > "Start a campaign" (QA): the businesses ticked there arrive as the SMS campaign's
 * audience, selected in its Select Contacts step ("2 selected from Business Search", their phones),
 * not "0 selected" among all contacts; the owner can still change it; a reload keeps the same
 * selection, the sidebar's plain link opens an empty builder, and a hand-off with fewer contacts than
 * businesses chosen says how many arrived. At 390 px, driven from the keyboard where it matters.
 */
test.use({ viewport: { width: 390, height: 844 }, reducedMotion: "reduce" });

/** Sideways page scroll at the current width (the layout rule: nothing wider than the screen). */
const sideways = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

/** Steps 1 and 2 of the SMS builder, then Next to Select Contacts. */
async function toSelectContacts(page: Page) {
  await page.getByLabel("Campaign name").fill("Denver dentists");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Message").fill("Hi {{company|there}}, a quick question about your practice.");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByRole("heading", { name: "Select Contacts" })).toBeVisible();
}

test("Start a campaign: the chosen businesses are the SMS campaign's selected audience", async ({ page }) => {
  test.setTimeout(300_000);
  await loadAxe(page);
  await registerVerifiedBusiness(page, { prefix: "bs-camp", name: "Bea Search", business: "Bea Co" });
  const origin = new URL(page.url()).origin;
  // a contact of the workspace the campaign must not pick up
  const other = await page.request.post("/api/contacts", {
    data: { first_name: "Olga", last_name: "Other", email: "olga@other.example.com", phone: "+14152990007" },
    headers: { origin },
  });
  expect(other.ok(), await other.text()).toBe(true);

  await page.goto("/contacts/business-search");
  await expect(page.getByRole("heading", { name: "Business Lead Search" })).toBeVisible();
  await page.getByLabel("Location").fill("Denver, CO");
  await page.getByLabel("Business type").fill("dentist");
  await page.getByLabel("Business type").press("Enter");
  await expect(page.getByTestId("results-summary")).toBeVisible({ timeout: 60_000 });

  // two results with a phone (the card's line "(303) 555-0123")
  const phoneLine = /^\+?[\d\s().-]{10,}$/;
  const withPhone = page.getByTestId("lead-card").filter({ has: page.locator("p", { hasText: phoneLine }) });
  const chosen: { name: string; phone: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const card = withPhone.nth(i);
    const name = ((await card.locator("p.font-semibold").first().textContent()) ?? "").trim();
    const phoneText = (await card.locator("p", { hasText: phoneLine }).first().textContent()) ?? "";
    chosen.push({ name, phone: phoneText.replace(/\D/g, "").slice(-4) });
    expect(chosen[i]!.phone).toMatch(/^\d{4}$/);
    await card.getByRole("checkbox", { name: `Select ${name}` }).check();
  }
  await expect(page.getByTestId("selected-results")).toHaveText("2 selected");
  // from the keyboard
  await page.getByRole("button", { name: "Start a campaign" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Added to contacts: 2 created, 0 updated, 0 skipped")).toBeVisible();
  await expect(page).toHaveURL(/\/campaigns\/sms$/);

  await toSelectContacts(page);
  const picker = page.getByTestId("picker-selected");
  await expect(picker).toHaveText("2 selected");
  await expect(page.getByTestId("audience-hand-off")).toBeVisible();
  await expect(page.getByText("2 selected from Business Search")).toBeVisible();
  for (const c of chosen) {
    await expect(page.getByRole("checkbox", { name: `Select ${c.name}` })).toBeChecked();
    // the business's phone is the contact's
    await expect(page.getByRole("row").filter({ hasText: c.name })).toContainText(c.phone);
  }
  await expect(page.getByRole("checkbox", { name: "Select Olga Other" })).not.toBeChecked();
  expect(await sideways(page)).toBeLessThanOrEqual(0);

  // the owner can still change it: untick one, tick it again
  await page.getByRole("checkbox", { name: `Select ${chosen[1]!.name}` }).uncheck();
  await expect(picker).toHaveText("1 selected");
  await page.getByRole("checkbox", { name: `Select ${chosen[1]!.name}` }).check();
  await expect(picker).toHaveText("2 selected");

  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("preflight-audience")).toHaveText("2", { timeout: 60_000 });

  // a reload keeps the entry's selection (shown again, nothing sent)
  await page.reload();
  // steps 1 and 2 say where the audience comes from
  await expect(page.getByTestId("sms-hand-off")).toContainText("2 contacts from Business Search");
  await toSelectContacts(page);
  await expect(picker).toHaveText("2 selected");
  await expect(page.getByText("2 selected from Business Search")).toBeVisible();

  // Cancel, then the dashboard's SMS Campaign card: an empty builder (the hand-off stays with its entry)
  await page.getByRole("link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page
    .getByRole("link", { name: /SMS Campaign/ })
    .first()
    .click();
  await expect(page).toHaveURL(/\/campaigns\/sms$/);
  await expect(page.getByRole("heading", { name: "Campaign Details" })).toBeVisible();
  await expect(page.getByTestId("sms-hand-off")).toHaveCount(0);
  await toSelectContacts(page);
  await expect(picker).toHaveText("0 selected");
  await expect(page.getByTestId("audience-hand-off")).toHaveCount(0);

  // fewer contacts than businesses chosen: said, not silently dropped; an invalid hand-off selects nobody
  const ids = (
    (await (await page.request.get("/api/contacts?search=Other")).json()) as { contacts: { id: number }[] }
  ).contacts.map((c) => c.id);
  expect(ids.length).toBe(1);
  await page.evaluate((id) => {
    history.pushState(
      {
        campaignAudience: { from: "business-search", contactIds: [id], chosen: 3 },
        __TSR_index: 0,
        key: "handoff",
        __TSR_key: "handoff",
      },
      "",
      "/campaigns/sms",
    );
  }, ids[0]!);
  await page.reload();
  await toSelectContacts(page);
  await expect(picker).toHaveText("1 selected");
  await expect(page.getByTestId("audience-hand-off")).toContainText(
    "1 of the 3 businesses you chose in Business Search arrived: 2 businesses could not be added",
  );
  expect(await seriousViolations(page, "hand-off note")).toEqual([]);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  await page.evaluate(() => {
    history.pushState(
      {
        campaignAudience: { from: "business-search", contactIds: ["1; drop"], chosen: 1 },
        __TSR_index: 0,
        key: "handoff",
        __TSR_key: "handoff",
      },
      "",
      "/campaigns/sms",
    );
  });
  await page.reload();
  await toSelectContacts(page);
  await expect(picker).toHaveText("0 selected");
  await expect(page.getByTestId("audience-hand-off")).toHaveCount(0);
});
