import { expect, type Page, test } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";

/**
 * AI avatar tab end to end: the offline local provider renders a presenter video (espeak-ng speech +
 * ffmpeg) in the real pg-boss worker; the page polls Pitchwise every 5 s, then plays the result, and
 * the video lands in the media library.
 */

async function register(page: Page) {
  const email = `avatar-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post("/api/auth/register", {
    data: { name: "Avatar Tester", business_name: "Bakery", email, password: "correct-horse-battery" },
  });
  expect(res.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
}

test("generate a local avatar video from the studio tab and play it", async ({ page }) => {
  test.setTimeout(180_000); // the render runs in the real worker; slow CI machines need the room
  await register(page);
  await page.goto("/studio?tab=ai-avatar");
  await expect(page.getByRole("heading", { name: "Complete Recording & Editing Studio" })).toBeVisible();

  // the offline provider is the default; vendors without keys are shown but disabled
  await expect(page.getByTestId("avatar-provider-local")).toBeChecked();
  await expect(page.getByTestId("avatar-provider-did")).toBeDisabled();
  await expect(page.getByText("Not available yet on this account").first()).toBeVisible();

  // a blank script is refused with the spec's message
  await page.getByTestId("avatar-generate").click();
  await expect(page.getByText("Please enter a script")).toBeVisible();

  await page
    .getByLabel("Script")
    .fill("Hi Jordan! This is a quick video from the Pitchwise studio. Talk soon.");
  await expect(page.getByText("about 0:0")).toBeVisible();
  await page.getByTestId("avatar-generate").click();

  const result = page.getByTestId("avatar-result");
  await expect(result.getByTestId("avatar-video-id")).toHaveText(/^[0-9a-f-]{36}$/);
  const videoId = await result.getByTestId("avatar-video-id").textContent();
  await expect(result.getByTestId("avatar-status")).toHaveText(/Created|Processing/);

  // leaving and coming back picks the video up again while it is being made
  await page.reload();
  await expect(result.getByTestId("avatar-video-id")).toHaveText(videoId!);
  await expect(result.getByTestId("avatar-status")).toHaveText("Completed", { timeout: 120_000 });

  // play it
  const video = result.locator("video");
  await expect(video).toBeAttached();
  await video.evaluate(async (v: HTMLVideoElement) => {
    v.muted = true;
    await v.play();
  });
  await expect
    .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 })
    .toBeGreaterThan(0.5);
  const duration = await video.evaluate((v: HTMLVideoElement) => v.duration);
  expect(duration).toBeGreaterThan(3);
  expect(duration).toBeLessThan(15);

  const href = await result.getByTestId("avatar-download").getAttribute("href");
  expect(href).toMatch(/^\/api\/media\/\d+\/file$/);
  const file = await page.request.get(href!);
  expect(file.status()).toBe(200);
  expect(file.headers()["content-type"]).toMatch(/^video\/mp4/);

  // listed under recent videos, and in the library
  await expect(page.getByTestId("avatar-recent")).toContainText("AI avatar: Hi Jordan!");
  await expect(page.getByTestId("media-card").filter({ hasText: "AI avatar: Hi Jordan!" })).toBeVisible();
});
