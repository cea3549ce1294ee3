import fs from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations, switchTheme } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * QA finding: in the advanced editor the keyboard could not change the trim/cut selection (the waveform
 * and its region take no focus) nor move the playhead except by playing and pausing (WCAG 2.1.1). The
 * editor now has Selection start, Selection end and Playhead sliders, kept in step with the region.
 */

test.use({ reducedMotion: "reduce" });

const MEDIA = path.resolve(import.meta.dirname, "../../../shared/data/media");
const HAVE_MEDIA = fs.existsSync(path.join(MEDIA, "mdn-flower.mp4"));

/** Presses Tab (at most `max` times) until `target` has the focus; fails when it never does. */
async function tabTo(page: Page, target: Locator, max = 40) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`Tab never reached ${target}`);
}

/** Uploads the flower clip through the API and waits until the worker has processed it. */
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
  await expect
    .poll(
      async () =>
        (
          (await (await page.request.get("/api/media/list")).json()).media as {
            name: string;
            processing_status: string;
          }[]
        ).find((m) => m.name === name)?.processing_status,
      { timeout: 60_000 },
    )
    .toBe("ready");
}

test("the advanced editor's selection and playhead move by keyboard, follow the region, and the keyboard-made cut is what is saved", async ({
  page,
}) => {
  test.skip(!HAVE_MEDIA, "../shared/data/media is absent: the sample video is needed");
  test.setTimeout(180_000);
  await loadAxe(page);
  const email = await registerVerifiedBusiness(page, {
    prefix: "kb-sel",
    name: "Kim Keys",
    business: "Keys Co",
  });
  await uploadFlower(page, "Keyboard clip");
  await page.goto("/studio?tab=editor");
  await page.getByRole("button", { name: /^Open Keyboard clip in the editor/ }).click();
  const advanced = page.getByRole("group", { name: "Editor mode" }).getByRole("button", { name: "advanced" });
  await expect(advanced).toHaveAttribute("aria-pressed", "true");
  const start = page.getByRole("slider", { name: "Selection start" });
  const end = page.getByRole("slider", { name: "Selection end" });
  const playhead = page.getByRole("slider", { name: "Playhead" });
  await expect(start).toBeEnabled({ timeout: 30_000 });
  await expect(page.getByTestId("selection-readout")).toContainText("Selection: 5.1s");

  // the mouse moves the region: the start slider follows
  const handle = page.getByTestId("waveform").locator('[part~="region-handle-left"]');
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.boundingBox();
  if (!box) throw new Error("the region's left handle is not drawn");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 60, box.y + box.height / 2, { steps: 6 });
  await page.mouse.up();
  await expect.poll(async () => Number(await start.inputValue())).toBeGreaterThan(0.2);

  // from here on only the keyboard: Tab from the mode buttons to each slider
  await advanced.focus();
  await tabTo(page, start);
  await page.keyboard.press("Home");
  await expect(page.getByTestId("selection-readout")).toContainText("(0:00.0 -");
  await page.keyboard.press("Shift+ArrowRight"); // 1.0 s
  await page.keyboard.press("ArrowRight"); // 1.1 s
  await page.keyboard.press("ArrowLeft"); // 1.0 s
  await expect(start).toHaveAttribute("aria-valuetext", "0:01.0 (1.0 seconds)");
  await tabTo(page, end);
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft"); // the clip's 5.07 s end to 5.0 s
  await page.keyboard.press("Shift+ArrowLeft"); // 4.0 s
  await expect(page.getByTestId("selection-readout")).toContainText("Selection: 3.0s (0:01.0 - 0:04.0)");
  // the same rule as the region: the end never reaches the start
  await page.keyboard.press("Home");
  await expect(end).toHaveAttribute("aria-valuetext", "0:01.1 (1.1 seconds)");
  await page.keyboard.press("Shift+ArrowRight");
  await page.keyboard.press("Shift+ArrowRight");
  await page.keyboard.press("Shift+ArrowRight");
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("selection-readout")).toContainText("Selection: 3.0s (0:01.0 - 0:04.0)");
  // the waveform's region is drawn where the sliders put it
  const region = page.getByTestId("waveform").locator('[part~="region"]');
  const clip = Number(await end.getAttribute("max"));
  await expect
    .poll(async () => Number.parseFloat(await region.evaluate((el) => (el as HTMLElement).style.left)))
    .toBeCloseTo((100 * 1) / clip, 1);
  await expect
    .poll(async () => Number.parseFloat(await region.evaluate((el) => (el as HTMLElement).style.right)))
    .toBeCloseTo((100 * (clip - 4)) / clip, 1);

  await tabTo(page, playhead);
  await page.keyboard.press("Shift+ArrowRight");
  await page.keyboard.press("Shift+ArrowRight"); // 2.0 s
  await expect(page.getByTestId("time-readout")).toContainText("Time: 0:02.0");
  const addCut = page.getByRole("button", { name: "Add Cut at Playhead" });
  await tabTo(page, addCut);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Remove cut at 0:02.0" })).toBeVisible();
  await expect(page.getByText("Segments (kept 2 of 2)")).toBeVisible();
  await tabTo(page, page.getByRole("button", { name: "Drop" }).first());
  await page.keyboard.press("Enter");
  await expect(page.getByText("Segments (kept 1 of 2)")).toBeVisible();

  // axe on the editor as the keyboard left it, light and dark, and no sideways scroll at 390 px
  await page.setViewportSize({ width: 390, height: 844 });
  for (const theme of ["monochrome-elite", "dark-vibrant"]) {
    await switchTheme(page, theme);
    expect(await seriousViolations(page, `advanced editor ${theme}`)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  }

  await tabTo(page, page.getByRole("button", { name: "Save Video" }), 60);
  await page.keyboard.press("Enter");
  await expect(page.getByText("Video saved successfully!")).toBeVisible({ timeout: 60_000 });
  const [edit] = await withE2eDb(
    (sql) => sql<{ edl: { segments: { start: number; end: number }[] }; seconds: number }[]>`
      select e.edl, e.output_duration_seconds as seconds
      from media_edits e join workspaces w on w.id = e.workspace_id join users u on u.id = w.owner_id
      where u.email = ${email} order by e.id desc limit 1`,
  );
  expect(edit.edl.segments).toEqual([{ start: 2, end: 4 }]);
  expect(edit.seconds).toBeGreaterThan(1.8);
  expect(edit.seconds).toBeLessThan(2.2);
});
