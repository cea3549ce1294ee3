import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { BROWSER_UA } from "../browser-ua";
import { verifyEmailThroughOutbox } from "./account-helpers";
import { withE2eDb } from "./e2e-info";
import { landingUrlFromOutbox } from "./landing-helpers";

/** Studio end to end: upload a real video, edit it in the advanced editor, save, see the result. */

const MEDIA = path.resolve(import.meta.dirname, "../../../shared/data/media");
const HAVE_MEDIA = fs.existsSync(path.join(MEDIA, "mdn-flower.mp4"));

async function register(page: Page) {
  const email = `studio-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post("/api/auth/register", {
    data: { name: "Studio Tester", business_name: "Flower Shop", email, password: "correct-horse-battery" },
  });
  expect(res.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  return email;
}

test.skip(!HAVE_MEDIA, "../shared/data/media is absent: the studio e2e test needs the shared flower clip");

test("upload a video, edit it in the advanced editor, save, launch a video campaign by email, open the landing page and play", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000); // upload, processing, a render and a campaign by the worker: slow on a shared machine
  const email = await register(page);
  // video campaigns need a paid plan (spec section 9): the workspace's plan, set in the e2e server's database
  await withE2eDb(
    (sql) =>
      sql`update workspaces set plan = 'professional' where owner_id = (select id from users where email = ${email})`,
  );
  await page.goto("/studio?tab=upload");
  await expect(page.getByRole("heading", { name: "Complete Recording & Editing Studio" })).toBeVisible();
  await expect(page.getByText("No media yet")).toBeVisible();

  await page.locator("#media-file").setInputFiles(path.join(MEDIA, "mdn-flower.mp4"));
  await page.getByLabel("Name", { exact: true }).fill("Flower promo");
  await page.getByTestId("upload-submit").click();
  const card = page.getByTestId("media-card").filter({ hasText: "Flower promo" });
  await expect(card).toBeVisible();
  // processed by the pg-boss worker: the Plyr player and the size/duration appear
  await expect(card.getByTestId("media-player")).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText("0:05");
  await expect(card).toContainText("MB");

  await page.getByRole("tab", { name: "Video Editor" }).click();
  await expect(page).toHaveURL(/tab=editor/);
  await page.getByRole("button", { name: "Edit Video" }).first().click();
  await expect(page.getByRole("button", { name: "advanced" })).toHaveAttribute("aria-pressed", "true");
  // the simple editor unlocks grading as the server's plan does (Professional: premiumEditor), not by
  // the user's subscription_tier, which this plan set in the database leaves empty
  await page.getByRole("button", { name: "basic" }).click();
  await expect(page.getByText(/Premium editor: 4K export/)).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Free Tier")).toBeHidden();
  await page.getByRole("button", { name: "advanced" }).click();
  await expect(page.getByRole("button", { name: "advanced" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("waveform").locator("div").first()).toBeVisible();
  await expect(page.getByTestId("selection-readout")).toContainText("Selection: 5.1s");

  // seek to ~2 s and cut there, then drop the first segment
  await page.getByTestId("editor-video").evaluate((v: HTMLVideoElement) => {
    v.currentTime = 2;
  });
  await expect(page.getByTestId("time-readout")).toContainText("Time: 0:02.0");
  await page.getByRole("button", { name: "Add Cut at Playhead" }).click();
  await expect(page.getByRole("button", { name: "Remove cut at 0:02.0" })).toBeVisible();
  await expect(page.getByText("Segments (kept 2 of 2)")).toBeVisible();
  await page.getByRole("button", { name: "Drop" }).first().click();
  await expect(page.getByText("Segments (kept 1 of 2)")).toBeVisible();

  await page.getByRole("tab", { name: "Video", exact: true }).click();
  await page.getByLabel("Brightness").fill("130");
  await page.getByRole("tab", { name: "Effects" }).click();
  await page.getByLabel("Fade in (1 second)").click();

  const save = page.getByRole("button", { name: "Save Video" });
  await save.click();
  await expect(page.getByRole("button", { name: "Processing..." })).toBeVisible();
  await expect(page.getByText("Video saved successfully!")).toBeVisible({ timeout: 60_000 });
  // back to the selector; the library shows the 3 s result
  await expect(page.getByRole("button", { name: "Edit Video" })).toBeVisible();
  await expect(card).toContainText("0:03", { timeout: 15_000 });

  // 'Use in Campaign' opens the video campaign builder with this video
  await card.getByRole("button", { name: "Use in Campaign" }).click();
  await expect(page).toHaveURL(/\/campaigns\/video\?videoId=\d+/);
  await page.getByLabel("Campaign name").fill("Spring flowers");
  await expect(page.getByRole("radio", { name: /Flower promo/ })).toBeChecked();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Step 2: Delivery Settings")).toBeVisible();
  await page.getByLabel("Message (optional)").fill("Hi {name}, a quick video for {company}!");
  await page.getByLabel("Landing page button (optional)").fill("Book a call");
  await page.getByLabel("Button link").fill("https://example.com/book");
  await page.getByRole("button", { name: "Next" }).click();
  const recipient = `ada-${Date.now()}@example.com`;
  await page.locator("#vc-csv").setInputFiles({
    name: "contacts.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(`Name,Email,Company\nAda Lovelace,${recipient},"Analytical, Ltd"\nNo Email,,X\n`),
  });
  await expect(page.getByText("contacts.csv: 1 contact", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Hi Ada Lovelace, a quick video for Analytical, Ltd!")).toBeVisible();
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Back to Dashboard" })).toBeVisible();

  // the recipient's email (dev outbox) links to their landing page; they open it in their own
  // browser and play the video. Headless Chromium says 'HeadlessChrome' in its User-Agent, which the
  // server takes for a bot and counts no view for (isBotUserAgent): the recipient's browser sends a
  // person's User-Agent
  const landing = await landingUrlFromOutbox(page, recipient, 30_000);
  const visitor = await browser.newContext({ userAgent: BROWSER_UA.chrome });
  const viewer = await visitor.newPage();
  const tracked = viewer.waitForResponse(
    (r) => r.url().endsWith("/events") && r.request().method() === "POST",
  );
  await viewer.goto(landing);
  await expect(viewer.getByRole("heading", { name: "A video for Ada Lovelace" })).toBeVisible();
  await expect(viewer.getByText("Hi Ada Lovelace, a quick video for Analytical, Ltd!")).toBeVisible();
  // the button goes through its signed click-tracking link (video-cta-clicks.spec follows it)
  await expect(viewer.getByRole("link", { name: "Book a call" })).toHaveAttribute("href", /^\/c\//);
  expect(await (await tracked).json()).toEqual({ success: true, tracked: true });
  await viewer.getByRole("button", { name: "Play", exact: true }).first().click();
  await expect
    .poll(() => viewer.locator("video").evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 })
    .toBeGreaterThan(1);
  expect(
    await viewer.locator("video").evaluate((v: HTMLVideoElement) => v.readyState),
  ).toBeGreaterThanOrEqual(2);
  await visitor.close();

  // the sender's campaign report shows the view in its video funnel
  const list = (await (await page.request.get("/api/campaigns")).json()).campaigns as {
    id: number;
    name: string;
  }[];
  const campaign = list.find((c) => c.name === "Spring flowers");
  expect(campaign).toBeTruthy();
  await page.goto(`/campaigns/${campaign?.id}`);
  await expect(page.getByText("Video views")).toBeVisible();
  await expect(page.getByTestId("video-viewers")).toContainText(/^1 of 1/, { timeout: 15_000 });
});

test("a recorded webcam clip uploads as a draft and opens in the editor", async ({ page }) => {
  test.setTimeout(240_000); // camera start, recording, processing and a render by the worker
  await register(page);
  await page.goto("/studio");
  const start = page.getByRole("button", { name: "Start Recording" });
  await expect(start).toBeEnabled({ timeout: 45_000 }); // the fake camera opens slowly on a loaded machine
  await start.click();
  // a few seconds, so the fake camera has produced frames even on a loaded machine
  await expect(page.getByText(/REC 00:0[3-9]/)).toBeVisible({ timeout: 20_000 });
  await page.getByRole("button", { name: "Stop Recording" }).click();
  await expect(page.getByTestId("recording-preview")).toBeVisible();
  await page.getByRole("button", { name: "Move to Editor" }).click();
  await expect(page).toHaveURL(/\/studio\?tab=editor$/);
  await expect(page.getByRole("button", { name: "Delete Video" })).toBeVisible();
  await expect(page.getByText("Draft", { exact: true }).first()).toBeVisible();

  // the simple editor: free tier sees locked premium tools and the upgrade modal to /pricing
  await page.getByRole("button", { name: "basic" }).click();
  // the editor opens once the clip's processing job has run ("Preparing your video for editing..."
  // until then): over 30 s once in a clean-clone CI run on this shared 2-core machine
  await expect(page.getByText("Free Tier")).toBeVisible({ timeout: 90_000 });
  await page.getByRole("button", { name: "Color grading" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("heading", { name: "Upgrade to Pro" })).toBeVisible();
  await expect(dialog.getByRole("link", { name: "View Pricing" })).toHaveAttribute("href", "/pricing");
  await dialog.getByRole("button", { name: "Maybe Later" }).click();
  await expect(dialog).toBeHidden();
  // Save Draft renders the trim and keeps the draft
  await page.getByRole("button", { name: "Save Draft" }).click();
  await expect(page.getByText("Draft saved successfully!")).toBeVisible({ timeout: 60_000 });
});
