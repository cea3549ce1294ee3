import { expect, type Page, test } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * QA: scheduling was API-only (`scheduledAt` of the launch); the email and SMS builders had no way
 * to schedule. Their review step now offers Send now / Schedule for later: a date-time input in the
 * user's time zone, labelled with the zone's name, refused with a plain sentence unless it is in the
 * future; the campaign is launched with that moment (status scheduled, the same instant). A scheduled
 * campaign's report has Reschedule (tRPC campaigns.reschedule), held to the same rules.
 */

test.use({ timezoneId: "America/Chicago" });

async function register(page: Page, prefix: string) {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Sched Ule", email, password: "correct-horse-battery", business_name: "Sched Co" },
  });
  expect(reg.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  return email;
}

/** The datetime-local value (browser zone) of now + `ms`, and the instant it names. */
async function localIn(page: Page, ms: number): Promise<{ local: string; iso: string }> {
  return page.evaluate((ahead) => {
    const d = new Date(Date.now() + ahead);
    d.setSeconds(0, 0);
    const p = (n: number) => String(n).padStart(2, "0");
    return {
      local: `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`,
      iso: d.toISOString(),
    };
  }, ms);
}

test("the email builder schedules a campaign for later, in the user's time zone, never in the past", async ({
  page,
}) => {
  await register(page, "sched-email");
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("Scheduled email");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Subject").fill("Hello {{first_name|there}}");
  await page.getByLabel("Email body").fill("Hi {{first_name|there}}, see you soon.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Contacts CSV (needs an email column)").setInputFiles({
    name: "list.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(`first_name,email\nAnn,ann-${Date.now()}@example.com\n`),
  });
  await expect(page.getByText("list.csv: 1 contact")).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();

  const when = page.getByRole("group", { name: "When to send" });
  await expect(when.getByRole("radio", { name: "Send now" })).toBeChecked();
  await when.getByRole("radio", { name: "Schedule for later" }).check();
  const input = when.getByLabel("Date and time (America/Chicago)");
  await expect(input).toBeVisible();
  // nothing picked: Schedule Campaign says what is missing and launches nothing
  await page.getByRole("button", { name: "Schedule Campaign" }).click();
  await expect(when).toContainText("Please pick the date and time to send the campaign.");
  // a time that has passed is refused in plain words
  const past = await localIn(page, -3 * 3600_000);
  await input.fill(past.local);
  await expect(when).toContainText(/Please pick a time in the future: .* C[SD]T has already passed\./);
  await page.getByRole("button", { name: "Schedule Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toHaveCount(0);

  const later = await localIn(page, 2 * 24 * 3600_000);
  await input.fill(later.local);
  await expect(page.getByTestId("send-time-when")).toContainText(/^Sends .* C[SD]T\.$/);
  await expect(page.getByText("Will send at that time")).toBeVisible();
  await page.getByRole("button", { name: "Schedule Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await expect(page.getByText(/^Scheduled: sending to 1 contact on .* C[SD]T\.$/)).toBeVisible();
  const href = await page.getByRole("link", { name: "View report" }).getAttribute("href");
  const id = Number(href?.split("/").pop());
  const got = await (await page.request.get(`/api/campaigns/${id}`)).json();
  expect(got.campaign.status).toBe("scheduled");
  expect(new Date(got.campaign.scheduledAt).toISOString()).toBe(later.iso);

  // the report's Reschedule moves it: in the same zone, never into the past
  await page.goto(`/campaigns/${id}`);
  await page.getByRole("button", { name: "Reschedule" }).click();
  const dialog = page.getByRole("dialog", { name: "Reschedule the campaign" });
  const newTime = dialog.getByLabel("Date and time (America/Chicago)");
  await expect(newTime).toHaveValue(later.local);
  await newTime.fill((await localIn(page, -3600_000)).local);
  await expect(dialog).toContainText(/Please pick a time in the future: .* C[SD]T has already passed\./);
  // pressed anyway: the dialog's own sentence is the refusal (no browser bubble over it, worded in
  // the browser's format from the input's min): the field is marked and keeps focus
  await dialog.getByRole("button", { name: "Reschedule" }).click();
  await expect(newTime).toHaveAttribute("aria-invalid", "true");
  await expect(newTime).toBeFocused();
  expect(await dialog.locator("form").evaluate((f: HTMLFormElement) => f.noValidate)).toBe(true);
  const moved = await localIn(page, 3 * 24 * 3600_000);
  await newTime.fill(moved.local);
  await dialog.getByRole("button", { name: "Reschedule" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(/^Rescheduled: sends .* C[SD]T\.$/)).toBeVisible();
  const after = await (await page.request.get(`/api/campaigns/${id}`)).json();
  expect(after.campaign.status).toBe("scheduled");
  expect(new Date(after.campaign.scheduledAt).toISOString()).toBe(moved.iso);

  // opened and saved without a change: it keeps its time and nothing is asked of the server (saving
  // the minute-precision field moved a time with seconds and told webhooks of a move)
  const asked: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("campaigns.reschedule")) asked.push(r.url());
  });
  await page.getByRole("button", { name: "Reschedule" }).click();
  await expect(newTime).toHaveValue(moved.local);
  await dialog.getByRole("button", { name: "Reschedule" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(/^The campaign keeps its time: sends .* C[SD]T\.$/)).toBeVisible();
  expect(asked).toEqual([]);
});

test("the SMS builder schedules a campaign for later", async ({ page }) => {
  const email = await register(page, "sched-sms");
  await withE2eDb(
    (sql) =>
      sql`update workspaces set plan = 'professional', subscription_status = 'active' where owner_id = (select id from users where email = ${email})`,
  );
  await page.goto("/campaigns/sms");
  await page.getByLabel("Campaign name").fill("Scheduled text");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Message").fill("Hi {{name|there}}, doors open at 9.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.locator("label").filter({ hasText: "Upload a CSV" }).click();
  await page.getByLabel("Contacts CSV (needs a phone or mobile column)").setInputFiles({
    name: "phones.csv",
    mimeType: "text/csv",
    buffer: Buffer.from("name,phone\nPat,+15153435780\n"),
  });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("checkbox", { name: /not opted in to SMS/ }).check();
  const when = page.getByRole("group", { name: "When to send" });
  await when.getByRole("radio", { name: "Schedule for later" }).check();
  const later = await localIn(page, 26 * 3600_000);
  await when.getByLabel("Date and time (America/Chicago)").fill(later.local);
  await page.getByRole("button", { name: "Schedule Campaign" }).click();
  await expect(
    page.getByText(/Campaign scheduled! Sending to 1 contact on .* C[SD]T\./).first(),
  ).toBeVisible();
});
