import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { memberJoins } from "./team-helpers";

/**
 * A member schedules a campaign and is removed before it goes out: it is paused (campaigns.departure,
 * `pause_cause` 'departure'), and the owner's screens say why in the client's words: the campaigns
 * list "its launcher left" under the status (not "by your plan"), the report's banner "Paused: its
 * launcher left the workspace" with the stored reason, no plan link. Resume is reached and pressed by
 * keyboard from the report's status line, and puts the campaign back on its schedule.
 */

const DAY = 24 * 3600_000;

test("a removed member's scheduled campaign reads 'its launcher left' in the list and the report; resume by keyboard", async ({
  page,
  browser,
  baseURL,
}) => {
  await loadAxe(page);
  await registerVerifiedBusiness(page, {
    prefix: "ana-depart",
    name: "Ana Owner",
    business: "Depart Roofing",
  });
  const mel = await memberJoins(page, browser, baseURL!, {
    prefix: "mel-depart",
    name: "Mel Member",
    business: "Mel Design",
  });
  const name = `Mel's spring offer ${Date.now().toString(36)}`;
  // Mel, working in Ana's workspace since she accepted, schedules a campaign for tomorrow
  const launched = await mel.tab.request.post("/api/campaigns/email/launch", {
    headers: { origin: baseURL! },
    data: {
      campaignName: name,
      subject: "Spring offer",
      body: "Hi there",
      contacts: [{ name: "Rita", email: `rita-depart-${Date.now()}@example.com` }],
      scheduledAt: new Date(Date.now() + DAY).toISOString(),
    },
  });
  expect(launched.ok(), await launched.text()).toBe(true);
  await mel.context.close();

  // Ana removes her; the confirmation says what happens to her scheduled campaigns
  await page.goto("/settings?tab=team");
  await page
    .getByTestId("member-row")
    .filter({ hasText: "Mel Member" })
    .getByRole("button", { name: "Remove" })
    .click();
  const confirm = page.getByRole("dialog");
  await expect(confirm).toContainText("campaigns they scheduled that have not started are paused");
  await confirm.getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByTestId("member-row").filter({ hasText: "Mel Member" })).toHaveCount(0);

  // the list: paused, because its launcher left (not the plan)
  await page.goto("/campaigns");
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("paused");
  await expect(row.getByText("its launcher left", { exact: true })).toBeVisible();
  await expect(row.getByText("by your plan")).toHaveCount(0);
  await expect(row).toContainText("by Mel Member");

  await row.getByRole("link", { name }).click();
  await expect(page).toHaveURL(/\/campaigns\/\d+$/);
  const banner = page.getByRole("alert").filter({ hasText: "Paused: its launcher left the workspace" });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(
    "Paused because Mel Member, who scheduled it, was removed from the workspace. Resume it to send it as scheduled (at once if that time has passed), or cancel it.",
  );
  await expect(page.getByText("Paused by your plan")).toHaveCount(0);
  await expect(banner.getByRole("link")).toHaveCount(0);
  expect(await seriousViolations(page, "report of a campaign paused by a departure")).toEqual([]);

  // Resume, by keyboard from the status line
  await page.getByTestId("campaign-status-line").focus();
  const resume = page.getByRole("button", { name: "Resume" });
  for (let i = 0; i < 6 && !(await resume.evaluate((b) => b === document.activeElement)); i++)
    await page.keyboard.press("Tab");
  await expect(resume).toBeFocused();
  await page.keyboard.press("Enter");
  // its time is tomorrow: back on its schedule, the banner gone
  const status = page.getByTestId("campaign-status-line");
  await expect(status).toContainText("scheduled");
  await expect(status).toContainText("sends ");
  await expect(page.getByText("Paused: its launcher left the workspace")).toHaveCount(0);
});
