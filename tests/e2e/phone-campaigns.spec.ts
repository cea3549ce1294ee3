import { expect, type Page, test } from "@playwright/test";
import { registerVerified, registerVerifiedBusiness } from "./account-helpers";

/**
 * The campaign builders on a phone (390 x 844, touch), as a one-person business uses them (helper
 * "phone").
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, reducedMotion: "reduce" });

/** A Business account (Pat's Plumbing) that imports `contacts` (JSON import); returns how many it created. */
async function businessWithContacts(page: Page, prefix: string, contacts: Record<string, string>[]) {
  await registerVerifiedBusiness(page, { prefix, name: "Pat Phone", business: "Pat's Plumbing" });
  const imported = await page.request.post("/api/contacts/import", {
    headers: { origin: new URL(page.url()).origin },
    data: { contacts },
  });
  expect(imported.ok(), await imported.text()).toBe(true);
  return (await imported.json()).created as number;
}

test("email builder: Send Test keeps keyboard focus on its button", async ({ page }) => {
  const email = await registerVerified(page, {
    prefix: "phone-test-email",
    name: "Pat Phone",
    business: "Pat's Plumbing",
  });
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("Spring tune-up offer");
  await page.getByRole("button", { name: "Next" }).tap();
  await page.getByLabel("Subject").fill("Hi {{first_name|there}}, spring tune-up");
  await page.getByLabel("Email body").fill("Book a spring tune-up this month and get 15% off.");
  const sendTest = page.getByRole("button", { name: "Send Test" });
  await sendTest.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Test email sent to ${email}`)).toBeVisible();
  // disabled while it sends ("Sending..."): focus fell to <body>, so the next Tab started at the top
  await expect(sendTest).toBeFocused();
});

test("SMS builder: the contact picker offers no contact whose number the import found invalid", async ({
  page,
}) => {
  const stamp = Date.now();
  const created = await businessWithContacts(page, "phone-sms-picker", [
    {
      first_name: "Vera",
      last_name: "Valid",
      email: `vera-${stamp}@example.com`,
      phone: "+1 415 555 0132",
    },
    { first_name: "Bruno", last_name: "Broken", email: `bruno-${stamp}@example.com`, phone: "555-1234" },
    // more than a page of the picker (25), so it offers "Select all N matching"
    ...Array.from({ length: 25 }, (_, i) => ({
      first_name: "Client",
      last_name: String(i + 1).padStart(2, "0"),
      email: `client${i + 1}-${stamp}@example.com`,
      phone: `+1 415 555 01${String(40 + i)}`,
    })),
  ]);
  // the import kept Bruno with his number as typed, reported invalid
  expect(created).toBe(27);

  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Spring tune-up");
  await page.getByRole("button", { name: "Next" }).tap();
  await page.getByLabel("Message").fill("Hi {{first_name|there}}, spring tune-ups are 15% off this week.");
  await page.getByRole("button", { name: "Next" }).tap();
  await expect(page.getByRole("checkbox", { name: /^Select Client \d\d$/ })).not.toHaveCount(0);
  // he was listed (his raw "555-1234" shown as his number) and, picked, was skipped at review as
  // "no valid phone number"
  const search = page.getByLabel("Search contacts to add");
  await search.fill("Bruno");
  await search.press("Enter");
  await expect(page.getByText("No contacts match")).toBeVisible();
  await expect(page.getByRole("checkbox", { name: "Select Bruno Broken" })).toHaveCount(0);
  await search.fill("");
  await search.press("Enter");
  await expect(page.getByTestId("picker-reach-note")).toHaveText(
    "Contacts without a valid phone number are not listed: this campaign cannot reach them.",
  );
  await page.getByRole("checkbox", { name: "Select all on this page" }).tap();
  await expect(page.getByTestId("picker-selected")).toHaveText("25 selected");
  // every contact with a valid number, Bruno not among them, and the review agrees
  await page.getByRole("button", { name: "Select all 26 matching" }).tap();
  await expect(page.getByTestId("picker-selected")).toHaveText("26 selected");
  // the wizard's Next (the picker's page navigation has a Next too)
  await page.getByRole("button", { name: "Next" }).last().tap();
  await expect(page.getByTestId("preflight-audience")).toHaveText("26");
  await expect(page.getByTestId("preflight-reasons")).toContainText("not opted in to SMS");
  await expect(page.getByTestId("preflight-reasons")).not.toContainText("no valid phone number");

  // the email builder's picker lists him: he has an email
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("Spring tune-up");
  await page.getByRole("button", { name: "Next" }).tap();
  await page.getByLabel("Subject").fill("Spring tune-up");
  await page.getByLabel("Email body").fill("Book a spring tune-up this month and get 15% off.");
  await page.getByRole("button", { name: "Next" }).tap();
  await page.getByText("Choose from contacts").tap();
  await expect(page.getByRole("checkbox", { name: "Select Vera Valid" })).toBeVisible();
  await search.fill("Bruno");
  await search.press("Enter");
  await expect(page.getByRole("checkbox", { name: "Select Bruno Broken" })).toBeVisible();
});

test("SMS and call pickers show the number each campaign uses, not an invalid one", async ({ page }) => {
  const stamp = Date.now();
  const created = await businessWithContacts(page, "phone-picker-number", [
    // an office line the import found invalid, and a valid mobile
    {
      first_name: "Mia",
      last_name: "Mobile",
      email: `mia-${stamp}@example.com`,
      phone: "555-1234",
      mobile: "+1 415 555 0177",
    },
    // two valid numbers: a text goes to the mobile, a call to the phone
    {
      first_name: "Dan",
      last_name: "Double",
      email: `dan-${stamp}@example.com`,
      phone: "+1 415 555 0188",
      mobile: "+1 415 555 0199",
    },
  ]);
  expect(created).toBe(2);

  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Spring tune-up");
  await page.getByRole("button", { name: "Next" }).tap();
  await page.getByLabel("Message").fill("Hi {{first_name|there}}, spring tune-ups are 15% off this week.");
  await page.getByRole("button", { name: "Next" }).tap();
  const mia = page.getByRole("row", { name: /Mia Mobile/ });
  const dan = page.getByRole("row", { name: /Dan Double/ });
  // the address shows under the name at 390 px
  await expect(mia.getByText("+1 415 555 0177").first()).toBeVisible();
  await expect(mia).not.toContainText("555-1234");
  await expect(dan.getByText("+1 415 555 0199").first()).toBeVisible();
  await expect(dan).not.toContainText("0188");

  await page.goto("/campaigns/call");
  await page.getByLabel("Campaign name").fill("Tune-up reminder");
  await page.getByRole("button", { name: "Next" }).tap();
  await page
    .getByLabel("Script (spoken by the AI voice)")
    .fill("Hi {{first_name|there}}, this is Pat's Plumbing.");
  await page.getByRole("button", { name: "Next" }).tap();
  await page.getByText("Choose from contacts").tap();
  await expect(mia.getByText("+1 415 555 0177").first()).toBeVisible();
  await expect(mia).not.toContainText("555-1234");
  await expect(dan.getByText("+1 415 555 0188").first()).toBeVisible();
  await expect(dan).not.toContainText("0199");
});
