import { randomUUID } from "node:crypto";
import http from "node:http";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { e2eReceiverPort, withE2eDb } from "./e2e-info";

/**
 * The attempt counts a delivery log entry's text states ("Attempt 1 of 12", "12 attempts", "1
 * attempt so far"); each entry should state its count once ("Next attempt in ..." states none).
 */
const attemptCounts = (text: string) => text.match(/\bAttempt \d+ of \d+|\b\d+ attempts?\b/g) ?? [];

// axe reads settled colours: without reduced motion a toast fading in or out while axe runs measured
// its own half-transparent text (4.37:1 for a success toast, once in a full run), as the other specs
// that run axe do
test.use({ reducedMotion: "reduce" });

/**
 * Settings > Webhooks against a local receiver (127.0.0.1 on e2eReceiverPort, allow-listed by
 * tests/e2e/server.ts), delivered by the e2e server's real pg-boss worker. The receiver holds each
 * request until the spec lets it answer, so the pending state is seen for sure.
 */
function heldReceiver() {
  const hits: { id: string; body: string }[] = [];
  let open: () => void = () => {};
  let gate = new Promise<void>((r) => {
    open = r;
  });
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      hits.push({ id: String(req.headers["webhook-id"]), body });
      void gate.then(() => res.end("ok"));
    });
  });
  return {
    hits,
    server,
    /** lets the held request(s) answer 200; the next ones are held again */
    release() {
      open();
      gate = new Promise<void>((r) => {
        open = r;
      });
    },
    listen: () => new Promise<void>((r) => server.listen(e2eReceiverPort(), "127.0.0.1", r)),
    close: () =>
      new Promise<void>((r) => {
        open();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

test("a test event and a resend show in the delivery log as being sent, then delivered, without a reload; a disabled endpoint's test is refused", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const rx = heldReceiver();
  await rx.listen();
  try {
    await loadAxe(page);
    await registerVerifiedBusiness(page, { prefix: "hooks", name: "Hana Hook", business: "Hook Shop" });
    const url = `http://127.0.0.1:${e2eReceiverPort()}/pitchwise`;
    await page.goto("/settings?tab=webhooks");
    await page.getByLabel("Endpoint URL (https)").fill(url);
    await page.getByRole("checkbox", { name: "message.bounced" }).check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await expect(page.getByTestId("webhook-secret")).toBeVisible();
    const row = page.getByTestId("webhook-row").filter({ hasText: url });
    await expect(row).toBeVisible();
    // a reload would lose this marker
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const logReads: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("webhooks.deliveries")) logReads.push(r.url());
    });

    // Test (the endpoint's first event type): queued (the receiver holds the request), then delivered
    await row.getByRole("button", { name: "Test" }).click();
    await expect(
      page.getByText("Test contact.created event queued. Its delivery shows in the log below."),
    ).toBeVisible();
    const delivery = row.getByTestId("webhook-delivery");
    await expect(delivery).toHaveCount(1);
    await expect.poll(() => rx.hits.length, { timeout: 30_000 }).toBe(1);
    expect(JSON.parse(rx.hits[0]!.body)).toMatchObject({ type: "contact.created", data: { test: true } });
    // the receiver holds the request: its first attempt is being sent, and the entry says so once
    const status = delivery.getByTestId("webhook-delivery-status");
    await expect(status).toHaveText("Sending");
    await expect(delivery.getByTestId("webhook-delivery-schedule")).toHaveText("Attempt 1 of 12");
    expect(attemptCounts(await delivery.innerText())).toEqual(["Attempt 1 of 12"]);
    rx.release();
    await expect(status).toHaveText("Delivered", { timeout: 15_000 });
    await expect(delivery).toContainText(/200 · \d+ ms/);
    // one attempt: no count to give
    expect(attemptCounts(await delivery.innerText())).toEqual([]);
    // nothing is pending: the log stops reading itself
    const readsWhenDone = logReads.length;
    await page.waitForTimeout(5_000);
    expect(logReads.length).toBe(readsWhenDone);

    // Resend: a success message, the row is queued again without the old result, then delivered again
    await delivery.getByRole("button", { name: "Resend" }).click();
    await expect(page.getByText("Delivery queued again. The log updates when it is sent.")).toBeVisible();
    await expect(status).not.toHaveText("Delivered");
    await expect(delivery).not.toContainText("200 ·");
    await expect.poll(() => rx.hits.length, { timeout: 30_000 }).toBe(2);
    expect(rx.hits[1]!.id).toBe(rx.hits[0]!.id);
    // the resend's own first attempt is being sent: its schedule starts again, counted once
    await expect(status).toHaveText("Sending");
    await expect(delivery.getByTestId("webhook-delivery-schedule")).toHaveText("Attempt 1 of 12");
    expect(attemptCounts(await delivery.innerText())).toEqual(["Attempt 1 of 12"]);
    rx.release();
    await expect(status).toHaveText("Delivered", { timeout: 15_000 });
    await expect(delivery).toContainText(/200 · \d+ ms · 2 attempts/);
    expect(attemptCounts(await delivery.innerText())).toEqual(["2 attempts"]);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );

    // a test of the endpoint's other event type, chosen beside Test: that type's example data
    await row.getByRole("combobox", { name: `Test event type: ${url}` }).click();
    await page.getByRole("option", { name: "message.bounced" }).click();
    await row.getByRole("button", { name: "Test" }).click();
    await expect(
      page.getByText("Test message.bounced event queued. Its delivery shows in the log below."),
    ).toBeVisible();
    await expect.poll(() => rx.hits.length, { timeout: 30_000 }).toBe(3);
    expect(JSON.parse(rx.hits[2]!.body)).toMatchObject({
      type: "message.bounced",
      data: { test: true, status: "bounced", channel: "email" },
    });
    rx.release();
    await expect(delivery).toHaveCount(2);
    await expect(delivery.first().getByTestId("webhook-delivery-status")).toHaveText("Delivered", {
      timeout: 15_000,
    });
    expect(await seriousViolations(page, "endpoint with its test event type select")).toEqual([]);

    // a disabled endpoint: the server's sentence, and no delivery
    await row.getByRole("switch", { name: `Enabled: ${url}` }).click();
    await expect(row.getByText("Disabled by a user")).toBeVisible();
    await row.getByRole("button", { name: "Test" }).click();
    await expect(
      page
        .getByRole("alert")
        .filter({ hasText: "This endpoint is disabled. Enable it to send a test event." }),
    ).toBeVisible();
    await expect(page.getByText(/^Test [a-z_.]+ event queued\./)).toHaveCount(0, { timeout: 10_000 });
    await expect(delivery).toHaveCount(2);
    expect(rx.hits).toHaveLength(3);
  } finally {
    await rx.close();
  }
});

