import { expect, test } from "@playwright/test";
import { registerVerified } from "./account-helpers";

/**
 * A Free plan's usage resets at midnight UTC on the 1st (billing.usage period_end). West of UTC that is
 * the afternoon of the day before: Settings > Billing said "Usage resets on Nov 30, 2026." on Nov 30 in
 * California (a QA pass read it as "today"); it now gives the moment in the viewer's zone, zone named.
 */

test.use({ timezoneId: "America/Los_Angeles" });

test("a Free plan's usage reset is shown as the moment it happens where the viewer is", async ({ page }) => {
  await registerVerified(page, { prefix: "reset-moment", name: "Fay Free", business: "Fay Co" });
  const usage = await page.request.get("/api/billing/usage");
  expect(usage.ok()).toBe(true);
  const periodEnd = new Date((await usage.json()).period_end as string);
  // the Free plan's period: the calendar month in UTC
  expect(periodEnd.getUTCDate()).toBe(1);
  expect(periodEnd.getUTCHours()).toBe(0);
  const expected = periodEnd.toLocaleString("en-US", {
    timeZone: "America/Los_Angeles",
    month: "short",
    day: "numeric",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });
  // 4 PM (PST) or 5 PM (PDT) on the last day of the month
  expect(expected).toMatch(/, [45]:00 PM P[SD]T$/);
  await page.goto("/settings?tab=billing");
  await expect(page.getByText(`Usage resets on ${expected}.`)).toBeVisible();
});
