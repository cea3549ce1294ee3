import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { verifyEmailThroughOutbox } from "./account-helpers";
import { withE2eDb } from "./e2e-info";
import { expectWhollyShown } from "./layout-helpers";

/**
 * The campaign report's times in the viewer's zone (a half-hour zone, Asia/Kolkata): the recipients
 * table's Sent cell has the date when it is not today (its full date, time and zone as tooltip and
 * accessible text), and "Activity over time" has every bucket (zeros between), hours on the
 * viewer's own hour with the date once they cross a day, and days for a span over 3 days.
 */
test.use({ timezoneId: "Asia/Kolkata", reducedMotion: "reduce" });

const origin = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;

type Times = { sent: string; opened?: string };

/**
 * A verified user's email campaign to one address per entry of `times`, sent by the worker and the
 * local provider; once the simulated deliveries have landed, each row's times are set to its entry
 * (delivered at its send, opened when given, nothing else). Returns the campaign id and addresses.
 */
async function campaignWithTimes(page: Page, times: Times[]) {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const email = `times-${stamp}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Tim Zone", email, password: "correct-horse-battery", business_name: "Zone Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  const addresses = times.map((_, i) => `to${i}-${stamp}@example.com`);
  const res = await page.request.post("/api/campaigns", {
    headers: { origin },
    data: {
      name: "Times",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { csv: addresses.map((a) => ({ email: a })) },
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  const id = (await res.json()).campaign.id as number;
  // sent, completed, and the local provider's simulated deliveries applied (it only touches 'sent' rows)
  await expect(async () => {
    const [row] = await withE2eDb(
      (
        sql,
      ) => sql`select c.status, count(r.id) filter (where r.status in ('queued', 'sending', 'sent'))::int as open
        from campaigns c join campaign_recipients r on r.campaign_id = c.id where c.id = ${id} group by c.status`,
    );
    expect(row).toEqual({ status: "completed", open: 0 });
  }).toPass({ timeout: 60_000 });
  await withE2eDb(async (sql) => {
    for (const [i, t] of times.entries())
      await sql`update campaign_recipients set status = ${t.opened ? "opened" : "delivered"},
        sent_at = ${t.sent}, delivered_at = ${t.sent}, opened_at = ${t.opened ?? null}, clicked_at = null,
        replied_at = null, failed_at = null
        where campaign_id = ${id} and address = ${addresses[i] as string}`;
  });
  return { id, addresses };
}

const ticks = (page: Page) =>
  page.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value").allTextContents();

test("hours in a half-hour zone: the viewer's hours, dated once they cross a day; Sent cells dated", async ({
  page,
}) => {
  // 10:10 AM and 9:40 PM IST on Mar 10, an open at 6:30 AM IST on Mar 11 (20 h 20 min: hour buckets)
  const { id, addresses } = await campaignWithTimes(page, [
    { sent: "2025-03-10T04:40:39Z", opened: "2025-03-11T01:00:00Z" },
    { sent: "2025-03-10T16:10:00Z" },
  ]);
  await page.goto(`/campaigns/${id}`);
  await expect(page.getByText("Activity over time (per hour)")).toBeVisible();
  // 10 AM Mar 10 to 6 AM Mar 11 IST: 21 hours, each on the hour where the viewer is, dated
  await expect.poll(async () => (await ticks(page)).length).toBeGreaterThan(2);
  const labels = await ticks(page);
  for (const l of labels) expect(l).toMatch(/^Mar 1[01], \d{1,2}:00 (AM|PM)$/);
  expect(labels[0]).toBe("Mar 10, 10:00 AM");
  expect(labels.at(-1)).toBe("Mar 11, 6:00 AM");
  // the Sent column: not "10:10:39 AM" alone but the date too, as it is not today
  const sentCell = (address: string) =>
    page.getByRole("row").filter({ hasText: address }).getByRole("cell").nth(4);
  await expect(sentCell(addresses[0] as string)).toContainText(/^Mar 10(, 2025)?, 10:10 AM/);
  await expect(sentCell(addresses[1] as string)).toContainText(/^Mar 10(, 2025)?, 9:40 PM/);
  const sent0 = page
    .getByRole("row")
    .filter({ hasText: addresses[0] as string })
    .getByTestId("recipient-sent-at");
  await expect(sent0.locator("[aria-hidden=true]")).toHaveText(/^Mar 10(, 2025)?, 10:10 AM$/);
  await expect(sent0.locator(".sr-only")).toHaveText("Monday, March 10, 2025 at 10:10:39 AM GMT+5:30");
  await expect(sent0).toHaveAttribute("title", /Monday, March 10, 2025 at 10:10:39 AM GMT\+5:30/);
  await expect(sent0).toHaveAttribute("datetime", "2025-03-10T04:40:39.000Z");
  const sent1 = page
    .getByRole("row")
    .filter({ hasText: addresses[1] as string })
    .getByTestId("recipient-sent-at");
  await expect(sent1.locator("[aria-hidden=true]")).toHaveText(/^Mar 10(, 2025)?, 9:40 PM$/);
  // the tooltip names the bucket's whole hour and zone
  const chart = page.locator(".recharts-wrapper").first();
  const box = await chart.boundingBox();
  if (!box) throw new Error("no chart");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3);
  await expect(page.locator(".recharts-tooltip-label")).toHaveText(
    /^(Mon|Tue), Mar 1[01], 2025, \d{1,2}:00 (AM|PM) – \d{1,2}:00 (AM|PM) GMT\+5:30$/,
  );
});

test("days past 3 days at 390 px: one point per day, zeros between; today's Sent is the time alone; no serious axe violations", async ({
  page,
}) => {
  await loadAxe(page);
  await page.setViewportSize({ width: 390, height: 844 });
  const now = Date.now();
  const day = 86_400_000;
  const { id, addresses } = await campaignWithTimes(page, [
    { sent: new Date(now - 5 * day).toISOString(), opened: new Date(now - 1000).toISOString() },
    { sent: new Date(now - 1000).toISOString() },
  ]);
  await page.goto(`/campaigns/${id}`);
  await expect(page.getByText("Activity over time (per day)")).toBeVisible();
  const sentToday = page
    .getByRole("row")
    .filter({ hasText: addresses[1] as string })
    .getByTestId("recipient-sent-at");
  await expect(sentToday.locator("[aria-hidden=true]")).toHaveText(/^\d{1,2}:\d{2} (AM|PM)$/);
  const sentBefore = page
    .getByRole("row")
    .filter({ hasText: addresses[0] as string })
    .getByTestId("recipient-sent-at");
  await expect(sentBefore.locator("[aria-hidden=true]")).toHaveText(
    /^[A-Z][a-z]{2} \d{1,2}(, \d{4})?, \d{1,2}:\d{2} (AM|PM)$/,
  );
  // six calendar days in Kolkata (5 days ago .. today), each drawn, labelled with its date
  const fmt = (ms: number) =>
    new Date(ms).toLocaleDateString("en-US", { timeZone: "Asia/Kolkata", month: "short", day: "numeric" });
  await expect.poll(async () => (await ticks(page)).length).toBeGreaterThan(1);
  const labels = await ticks(page);
  for (const l of labels) expect(l).toMatch(/^[A-Z][a-z]{2} \d{1,2}(, \d{4})?$/);
  expect(labels[0]).toMatch(new RegExp(`^${fmt(now - 5 * day)}`));
  expect(labels.at(-1)).toMatch(new RegExp(`^${fmt(now)}`));
  // every day is a point of the "sent" line: 6, not 2
  await expect(page.locator(".recharts-line-dots").first().locator(".recharts-dot")).toHaveCount(6);
  await expectWhollyShown(page.locator(".recharts-wrapper").first());
  expect(await seriousViolations(page, `campaign ${id} at 390 px`)).toEqual([]);
});
