import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { BROWSER_UA } from "../browser-ua";
import { registerVerifiedBusiness } from "./account-helpers";
import { landingUrlFromOutbox } from "./landing-helpers";

/**
 * QA: a video landing page's "Book a call" button linked straight to its destination, so its clicks
 * were never recorded and the campaign report had no button figure. The recipient clicks the button in
 * their own browser: it goes through the signed click link to the destination, and the sender's report
 * shows "Clicked your button 1 of 1" next to the video figures. The email's button reads "Watch the
 * video", never the library file's name.
 */

const MEDIA = path.resolve(import.meta.dirname, "../../../shared/data/media");
const HAVE_MEDIA = fs.existsSync(path.join(MEDIA, "mdn-flower.mp4"));

test("a recipient's click on the landing page button reaches its link and shows in the campaign report", async ({
  page,
  browser,
}) => {
  test.skip(!HAVE_MEDIA, "../shared/data/media is absent: the sample video is needed");
  test.setTimeout(120_000);
  await registerVerifiedBusiness(page, { prefix: "cta", name: "Cal Clicker", business: "Bloom Florists" });
  const origin = new URL(page.url()).origin;
  const up = await page.request.post("/api/videos/upload", {
    headers: { origin },
    multipart: {
      name: "mdn-flower",
      video: {
        name: "flower.mp4",
        mimeType: "video/mp4",
        buffer: fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")),
      },
    },
  });
  expect(up.ok(), await up.text()).toBe(true);
  const videoId = (await up.json()).media.id as number;
  await expect
    .poll(
      async () =>
        (
          (await (await page.request.get("/api/media/list")).json()).media as {
            id: number;
            processing_status: string;
          }[]
        ).find((m) => m.id === videoId)?.processing_status,
      { timeout: 60_000 },
    )
    .toBe("ready");
  const recipient = `cta-ada-${Date.now()}@example.com`;
  const launch = await page.request.post("/api/campaigns/video", {
    headers: { origin },
    data: {
      campaignName: "Button clicks",
      videoId,
      deliveryMethod: "email",
      message: "Hi {name}, a quick video!",
      ctaLabel: "Book a call",
      ctaUrl: "https://example.com/book",
      contacts: [{ name: "Ada Lovelace", email: recipient }],
    },
  });
  expect(launch.ok(), await launch.text()).toBe(true);
  const campaignId = (await launch.json()).campaign.id as number;
  const landing = await landingUrlFromOutbox(page, recipient, 60_000);
  const mail = (
    await (await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(recipient)}`)).json()
  ).messages[0] as { html: string };
  expect(mail.html).toContain("Watch the video");
  expect(mail.html).not.toContain("mdn-flower");

  // the recipient's own browser (a person's User-Agent: headless Chromium's is taken for a bot); the
  // destination is answered here, the sandbox has no way out
  const visitor = await browser.newContext({ userAgent: BROWSER_UA.chrome });
  await visitor.route("https://example.com/**", (r) =>
    r.fulfill({ status: 200, contentType: "text/html", body: "<h1>Booking page</h1>" }),
  );
  const viewer = await visitor.newPage();
  await viewer.goto(landing);
  const button = viewer.getByRole("link", { name: "Book a call" });
  await expect(button).toHaveAttribute("href", /^\/c\/[a-z0-9]+\/\d+\/[A-Za-z0-9_-]{22}$/);
  await button.click();
  await expect(viewer).toHaveURL("https://example.com/book");
  await expect(viewer.getByRole("heading", { name: "Booking page" })).toBeVisible();
  await visitor.close();

  await page.goto(`/campaigns/${campaignId}`);
  await expect(page.getByText("Video views")).toBeVisible();
  await expect(page.getByText("Clicked your button")).toBeVisible();
  await expect(page.getByTestId("video-cta-clicks")).toContainText(/^1 of 1/, { timeout: 15_000 });
});
