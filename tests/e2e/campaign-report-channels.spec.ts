import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness, zoneAt } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * The campaign report shows what the channel records (a QA pass: a call campaign's report showed
 * "Opened" and "Clicked" cards and chart lines, which a phone call never has): a call campaign's
 * answered, voicemail (machine), no answer, busy and talk time; an SMS campaign's reply text in the
 * recipients table, as text (it is the replier's), the whole of a long one behind a keyboard-operable
 * disclosure. Both at 390 px (an iPhone 12-15) with no horizontal page scroll and no serious axe
 * violation.
 */
test.use({ reducedMotion: "reduce" });

/**
 * `n` different numbers for this run: 555 9000-9999 (outside the integration tests' suffixes) in an
 * area code no other spec texts or STOPs (312 Chicago, 646 New York).
 */
function phones(area: string, n: number): string[] {
  const base = Math.floor(Math.random() * 1000);
  return Array.from({ length: n }, (_, i) => `+1${area}555${9000 + ((base + i) % 1000)}`);
}

/**
 * A Business workspace's campaign on `channel` to `n` new contacts at `numbers` (a daytime zone,
 * consent confirmed), sent by the worker and the local providers, waited for until it completed and the
 * local providers' simulated deliveries landed (no row left queued, sending or sent). Returns its id
 * and the rows' addresses in id order.
 */
async function completedCampaign(
  page: Page,
  channel: "voice" | "sms",
  n: number,
  content: object,
  numbers = phones(channel === "voice" ? "312" : "646", n),
) {
  await registerVerifiedBusiness(page, {
    prefix: `report-${channel}`,
    name: "Rey Port",
    business: "Report Co",
  });
  const origin = new URL(page.url()).origin;
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const made = await page.request.post("/api/contacts", {
      data: {
        first_name: `P${i}`,
        email: `p${i}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
        phone: numbers[i],
        timezone: zoneAt(14),
      },
      headers: { origin },
    });
    expect(made.ok(), await made.text()).toBe(true);
    ids.push((await made.json()).contact.id as number);
  }
  const res = await page.request.post("/api/campaigns", {
    headers: { origin },
    data: {
      name: `Report ${channel}`,
      channel,
      content,
      recipients: { contactIds: ids },
      includeNotOptedIn: true,
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  const id = (await res.json()).campaign.id as number;
  await expect(async () => {
    const [row] = await withE2eDb(
      (
        sql,
      ) => sql`select c.status, count(r.id) filter (where r.status in ('queued', 'sending', 'sent'))::int as open
        from campaigns c join campaign_recipients r on r.campaign_id = c.id where c.id = ${id} group by c.status`,
    );
    expect(row).toEqual({ status: "completed", open: 0 });
  }).toPass({ timeout: 60_000 });
  const rows = await withE2eDb(
    (sql) => sql<{ id: number; address: string }[]>`select id::int, address from campaign_recipients
      where campaign_id = ${id} order by id`,
  );
  return { id, origin, rows };
}

/** The page scrolls no wider than the viewport (nothing sticks out sideways at 390 px). */
async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test("a call campaign's report shows answered, voicemail, no answer, busy and talk time, not opens or clicks (390 px, axe)", async ({
  page,
}) => {
  await loadAxe(page);
  await page.setViewportSize({ width: 390, height: 844 });
  // the local voice provider acts calls to its test numbers out as Twilio's status callbacks report
  // them (providers/voice/local.ts LOCAL_TEST_NUMBERS): busy, no answer, failed, a machine (18 s);
  // any other number is answered by a person (42 s)
  const { id } = await completedCampaign(page, "voice", 5, { script: "Hello {{first_name|there}}" }, [
    ...phones("312", 1),
    "+12015550104",
    "+12015550101",
    "+12015550102",
    "+12015550103",
  ]);
  await page.goto(`/campaigns/${id}`);
  await expect(page.getByTestId("stat-sent")).toHaveText("5");
  await expect(page.getByTestId("stat-answered")).toHaveText("1");
  await expect(page.getByTestId("stat-voicemail")).toHaveText("1");
  await expect(page.getByTestId("stat-no-answer")).toHaveText("1");
  await expect(page.getByTestId("stat-busy")).toHaveText("1");
  await expect(page.getByTestId("stat-failed")).toHaveText("1");
  await expect(page.getByTestId("stat-talk-time")).toHaveText("1m 00s");
  // who launched it: the report's status line, and the campaigns list
  await expect(page.getByTestId("campaign-status-line")).toContainText("Launched by Rey Port");
  await expect(page.getByText("30s per completed call")).toBeVisible();
  for (const label of [
    "Called",
    "Answered",
    "Voicemail (machine)",
    "No answer",
    "Busy",
    "Failed",
    "Talk time",
  ])
    await expect(
      page.locator("dt").filter({ hasText: new RegExp(`^${label.replace(/[()]/g, "\\$&")}$`) }),
    ).toBeVisible();
  // nothing about opens or clicks: no card, no chart line
  await expect(page.getByTestId("stat-opened")).toHaveCount(0);
  await expect(page.getByTestId("stat-clicked")).toHaveCount(0);
  await expect(page.locator("dt").filter({ hasText: /^(Opened|Clicked)$/ })).toHaveCount(0);
  const legend = page.locator(".recharts-legend-wrapper");
  await expect(legend).toContainText("called");
  await expect(legend).toContainText("completed");
  await expect(legend).not.toContainText("opened");
  await expect(legend).not.toContainText("clicked");
  await expectNoSidewaysScroll(page);
  expect(await seriousViolations(page, `call campaign ${id} at 390 px`)).toEqual([]);
  await page.goto("/campaigns");
  await expect(
    page.getByRole("row").filter({ hasText: "Report voice" }).getByText("by Rey Port", { exact: true }),
  ).toBeVisible();
});

test("an SMS campaign's report shows a reply's text, as text, the whole of a long one by keyboard (390 px, axe)", async ({
  page,
}) => {
  await loadAxe(page);
  await page.setViewportSize({ width: 390, height: 844 });
  const { id, origin, rows } = await completedCampaign(page, "sms", 2, {
    message: "Hi {{first_name|there}}",
  });
  const [replier, quiet] = rows;
  // the person's reply, through the inbound webhook (the local provider takes it unsigned, as the dev
  // outbox's reply form posts it): markup and a long text, which the page must show as written
  const tail = "please call me after five, the shop closes at six and I am there until then. ".repeat(3);
  const reply = `<img src=x onerror="window.__pwned=1"> Interested! ${tail}`.trim();
  const sent = await page.request.post("/api/webhooks/twilio/inbound", {
    form: { From: replier!.address, To: "Pitchwise", Body: reply },
    headers: { origin },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  await page.goto(`/campaigns/${id}`);
  await expect(page.getByTestId("stat-replied")).toHaveText(/^[12]$/);
  // an SMS has no opens: its cards are sent, delivered, clicked (its tracked links) and replied
  await expect(page.getByTestId("stat-opened")).toHaveCount(0);
  await expect(page.getByTestId("stat-clicked")).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Reason or reply" })).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: replier!.address });
  const shown = row.getByTestId("recipient-reply");
  // the start of the reply shows as text (the markup is not an element), the rest behind the summary
  await expect(shown).toContainText('Replied: “<img src=x onerror="window.__pwned=1"> Interested!');
  await expect(row.locator("img")).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  const whole = shown.locator(":scope > p");
  await expect(shown).toHaveJSProperty("tagName", "DETAILS");
  await expect(whole).toHaveCount(1);
  await expect(whole).toBeHidden();
  // opened from the keyboard: Tab to the summary, Enter
  const summary = shown.locator("summary");
  await summary.focus();
  await expect(summary).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(whole).toBeVisible();
  await expect(whole).toHaveText(reply);
  // the one who did not reply has no reply shown (the local provider's simulated replies say "Thanks!")
  const other = page.getByRole("row").filter({ hasText: quiet!.address }).getByTestId("recipient-reply");
  if ((await other.count()) > 0) await expect(other).toHaveText("Replied: “Thanks!”");
  await expectNoSidewaysScroll(page);
  expect(await seriousViolations(page, `sms campaign ${id} at 390 px`)).toEqual([]);
});
