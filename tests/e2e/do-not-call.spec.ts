import { expect, test } from "@playwright/test";
import { expectWhollyShown } from "./layout-helpers";

/**
 * The contact page's Do Not Call card (compliance: calls and ringless voicemail): it says whether the
 * contact may be called and why not, and the owner can mark the contact do not call and lift that mark.
 */
test("the contact page shows Do Not Call and lets the owner set and lift it", async ({ page, baseURL }) => {
  const origin = new URL(baseURL ?? "http://127.0.0.1:3100").origin;
  const email = `dnc-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Dana Owner", email, password: "correct-horse-battery", business_name: "Dana Co" },
  });
  expect(reg.ok()).toBe(true);
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Quinn", email: `q-${email}`, phone: "+1 415 555 0142", call_opt_in: true },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;

  await page.goto(`/contacts/${id}`);
  const card = page.getByTestId("do-not-call");
  const callOptIn = page.getByText("Call opt-in", { exact: true }).locator("xpath=following-sibling::dd[1]");
  await expect(callOptIn).toHaveText("Yes");
  await expect(card).toContainText("No: AI calls and voicemails may reach this contact");
  await card.getByRole("button", { name: "Mark Do Not Call" }).click();
  await expect(card).toContainText("Yes: no AI calls or ringless voicemails go to this contact's numbers.");
  await expect(card).toContainText("You marked this contact do not call.");
  // the call opt-in shown in Preferences follows the mark
  await expect(callOptIn).toHaveText("No");
  await card.getByRole("button", { name: "Remove Your Do Not Call Mark" }).click();
  await expect(card).toContainText("No: AI calls and voicemails may reach this contact");
  await expect(card.getByRole("button", { name: "Mark Do Not Call" })).toBeVisible();

  // on a phone (390 px) a long name and address stay inside the screen: the header's email used to
  // widen the page to 529 px (its text block could not shrink beside the avatar)
  const longEmail = `maximiliana.alexandrina.featherstonehaugh-${email.split("@")[0]}@extraordinarily-long-company-domain-name.example.com`;
  const long = await page.request.post("/api/contacts", {
    headers: { origin },
    data: {
      first_name: "Maximiliana-Alexandrina",
      last_name: "Featherstonehaugh-Montgomery",
      email: longEmail,
    },
  });
  expect(long.ok(), await long.text()).toBe(true);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/contacts/${(await long.json()).contact.id}`);
  const heading = page.getByRole("heading", {
    level: 1,
    name: "Maximiliana-Alexandrina Featherstonehaugh-Montgomery",
  });
  await expectWhollyShown(heading);
  await expectWhollyShown(heading.locator("xpath=following-sibling::p[1]"));
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
