import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

// axe reads settled colours (no dialog or toast half-way through its entry animation)
test.use({ reducedMotion: "reduce" });

/**
 * Settings > API keys and Webhooks on a plan without API access. The API refuses the workspace's keys
 * (402) and its endpoints get no events, but both tabs used to look as on Business: the forms, the
 * keys listed as working, the endpoints switched on; nothing said why requests failed. Now a notice
 * above the forms says so, with the owner's way out (See plans; Billing for a held plan).
 */
test("API keys and Webhooks say when the plan has no API access, with the owner's way out", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  const email = await registerVerifiedBusiness(page, {
    prefix: "noapi",
    name: "Nora Noapi",
    business: "Noapi Shop",
  });
  const setPlan = (plan: string, status: string) =>
    withE2eDb(
      (sql) =>
        sql`update workspaces set plan = ${plan}, subscription_status = ${status} where owner_id = (select id from users where email = ${email})`,
    );
  const notice = page.getByRole("alert").filter({ hasText: "API access is not included" });

  // Business: no notice
  await page.goto("/settings?tab=api-keys");
  await expect(page.getByRole("button", { name: "Create key" })).toBeVisible();
  await expect(notice).toHaveCount(0);

  // Professional: both tabs say it, with See plans for the owner
  await setPlan("professional", "active");
  for (const [tab, sentence] of [
    ["api-keys", "requests with the keys below are refused"],
    ["webhooks", "no events are sent to the endpoints below"],
  ] as const) {
    await page.goto(`/settings?tab=${tab}`);
    await expect(notice).toContainText("API access is not included in the Professional plan");
    await expect(notice).toContainText(sentence);
    await expect(notice.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
  }
  expect(await seriousViolations(page, "webhooks tab, no API access")).toEqual([]);

  // a Business subscription left unpaid counts as Free: pay in Billing
  await setPlan("business", "unpaid");
  await page.goto("/settings?tab=api-keys");
  await expect(notice).toContainText("API access is not included in the Free plan");
  await expect(notice).toContainText("while your Business subscription waits for a payment");
  await expect(notice.getByRole("link", { name: "Pay in Billing to restore Business" })).toBeVisible();
});
