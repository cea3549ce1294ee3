import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";

/**
 * QA: deleting a video a scheduled campaign used gave no warning (the campaign then emailed a dead
 * link), and deleting one a sent campaign used wiped its video figures. The Studio's delete dialog
 * now names the campaigns using the video and, while one still has messages to send, says which and
 * what to do, with Delete file off; once that campaign is cancelled the video can be deleted, and the
 * sent campaign's report keeps its figures and says the video was deleted.
 */

const MEDIA = path.resolve(import.meta.dirname, "../../../shared/data/media");
const HAVE_MEDIA = fs.existsSync(path.join(MEDIA, "mdn-flower.mp4"));

async function launch(page: Page, origin: string, videoId: number, name: string, scheduledAt?: Date) {
  const res = await page.request.post("/api/campaigns/video", {
    headers: { origin },
    data: {
      campaignName: name,
      videoId,
      deliveryMethod: "email",
      message: "Hi {name}, a quick video!",
      contacts: [{ name: "Ada Lovelace", email: `inuse-${Date.now()}-${Math.random()}@example.com` }],
      ...(scheduledAt ? { scheduledAt: scheduledAt.toISOString() } : {}),
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()).campaign.id as number;
}

test("the Studio's delete dialog names the campaigns using a video and refuses while one is scheduled", async ({
  page,
}) => {
  test.skip(!HAVE_MEDIA, "../shared/data/media is absent: the sample video is needed");
  test.setTimeout(120_000);
  await registerVerifiedBusiness(page, { prefix: "inuse", name: "Del Eter", business: "Bloom Florists" });
  const origin = new URL(page.url()).origin;
  const up = await page.request.post("/api/videos/upload", {
    headers: { origin },
    multipart: {
      name: "Spring promo",
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
  const sent = await launch(page, origin, videoId, "Sent last week");
  // the first campaign sent before the dialog is opened (on a loaded machine it was still sending,
  // so the dialog rightly named both as pending; the full e2e run caught it)
  await expect
    .poll(async () => (await (await page.request.get(`/api/campaigns/${sent}`)).json()).campaign.status, {
      timeout: 60_000,
    })
    .toBe("completed");
  const later = await launch(page, origin, videoId, "Spring follow-up", new Date(Date.now() + 3_600_000));

  await page.goto("/studio");
  const card = page.getByTestId("media-card").filter({ hasText: "Spring promo" });
  await card.getByRole("button", { name: "Delete Spring promo" }).click();
  const dialog = page.getByRole("dialog", { name: 'Delete "Spring promo"?' });
  await expect(dialog.getByTestId("media-uses")).toHaveText(
    /^Used by 2 campaigns: "Spring follow-up" \(scheduled\), "Sent last week" \(completed\)\.$/,
  );
  await expect(dialog.getByRole("alert")).toHaveText(
    'This video is used by the campaign "Spring follow-up" (scheduled), which still has messages to send. Cancel that campaign or wait until it finishes, then delete the video.',
  );
  await expect(dialog.getByRole("button", { name: "Delete file" })).toBeDisabled();
  await dialog.getByRole("button", { name: "Cancel" }).click();

  // the scheduled campaign is cancelled: the video can go
  const cancel = await page.request.post(`/api/campaigns/${later}/cancel`, { headers: { origin }, data: {} });
  expect(cancel.ok(), await cancel.text()).toBe(true);
  await card.getByRole("button", { name: "Delete Spring promo" }).click();
  await expect(dialog.getByTestId("media-uses")).toContainText('"Spring follow-up" (cancelled)');
  await expect(dialog.getByRole("alert")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Delete file" }).click();
  await expect(card).toHaveCount(0);

  // the sent campaign's report keeps its video figures and says the video was deleted
  await page.goto(`/campaigns/${sent}`);
  await expect(page.getByTestId("video-deleted")).toContainText("The video was deleted from your library.");
  await expect(page.getByTestId("video-viewers")).toContainText("of 1");
});