test("a failing endpoint's delivery says when it is tried next and which attempt it was, then that it gave up, at 390 px", async ({
  page,
}) => {
  test.setTimeout(180_000);
  // a path of this run's own: a retried or repeated run's endpoint (same receiver, same database)
  // neither adds to these hits nor is the delivery moved below
  const path = `/failing-${randomUUID()}`;
  let hits = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === path) hits += 1;
      res.statusCode = 500;
      res.end("down");
    });
  });
  await new Promise<void>((r) => server.listen(e2eReceiverPort(), "127.0.0.1", r));
  try {
    await loadAxe(page);
    await registerVerifiedBusiness(page, { prefix: "hooklog", name: "Rita Retry", business: "Retry Shop" });
    await page.setViewportSize({ width: 390, height: 844 });
    const url = `http://127.0.0.1:${e2eReceiverPort()}${path}`;
    await page.goto("/settings?tab=webhooks");
    // the selected tab is on screen (the tab strip used to scroll sideways with Webhooks past its edge)
    const selectedTab = await page.getByRole("tab", { name: "Webhooks", selected: true }).boundingBox();
    expect(selectedTab && selectedTab.x + selectedTab.width).toBeLessThanOrEqual(390);
    await page.getByLabel("Endpoint URL (https)").fill(url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const row = page.getByTestId("webhook-row").filter({ hasText: url });
    await expect(row).toBeVisible();
    await row.getByRole("button", { name: "Test" }).click();
    const delivery = row.getByTestId("webhook-delivery");
    await expect.poll(() => hits, { timeout: 30_000 }).toBe(1);

    // the first attempt failed: its number of the most, and the next one's time (40-80 s on)
    const schedule = delivery.getByTestId("webhook-delivery-schedule");
    await expect(schedule).toContainText(/Attempt 1 of 12 · Next attempt in \d+ (seconds|minute|minutes)/, {
      timeout: 15_000,
    });
    // the attempt is counted once, by the schedule (the result used to add "1 attempt so far")
    expect(attemptCounts(await delivery.innerText())).toEqual(["Attempt 1 of 12"]);
    const status = delivery.getByTestId("webhook-delivery-status");
    await expect(status).toHaveText("Retrying");
    await expect(delivery).toContainText("Last failed: HTTP 500: down");
    expect(await seriousViolations(page, "delivery log, retrying, at 390 px")).toEqual([]);
    const time = schedule.locator("time");
    await expect(time).toHaveAttribute("datetime", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    await expect(time).toHaveAttribute("title", /\d{4}, \d{1,2}:\d{2}:\d{2}/);
    // at 390 px the endpoint's URL is readable in full and the schedule line is not cut off
    await expect(row.getByText(url, { exact: true })).toBeVisible();
    const urlBox = await row.getByText(url, { exact: true }).boundingBox();
    expect(urlBox && urlBox.x + urlBox.width).toBeLessThanOrEqual(390);
    await schedule.scrollIntoViewIfNeeded();
    await expect(schedule).toBeInViewport({ ratio: 1 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // its retries run out: the job is moved to its last attempt, due now, which fails too
    const deliveryId = await withE2eDb(async (sql) => {
      const [d] = await sql<{ id: string }[]>`
        select d.id::text from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where e.url = ${url}`;
      await sql`update pgboss.job set retry_count = 10, start_after = now()
        where name = 'webhooks.deliver' and id = ${d!.id}`;
      return d!.id;
    });
    expect(deliveryId).toBeTruthy();
    // the last attempt is sent and recorded (the receiver's hit comes before the worker records it)
    await expect
      .poll(
        () =>
          withE2eDb(async (sql) => {
            const [d] = await sql<{ status: string; attempts: number }[]>`
              select status, attempts from webhook_deliveries where id = ${deliveryId}`;
            return d;
          }),
        { timeout: 30_000 },
      )
      .toEqual({ status: "failed", attempts: 2 });
    expect(hits).toBe(2);
    // the open log would read again only when its shown retry came due (up to a minute: the job was
    // moved behind its back); a fresh look at the log shows the end at once
    await page.reload();
    await row.getByRole("button", { name: "Deliveries" }).click();
    await expect(schedule).toHaveText("Gave up after 12 attempts", { timeout: 20_000 });
    await expect(status).toHaveText("Failed");
    // one count, the schedule's (the result used to add the recorded "2 attempts" beside it)
    expect(attemptCounts(await delivery.innerText())).toEqual(["12 attempts"]);
    // the endpoint itself says its deliveries are failing, before the 5 days that disable it run out
    // (the list used to show nothing until it was disabled)
    await expect(row.getByTestId("webhook-failing")).toHaveText(
      /^Deliveries failing since .+\. It is disabled after 5 days of failures: see Deliveries for the errors\.$/,
    );
    await expect(row.getByRole("switch", { name: `Enabled: ${url}` })).toBeChecked();
    expect(await seriousViolations(page, "failing endpoint, at 390 px")).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  } finally {
    await new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  }
});

test("Roll secret: the old secret's lifetime is chosen in a dialog, the new secret is shown once, the row says until when the previous one signs, and deliveries verify with both", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const path = `/rolled-${randomUUID()}`;
  const hits: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (req.url === path) hits.push({ headers: req.headers, body });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(e2eReceiverPort(), "127.0.0.1", r));
  const verifies = (h: (typeof hits)[number], secret: string) => {
    try {
      new Webhook(secret).verify(h.body, {
        "webhook-id": String(h.headers["webhook-id"]),
        "webhook-timestamp": String(h.headers["webhook-timestamp"]),
        "webhook-signature": String(h.headers["webhook-signature"]),
      });
      return true;
    } catch {
      return false;
    }
  };
  try {
    await loadAxe(page);
    await registerVerifiedBusiness(page, { prefix: "hookroll", name: "Rolf Roll", business: "Roll Shop" });
    const url = `http://127.0.0.1:${e2eReceiverPort()}${path}`;
    await page.goto("/settings?tab=webhooks");
    await page.getByLabel("Endpoint URL (https)").fill(url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const first = (await page.getByTestId("webhook-secret").locator("code").innerText()).trim();
    expect(first).toMatch(/^whsec_/);
    const row = page.getByTestId("webhook-row").filter({ hasText: url });
    await expect(row.getByTestId("webhook-previous-secret")).toHaveCount(0);

    // the dialog: 24 hours chosen by default; Cancel rolls nothing
    await row.getByRole("button", { name: `Roll secret: ${url}` }).click();
    const dialog = page.getByRole("dialog", { name: "Roll the signing secret?" });
    await expect(dialog.getByRole("radio", { name: "In 24 hours" })).toBeChecked();
    expect(await seriousViolations(page, "roll secret dialog")).toEqual([]);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row.getByTestId("webhook-rolled-secret")).toHaveCount(0);

    // roll, keeping the old secret for 7 days
    await row.getByRole("button", { name: `Roll secret: ${url}` }).click();
    await dialog.getByRole("radio", { name: "In 7 days" }).check();
    await dialog.getByRole("button", { name: "Roll secret" }).click();
    const shown = row.getByTestId("webhook-rolled-secret");
    await expect(shown).toContainText("New signing secret (shown once):");
    const second = (await shown.locator("code").innerText()).trim();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    const previous = row.getByTestId("webhook-previous-secret");
    await expect(previous).toHaveText(/^Previous secret valid until .+\d{4}/);
    const until = (await previous.innerText()).replace("Previous secret valid until ", "");
    const days = (Date.parse(until.replace(/ [A-Z]{2,5}([+-]\d+)?$/, "")) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);

    // a test event is signed with both secrets
    await row.getByRole("button", { name: "Test" }).click();
    await expect.poll(() => hits.length, { timeout: 30_000 }).toBe(1);
    expect(String(hits[0]!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verifies(hits[0]!, second)).toBe(true);
    expect(verifies(hits[0]!, first)).toBe(true);

    // shown once: gone after a reload; the row still says until when the previous secret signs
    await page.reload();
    await expect(row.getByTestId("webhook-previous-secret")).toHaveText(
      `Previous secret valid until ${until}`,
    );
    await expect(row.getByTestId("webhook-rolled-secret")).toHaveCount(0);
    await expect(page.getByText(second)).toHaveCount(0);

    // roll again, the old secret stopping now: the row no longer speaks of a previous secret
    await row.getByRole("button", { name: `Roll secret: ${url}` }).click();
    await dialog.getByRole("radio", { name: /^Now/ }).check();
    await dialog.getByRole("button", { name: "Roll secret" }).click();
    await expect(row.getByTestId("webhook-rolled-secret")).toBeVisible();
    const third = (await row.getByTestId("webhook-rolled-secret").locator("code").innerText()).trim();
    expect(third).not.toBe(second);
    await expect(row.getByTestId("webhook-previous-secret")).toHaveCount(0);
    await row.getByRole("button", { name: "Test" }).click();
    await expect.poll(() => hits.length, { timeout: 30_000 }).toBe(2);
    expect(verifies(hits[1]!, third)).toBe(true);
    expect(verifies(hits[1]!, second)).toBe(false);
  } finally {
    await new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  }
});
