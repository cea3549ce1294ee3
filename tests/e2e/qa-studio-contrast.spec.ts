import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations, switchTheme } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";
import { landingUrlFromOutbox } from "./landing-helpers";

/**
 * Findings of a UI walk-through of the studio, a video campaign and the contact page:
 * - the editor's video buttons were named "Open X in the editor" while showing "0:05" (axe
 *   label-content-name-mismatch);
 * - the Basic editor's premium badge did not wrap (the page scrolled sideways at 390 px) and its
 *   timeline labels were muted text on the selection (2.73:1);
 * - a new tag's default colour took its chip's text at 4.47:1;
 * - a video's watched milestones all read "Video Progress" on the contact's timeline;
 * - the recipient's landing page wrote the business name and footer at 4.43:1;
 * - an audio item's player stayed Plyr's white bar in dark themes.
 */

test.use({ reducedMotion: "reduce" });

const MEDIA = path.resolve(import.meta.dirname, "../../../shared/data/media");
const HAVE_MEDIA = fs.existsSync(path.join(MEDIA, "mdn-flower.mp4"));

async function uploadFlower(page: Page, name: string) {
  const up = await page.request.post("/api/videos/upload", {
    headers: { origin: new URL(page.url()).origin },
    multipart: {
      name,
      video: {
        name: "flower.mp4",
        mimeType: "video/mp4",
        buffer: fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")),
      },
    },
  });
  expect(up.ok(), await up.text()).toBe(true);
}

test("the video editor at 390 px in a light and a dark theme: names hold their visible text, nothing scrolls sideways, labels are readable", async ({
  page,
}) => {
  test.skip(!HAVE_MEDIA, "../shared/data/media is absent: the sample video is needed");
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await loadAxe(page);
  await registerVerifiedBusiness(page, { prefix: "qa-studio", name: "Sal Studio", business: "Studio Co" });
  await uploadFlower(page, "Flower clip");
  for (const theme of ["monochrome-elite", "dark-vibrant"]) {
    await page.goto("/studio?tab=editor");
    await switchTheme(page, theme);
    const open = page.getByRole("button", { name: /^Open Flower clip in the editor/ });
    await expect(open).toBeVisible();
    expect(await seriousViolations(page, `editor list ${theme}`, ["label-content-name-mismatch"])).toEqual(
      [],
    );
    await open.click();
    await page.getByRole("group", { name: "Editor mode" }).getByRole("button", { name: "basic" }).click();
    await expect(page.getByText(/Premium editor: 4K export/)).toBeVisible();
    await expect(page.getByRole("img", { name: "Timeline" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page, `basic editor ${theme}`, ["color-contrast"])).toEqual([]);
  }
});

test("a contact's tag chip and watched milestones; the recipient's landing page", async ({ page }) => {
  test.skip(!HAVE_MEDIA, "../shared/data/media is absent: the sample video is needed");
  test.setTimeout(120_000);
  await loadAxe(page);
  const email = await registerVerifiedBusiness(page, {
    prefix: "qa-tl",
    name: "Tia Timeline",
    business: "Tl Co",
  });
  const origin = new URL(page.url()).origin;
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Ada", last_name: "Lovelace", email: `ada-${Date.now()}@example.com` },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const contactId = (await created.json()).contact.id as number;
  // a tag made without a colour, as the list's bulk "add tag" makes it
  const tag = await page.request.post("/api/contacts/tags", { headers: { origin }, data: { name: "Gold" } });
  expect(tag.ok(), await tag.text()).toBe(true);
  const tagged = await page.request.post("/api/contacts/bulk/operation", {
    headers: { origin },
    data: { contactIds: [contactId], operation: "add_tag", data: { tag_id: (await tag.json()).tag.id } },
  });
  expect(tagged.ok(), await tagged.text()).toBe(true);
  // the milestones a recipient's player reports (campaigns.video recordProgress), as stored
  await withE2eDb(
    (sql) => sql`
      insert into activities (workspace_id, contact_id, activity_type, metadata)
      select w.id, ${contactId}, 'video_progress', jsonb_build_object('percent', p)
      from workspaces w join users u on u.id = w.owner_id, unnest(array[25, 50]) p
      where u.email = ${email}`,
  );
  await page.goto(`/contacts/${contactId}`);
  await expect(page.getByText("Gold", { exact: true })).toBeVisible();
  expect(await seriousViolations(page, "contact page", ["color-contrast"])).toEqual([]);
  await page.getByRole("tab", { name: "Activity" }).click();
  await expect(page.getByText("Watched 25 % of the video")).toBeVisible();
  await expect(page.getByText("Watched 50 % of the video")).toBeVisible();

  await uploadFlower(page, "Landing clip");
  const clip = async () =>
    (
      (await (await page.request.get("/api/media/list")).json()).media as {
        id: number;
        name: string;
        processing_status: string;
      }[]
    ).find((m) => m.name === "Landing clip");
  await expect.poll(async () => (await clip())?.processing_status, { timeout: 60_000 }).toBe("ready");
  const recipient = `grace-${Date.now()}@example.com`;
  const launch = await page.request.post("/api/campaigns/video", {
    headers: { origin },
    data: {
      campaignName: "Contrast landing",
      videoId: (await clip())?.id,
      deliveryMethod: "email",
      message: "Hi {name}, a quick video!",
      contacts: [{ name: "Grace Hopper", email: recipient }],
    },
  });
  expect(launch.ok(), await launch.text()).toBe(true);
  await page.goto(await landingUrlFromOutbox(page, recipient, 60_000));
  await expect(page.getByRole("heading", { name: "A video for Grace Hopper" })).toBeVisible();
  expect(await seriousViolations(page, "landing page", ["color-contrast"])).toEqual([]);
});

test("an audio item's player takes the dark theme's card colours, not Plyr's white", async ({ page }) => {
  const mp3 = path.join(MEDIA, "mdn-t-rex-roar.mp3");
  test.skip(!fs.existsSync(mp3), "../shared/data/media is absent: the sample audio is needed");
  test.setTimeout(120_000);
  await loadAxe(page);
  await registerVerifiedBusiness(page, { prefix: "qa-audio", name: "Al Audio", business: "Audio Co" });
  const up = await page.request.post("/api/audio/upload", {
    headers: { origin: new URL(page.url()).origin },
    multipart: {
      name: "Roar",
      audio: { name: "roar.mp3", mimeType: "audio/mpeg", buffer: fs.readFileSync(mp3) },
    },
  });
  expect(up.ok(), await up.text()).toBe(true);
  await page.goto("/studio?tab=library");
  await switchTheme(page, "dark-vibrant");
  const controls = page.locator(".plyr--audio .plyr__controls").first();
  await expect(controls).toBeVisible({ timeout: 60_000 });
  const [player, card] = await Promise.all([
    controls.evaluate((el) => getComputedStyle(el).backgroundColor),
    page
      .getByTestId("media-card")
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor),
  ]);
  expect(player).not.toBe("rgb(255, 255, 255)");
  expect(player).toBe(card);
  expect(await seriousViolations(page, "audio player dark", ["color-contrast"])).toEqual([]);
});
