import fs from "node:fs";
import path from "node:path";
import { expect, type Page, type TestInfo, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { verifyEmailThroughOutbox } from "./account-helpers";
import { upgradeThroughLocalCheckout } from "./billing-helpers";
import { withE2eDb } from "./e2e-info";
import { expectWhollyShown } from "./layout-helpers";

/**
 * Campaigns end to end (issue 4): an email campaign and an SMS campaign from the same shared CSV,
 * through the builders, the real pg-boss worker and the local providers, to completion; the
 * messages are in the dev outbox and on the report page.
 */
const SHARED_CSV = path.resolve(import.meta.dirname, "../../../shared/data/csv/datablist-customers-100.csv");

/** An Etc/GMT zone where it is now about 14:00, so quiet hours (8am-9pm local) never defer the SMS. */
function daytimeZone(): string {
  const o = ((14 - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

// axe reads settled colours (no dialog or toast half-way through its entry animation)
test.use({ reducedMotion: "reduce" });

test("email then SMS campaign from a shared CSV, to completion, in the outbox and on the report", async ({
  page,
}) => {
  test.skip(!fs.existsSync(SHARED_CSV), "../shared/data is absent: the shared CSV is needed");
  test.setTimeout(240_000); // two imports and two campaigns run by the worker: slow on a shared machine
  const email = `camp-e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Cam Paign", email, password: "correct-horse-battery", business_name: "Cam Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);

  // ---- email campaign ----
  await page.goto("/email-campaign");
  await expect(page.getByRole("heading", { name: "Email Campaign" })).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Please enter a campaign name")).toBeVisible();
  await page.getByLabel("Campaign name").fill("E2E email");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Subject").fill("Hello {{name|there}}");
  await page
    .getByLabel("Email body")
    .fill("Hi {{name|there}} at {{company|your company}}.\n\nOur offer: https://example.com/offer");
  await page.getByRole("button", { name: "Send Test" }).click();
  await expect(page.getByText(`Test email sent to ${email}`)).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Contacts CSV (needs an email column)").setInputFiles(SHARED_CSV);
  await expect(page.getByText("datablist-customers-100.csv: 100 contacts")).toBeVisible();
  await expect(page.getByText("...and 95 more")).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("preview-subject")).toHaveText("Hello Sheryl Baxter");
  await expect(page.getByTestId("preview-body")).toContainText("Hi Sheryl Baxter at Rasmussen Group.");
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await page.getByRole("link", { name: "View report" }).click();
  await expect(page.getByTestId("campaign-progress")).toHaveText("100%", { timeout: 60_000 });
  await expect(page.getByText("completed").first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("stat-sent")).toHaveText("100");
  // the recipients table lists the CSV's contacts (its first page; the row order follows the
  // contacts' ids, created in email order); one recipient's mail is checked in the outbox below
  await expect(page.getByRole("cell", { name: /^[^@\s]+@[^@\s]+$/ }).first()).toBeVisible();
  // "Export CSV" downloads every recipient with its status and times (GET /api/campaigns/{id}/recipients.csv)
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^campaign-\d+-results-\d{4}-\d{2}-\d{2}\.csv$/);
  const results = fs
    .readFileSync(await download.path(), "utf8")
    .replace(/^\uFEFF/, "")
    .trim()
    .split("\r\n");
  expect(results[0]).toBe("name,email,status,reason,sent_at,delivered_at,opened_at,clicked_at,opted_out_at");
  expect(results).toHaveLength(101);
  expect(results.find((l) => l.includes("zunigavanessa@smith.info"))).toMatch(
    /^Sheryl Baxter,zunigavanessa@smith\.info,\w+,,\d{4}-\d{2}-\d{2}T[\d:.]+Z,/,
  );

  const outbox = await page.request.get("/api/dev/outbox?channel=email&to=zunigavanessa@smith.info");
  const mails = (await outbox.json()).messages as {
    subject: string;
    body: string;
    metadata: { headers: Record<string, string> };
  }[];
  const mail = mails.find((m) => m.subject === "Hello Sheryl Baxter");
  expect(mail).toBeTruthy();
  expect(mail?.body).toContain("Hi Sheryl Baxter at Rasmussen Group.");
  expect(mail?.metadata.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");

  // the CSV rows became contacts; give them a daytime time zone so quiet hours do not defer the SMS
  const list = await page.request.get("/api/contacts?page=1&limit=200");
  const contacts = (await list.json()).contacts as { id: number }[];
  expect(contacts.length).toBe(100);
  const zone = daytimeZone();
  const origin = new URL(page.url()).origin; // cookie-carrying mutations need a same-origin Origin header
  for (const c of contacts) {
    const res = await page.request.put(`/api/contacts/${c.id}`, {
      data: { timezone: zone },
      headers: { origin },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }

  // ---- SMS campaign from the same CSV (SMS campaigns need a paid plan: upgrade first) ----
  await upgradeThroughLocalCheckout(page, "Professional");
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("E2E sms");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Please enter your SMS message")).toBeVisible();
  await page.getByLabel("Message").fill("Hi ");
  await page.getByRole("button", { name: "Insert full name" }).click();
  await expect(page.getByLabel("Message")).toHaveValue("Hi {{name|there}}");
  // a first text that does not name the business is led by it (CTIA: identify the sender), and the
  // builder's count as sent includes it: 131 characters and the notice fit one segment (153), with
  // "Cam Co: " they are 161, 2 segments
  await page.getByLabel("Message").fill(`Hi, ${"x".repeat(127)}`);
  await expect(page.getByText('starts with your business name ("Cam Co: ")')).toBeVisible();
  await expect(page.getByTestId("sms-counter-sent")).toContainText("2 segments (GSM-7)");
  await page.getByLabel("Message").fill("Hi {{name|there}}, 20% off this week at Cam Co.");
  await expect(page.getByTestId("sms-counter")).toContainText("1 segment (GSM-7)");
  await page.getByRole("button", { name: "Next" }).click();
  await page.locator("label").filter({ hasText: "Upload a CSV" }).click();
  await page.getByLabel("Contacts CSV (needs a phone or mobile column)").setInputFiles(SHARED_CSV);
  await expect(page.getByText(/datablist-customers-100\.csv: \d+ contacts/)).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Message segments")).toBeVisible();
  await page.getByRole("checkbox", { name: /have not opted in to SMS/ }).check();
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByText(/Campaign launched! Sending to \d+ contacts\./).first()).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 10_000 });

  await page.goto("/campaigns");
  await page.getByRole("link", { name: "E2E sms" }).click();
  await expect(page.getByTestId("campaign-progress")).toHaveText("100%", { timeout: 60_000 });
  const sentSms = Number(await page.getByTestId("stat-sent").textContent());
  expect(sentSms).toBeGreaterThan(10);
  // Preston Lozano's 5153435776 is a valid US number: +15153435776
  const sms = await page.request.get("/api/dev/outbox?channel=sms&to=%2B15153435776");
  const texts = (await sms.json()).messages as { body: string }[];
  expect(texts.map((t) => t.body)).toContain(
    "Hi Preston Lozano, 20% off this week at Cam Co.\nReply STOP to opt out",
  );
  // the report lists recipients' numbers in E.164 (which ones the first page shows follows the
  // contacts' ids, created in email order)
  await expect(page.getByRole("cell", { name: /^\+1\d{10}$/ }).first()).toBeVisible();
});

/**
 * Registers and verifies a business (`{prefix}-…@example.com`) and writes a CSV of two new contacts,
 * Ada and Bob, into the test's output folder. Returns their addresses (`to`), the CSV's path and
 * `sentTo()`: how many emails the dev outbox holds for each of them, in that order.
 */
async function ownerWithTwoContactsCsv(page: Page, testInfo: TestInfo, prefix: string) {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const email = `${prefix}-${stamp}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Owner Two", email, password: "correct-horse-battery", business_name: "Two Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  const to = [`ada-${stamp}@example.com`, `bob-${stamp}@example.com`];
  const csv = testInfo.outputPath("two.csv");
  fs.writeFileSync(csv, `name,email\nAda,${to[0]}\nBob,${to[1]}\n`);
  const sentTo = async () => {
    const counts = [];
    for (const addr of to) {
      const res = await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(addr)}`);
      counts.push(((await res.json()).messages as unknown[]).length);
    }
    return counts;
  };
  return { to, csv, sentTo };
}

test("a launch whose response is lost and is launched again sends one campaign, once (the builder's launch token)", async ({
  page,
}, testInfo) => {
  const { csv, sentTo } = await ownerWithTwoContactsCsv(page, testInfo, "token-e2e");

  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("E2E once");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Subject").fill("Hello {{name|there}}");
  await page.getByLabel("Email body").fill("Hi {{name|there}}.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Contacts CSV (needs an email column)").setInputFiles(csv);
  await expect(page.getByText("two.csv: 2 contacts")).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();

  // the first launch reaches the server (which creates and sends the campaign), but its answer is
  // lost on the way back: the builder shows a network error, and the user launches again
  const tokens: string[] = [];
  let lost = false;
  await page.route("**/trpc/campaigns.create**", async (route) => {
    tokens.push(JSON.parse(route.request().postData() ?? "{}")["0"]?.json?.launchToken);
    if (lost) return route.continue();
    lost = true;
    await route.fetch();
    await route.abort("connectionreset");
  });
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByText("Network error. Please try again.")).toBeVisible();
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await expect(page.getByText("Sending to 2 contacts.")).toBeVisible();
  expect(tokens.length).toBe(2);
  expect(tokens[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(tokens[1]).toBe(tokens[0]);

  // one campaign, and each recipient gets one email
  const list = (await (await page.request.get("/api/campaigns")).json()).campaigns as { name: string }[];
  expect(list.map((c) => c.name)).toEqual(["E2E once"]);
  await expect.poll(sentTo).toEqual([1, 1]);
  await page.waitForTimeout(2000); // a second send would have been queued by now
  expect(await sentTo()).toEqual([1, 1]);
});

test("the same campaign launched from a second tab sends once; 'Send it again' sends it again", async ({
  page,
  context,
}, testInfo) => {
  const { csv, sentTo } = await ownerWithTwoContactsCsv(page, testInfo, "tabs-e2e");

  // the same draft built in two tabs (each builder has its own launch token)
  await loadAxe(page); // the context's pages, both tabs
  const tabs = [page, await context.newPage()];
  for (const tab of tabs) {
    await tab.goto("/email-campaign");
    await tab.getByLabel("Campaign name").fill("E2E two tabs");
    await tab.getByRole("button", { name: "Next" }).click();
    await tab.getByLabel("Subject").fill("Hello {{name|there}}");
    await tab.getByLabel("Email body").fill("Hi {{name|there}}.");
    await tab.getByRole("button", { name: "Next" }).click();
    await tab.getByLabel("Contacts CSV (needs an email column)").setInputFiles(csv);
    await expect(tab.getByText("two.csv: 2 contacts")).toBeVisible();
    await tab.getByRole("button", { name: "Next" }).click();
  }
  const [first, second] = tabs as [typeof page, typeof page];
  await first.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(first.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await expect.poll(sentTo).toEqual([1, 1]);

  // the second tab is told, and nothing goes out twice
  await second.getByRole("button", { name: "Launch Campaign" }).click();
  const card = second.getByTestId("already-launched");
  await expect(card.getByRole("heading", { name: "Already launched" })).toBeVisible();
  await expect(card).toContainText("“E2E two tabs”");
  await expect(card).toContainText("Nothing was sent twice.");
  expect(await seriousViolations(second, "already launched")).toEqual([]);
  await second.waitForTimeout(2000); // a second send would have been queued by now
  expect(await sentTo()).toEqual([1, 1]);
  let list = (await (await page.request.get("/api/campaigns")).json()).campaigns as { name: string }[];
  expect(list).toHaveLength(1);

  // a deliberate second send
  await card.getByRole("button", { name: "Send it again" }).click();
  await expect(second.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await expect.poll(sentTo).toEqual([2, 2]);
  list = (await (await page.request.get("/api/campaigns")).json()).campaigns as { name: string }[];
  expect(list).toHaveLength(2);
});

test("a campaign the send engine paused for the plan says why on its report and in the list", async ({
  page,
}) => {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const email = `paused-e2e-${stamp}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Pau Sed", email, password: "correct-horse-battery", business_name: "Pause Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  const origin = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;
  const res = await page.request.post("/api/campaigns", {
    headers: { origin },
    data: {
      name: "E2E paused",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { csv: [{ email: `to-${stamp}@example.com` }] },
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  const id = (await res.json()).campaign.id as number;
  // the state the engine leaves after a downgrade (its own test: meters-concurrency.int)
  const reason =
    "Your Free plan does not include SMS campaigns. The campaign was paused with its remaining messages unsent: resume it after upgrading, or cancel it.";
  await withE2eDb(
    (sql) =>
      sql`update campaigns set status = 'paused', pause_cause = 'plan', error = ${reason} where id = ${id}`,
  );
  await page.goto(`/campaigns/${id}`);
  await expect(page.getByText("Paused by your plan")).toBeVisible();
  await expect(page.getByText(reason)).toBeVisible();
  await expect(page.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
  await page.goto("/campaigns");
  await expect(page.getByText("by your plan")).toBeVisible();
});

test("step 3 of the email builder at 390 px: a contact's long email is shown whole and the picker works from the keyboard", async ({
  page,
}) => {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const email = `picker-390-${stamp}@example.com`;
  await loadAxe(page);
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Pia Picker", email, password: "correct-horse-battery", business_name: "Picker Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  const origin = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;
  // realistic long addresses: a person's at a hospital network's subdomain, and a shared mailbox
  // imported without a name (the picker shows its address as its name)
  const longEmail = `maximiliana.featherstonehaugh-oyelaran.${stamp}@patient-services.northwestern-regional-health.org`;
  const mailbox = `accounts.payable.department+${stamp}@international-freight-logistics-consolidated.com`;
  const imported = await page.request.post("/api/contacts/import", {
    headers: { origin },
    data: {
      contacts: [
        { first_name: "Maximiliana", last_name: "Featherstonehaugh-Oyelaran", email: longEmail },
        { email: mailbox },
      ],
    },
  });
  expect(imported.ok(), await imported.text()).toBe(true);
  expect((await imported.json()).created).toBe(2);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("E2E narrow picker");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Subject").fill("Hello {{first_name|there}}");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByText("Choose from contacts").click();
  const row = page.getByRole("row").filter({ hasText: longEmail });
  await expect(row).toBeVisible();

  // the table fits its box (no sideways scrolling inside it) and the page fits 390 px
  await expectWhollyShown(page.getByRole("table").locator(".."));
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // the name and the address are shown whole, the address in lines most of the table wide (it
  // used to get a column of about 90 px: eleven lines of a few characters)
  await expectWhollyShown(row.getByText("Maximiliana Featherstonehaugh-Oyelaran", { exact: true }));
  const address = row.getByText(longEmail, { exact: true }).filter({ visible: true });
  await expectWhollyShown(address);
  expect((await address.boundingBox())!.width).toBeGreaterThanOrEqual(240);
  // the address-only contact: its address is whole wherever it is shown
  const shown = await page
    .getByRole("row")
    .filter({ hasText: mailbox })
    .getByText(mailbox, { exact: true })
    .filter({ visible: true })
    .all();
  expect(shown.length).toBeGreaterThan(0);
  for (const el of shown) await expectWhollyShown(el);
  expect(await seriousViolations(page, "contact picker at 390 px")).toEqual([]);

  // the contact is picked from the keyboard: its tick box takes focus and Space ticks it
  const tick = row.getByRole("checkbox", { name: "Select Maximiliana Featherstonehaugh-Oyelaran" });
  await tick.focus();
  await page.keyboard.press("Space");
  await expect(tick).toBeChecked();
  await expect(page.getByTestId("picker-selected")).toHaveText("1 selected");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("preview-subject")).toHaveText("Hello Maximiliana");
});
