import { expect, test } from "@playwright/test";

/**
 * The breadcrumb of each page under /contacts names that page (a QA pass: /contacts/opt-outs read
 * "Contacts > Contact Details", since every /contacts/<word> path was taken for a contact's page).
 */
test("pages under Contacts have their own breadcrumb; a contact's page reads Contact Details", async ({
  page,
  baseURL,
}) => {
  const origin = new URL(baseURL ?? "http://127.0.0.1:3100").origin;
  const email = `crumbs-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Cruz Crumb", email, password: "correct-horse-battery", business_name: "Cruz Co" },
    headers: { origin },
  });
  expect(reg.ok()).toBe(true);
  const made = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Nina", email: `nina-${email}` },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const id = (await made.json()).contact.id as number;

  const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
  for (const [path, label] of [
    ["/contacts/opt-outs", "Opt-outs"],
    ["/contacts/map", "Map View"],
    ["/contacts/business-search", "Business Search"],
    [`/contacts/${id}`, "Contact Details"],
  ] as const) {
    await page.goto(path);
    await expect(crumbs.getByRole("listitem")).toHaveText(["Dashboard", "Contacts", label]);
    await expect(crumbs.locator("[aria-current=page]")).toHaveText(label);
  }
});
