import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";

/**
 * Issue 14 sections 3-4 in the browser: the media card's player can be scrubbed (its progress bar had
 * zero width), versions are listed and restorable, notes can be edited and deleted.
 */

const MEDIA = path.resolve(import.meta.dirname, "../../../shared/data/media");
const HAVE_MEDIA = fs.existsSync(path.join(MEDIA, "mdn-flower.mp4"));

async function register(page: Page) {
  await page.goto("/login");
  const email = `content-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post("/api/auth/register", {
    data: {
      name: "Content Tester",
      business_name: "Sam's Plumbing",
      email,
      password: "correct-horse-battery",
    },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(res.ok()).toBe(true);
  return { email, origin: new URL(page.url()).origin };
}

test.describe("studio player and versions", () => {
  test.setTimeout(180_000);
  test.skip(!HAVE_MEDIA, "../shared/data/media is absent: the player test needs the shared flower clip");

  for (const width of [1440, 390]) {
    test(`the media card's progress bar is wide enough to scrub (${width} px)`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      const { origin } = await register(page);
      const up = await page.request.post("/api/videos/upload", {
        headers: { origin },
        multipart: {
          name: "Scrub me",
          video: {
            name: "flower.mp4",
            mimeType: "video/mp4",
            buffer: fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")),
          },
        },
      });
      expect(up.ok(), await up.text()).toBe(true);
      const mediaId = (await up.json()).media.id as number;

      await page.goto("/studio?tab=library");
      const card = page.getByTestId("media-card").filter({ hasText: "Scrub me" });
      // processed by the pg-boss worker (slow on a shared machine)
      await expect(card.getByTestId("media-player")).toBeVisible({ timeout: 80_000 });
      const seek = card.locator('input[data-plyr="seek"]');
      await card.getByTestId("media-player").hover();
      await expect(seek).toBeVisible();
      const box = await seek.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(100);
      // wait for the metadata so the seek bar knows the duration, then click at ~70 %
      await expect
        .poll(() => card.locator("video").evaluate((v: HTMLVideoElement) => v.duration || 0))
        .toBeGreaterThan(4);
      await seek.click({ position: { x: (box?.width ?? 0) * 0.7, y: (box?.height ?? 10) / 2 } });
      await expect
        .poll(() => card.locator("video").evaluate((v: HTMLVideoElement) => v.currentTime))
        .toBeGreaterThan(2.5);

      if (width !== 1440) return;
      // an edit saves a new version; the library lists both and restores the original
      const trim = await page.request.post("/api/media/edit/trim", {
        headers: { origin },
        data: { mediaId, startTime: 0, endTime: 2 },
      });
      expect(trim.ok(), await trim.text()).toBe(true);
      // the render is a background job: wait until the edit is done before the library can list it
      const editId = (await trim.json()).edit.id as number;
      await expect
        .poll(async () => (await (await page.request.get(`/api/media/edits/${editId}`)).json()).edit.status, {
          timeout: 90_000,
        })
        .toBe("done");
      await page.reload();
      await card.getByRole("button", { name: /Versions of Scrub me/ }).click();
      const list = page.getByTestId("media-versions");
      await expect(list.getByRole("listitem")).toHaveCount(2);
      await expect(list.getByRole("listitem").nth(1)).toContainText("Current");
      await list.getByRole("listitem").first().getByRole("button", { name: "Restore" }).click();
      await expect(page.getByText('Original is the current version of "Scrub me"')).toBeVisible();
      await expect(list.getByRole("listitem").first()).toContainText("Current");
    });
  }
});

test("a note on the contact page can be edited and deleted; the timeline says so", async ({ page }) => {
  const { origin } = await register(page);
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Nora", last_name: "Notes", email: `nora-${Date.now()}@example.com` },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  const added = await page.request.post(`/api/contacts/${id}/notes`, {
    headers: { origin },
    data: { note_text: "Called, wants a quote" },
  });
  expect(added.ok()).toBe(true);

  await page.goto(`/contacts/${id}`);
  await page.getByRole("tab", { name: /Notes/ }).click();
  const note = page.getByTestId("note");
  await expect(note).toContainText("Called, wants a quote");
  await note.getByRole("button", { name: "Edit note" }).click();
  await page.getByLabel("Edit note").fill("Quote sent on Monday");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(note).toContainText("Quote sent on Monday");
  await note.getByRole("button", { name: "Delete note" }).click();
  await page
    .getByRole("dialog", { name: "Delete this note?" })
    .getByRole("button", { name: "Delete note" })
    .click();
  await expect(page.getByText("No notes yet")).toBeVisible();
  await page.getByRole("tab", { name: /Activity/ }).click();
  await expect(page.getByText("Note edited")).toBeVisible();
  await expect(page.getByText("Note deleted")).toBeVisible();
});
