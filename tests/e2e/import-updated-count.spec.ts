import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";

/**
 * A CSV import with "Update them with the file's values" says how many contacts it added and how many
 * it updated (a QA pass: re-importing a file of 7 existing contacts said "Imported: 7"). The import's
 * progress carries both (crm.importStatus `created`, `updated`). At 390 px, no serious axe violation.
 */
test.use({ viewport: { width: 390, height: 844 } });

async function importCsv(page: Page, csv: string, update: boolean) {
  await page.goto("/contacts");
  await page.getByRole("button", { name: "Import CSV" }).first().click();
  await page
    .getByTestId("import-file-input")
    .setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  if (update) await page.getByText("Update them with the file's values").click();
  await page.getByRole("button", { name: "Import", exact: true }).click();
  return page.getByRole("dialog");
}

test("a re-import that updates existing contacts counts them as updated, not imported", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  const origin = new URL(baseURL ?? "http://127.0.0.1:3100").origin;
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const reg = await page.request.post("/api/auth/register", {
    data: {
      name: "Ivo Importer",
      email: `reimport-${stamp}@example.com`,
      password: "correct-horse-battery",
      business_name: "Ivo Co",
    },
    headers: { origin },
  });
  expect(reg.ok()).toBe(true);
  const rows = Array.from({ length: 7 }, (_, i) => `Person${i},p${i}-${stamp}@reimport.example,Acme`);
  const first = await importCsv(page, ["First Name,Email,Company", ...rows].join("\n"), false);
  await expect(first.getByTestId("import-imported")).toHaveText("Imported: 7", { timeout: 60_000 });
  await expect(first.getByTestId("import-updated")).toHaveCount(0);

  // the same 7 with a new company, and one new person
  const again = [
    "First Name,Email,Company",
    ...rows.map((r) => r.replace(",Acme", ",Acme Ltd")),
    `Newbie,new-${stamp}@reimport.example,Acme Ltd`,
  ].join("\n");
  const second = await importCsv(page, again, true);
  await expect(second.getByTestId("import-updated")).toHaveText("Updated (already in your contacts): 7", {
    timeout: 60_000,
  });
  await expect(second.getByTestId("import-imported")).toHaveText("New contacts: 1");
  expect(await seriousViolations(page, "import result with updates")).toEqual([]);

  // the same file again: nothing in it differs, so nothing is updated (it said "Updated: 8")
  const third = await importCsv(page, again, true);
  await expect(third.getByTestId("import-skipped")).toHaveText(
    "Left as they were (already in your contacts): 8",
    {
      timeout: 60_000,
    },
  );
  await expect(third.getByTestId("import-updated")).toHaveCount(0);
  await expect(third.getByTestId("import-imported")).toHaveText("Imported: 0");
});
