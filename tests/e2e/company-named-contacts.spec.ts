import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * A business saved from lead search (a company, no first or last name, often no email) is listed
 * under its company's name, marked as a company, instead of "Unnamed contact" / "(no name)" (a QA
 * pass: on a phone the contacts list shows only Name and Stage, so such rows were indistinguishable),
 * in the contacts list, on its page and in the SMS campaign's contact picker. At 390 px, no serious
 * axe violation.
 */
test.use({ viewport: { width: 390, height: 844 } });

test("a contact with only a company is named by its company", async ({ page }) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  await registerVerifiedBusiness(page, { prefix: "company-name", name: "Cora Owner", business: "Cora Co" });
  const origin = new URL(page.url()).origin;
  const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
  const company = `Harbor Plumbing ${stamp}`;
  const made = await page.request.post("/api/contacts", {
    headers: { origin },
    data: {
      first_name: "Temp",
      email: `temp-${stamp}@example.com`,
      phone: `+1415555${String(Math.floor(1000 + Math.random() * 8999))}`,
      company,
    },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const id = (await made.json()).contact.id as number;
  // as lead search saves a business (crm.leads): the company, no person's name, no email
  await withE2eDb(
    (sql) =>
      sql`update contacts set first_name = null, last_name = null, email = null, lead_source = 'business_search' where id = ${id}`,
  );

  await page.goto("/contacts");
  const link = page.getByRole("link", { name: `${company} (company)` });
  await expect(link).toBeVisible();
  await expect(link).toHaveText(`${company} (company)`);
  await expect(page.getByText("Unnamed contact")).toHaveCount(0);
  expect(await seriousViolations(page, "contacts list with a company-named contact")).toEqual([]);

  await link.click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${company} (company)`);

  // the SMS campaign's picker
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill(`Picker ${stamp}`);
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Message").fill("Hi");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByRole("checkbox", { name: `Select ${company}` })).toBeVisible();
  await expect(page.getByRole("cell", { name: `${company} (company)` })).toBeVisible();
  await expect(page.getByText("(no name)")).toHaveCount(0);
});
