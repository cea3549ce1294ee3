import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderEdit } from "../../src/server/features/studio/studio.pipeline";
import { applyTrim, type StudioDeps } from "../../src/server/features/studio/studio.service";
import type { JobClient } from "../../src/server/jobs/client";
import { probe, resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";
import { createTestApp, signUp, type TestApp } from "../helpers";
import { uploadAndProcess } from "./studio-helpers";

// The 4K frame-size limit is checked from ffprobe's stream header, which describes the first frames
// only. A stream that grows part-way (a new H.264 SPS, a VP8 keyframe of a new size) must be refused
// by the decoder itself (-max_pixels) wherever it is decoded, with a sentence for the person.

const GROWN_MESSAGE =
  "This video changes to 4160 x 2400 pixels part-way through; the studio takes video up to 4K (4096 x 2160). Please export it at one size no larger than 4K and upload it again.";

const bins = resolveFfmpegBinaries({});
let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-frame-size-"));
});
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Raw H.264 (Annex B) of `seconds` of a test picture of `size` at 10 fps, no B-frames. */
async function rawH264(name: string, size: string, seconds: number): Promise<string> {
  const out = path.join(dir, name);
  await runFfmpeg(bins, {
    globalOptions: ["-f", "lavfi"],
    inputs: [{ path: `testsrc=s=${size}:r=10:d=${seconds}` }],
    outputs: [
      {
        path: out,
        options: ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-pix_fmt", "yuv420p", "-f", "h264"],
      },
    ],
  });
  return out;
}

/**
 * An MP4 of one H.264 stream that is 64x64 for `smallSeconds`, then 4160x2400 (over 4K) for
 * `bigSeconds`: two encodes' bytes one after the other (the second brings its own SPS), remuxed.
 */
async function growingMp4(name: string, smallSeconds: number, bigSeconds: number): Promise<string> {
  const small = await rawH264(`${name}-small.h264`, "64x64", smallSeconds);
  const big = await rawH264(`${name}-big.h264`, "4160x2400", bigSeconds);
  const joined = path.join(dir, `${name}.h264`);
  fs.writeFileSync(joined, Buffer.concat([fs.readFileSync(small), fs.readFileSync(big)]));
  const out = path.join(dir, `${name}.mp4`);
  await runFfmpeg(bins, {
    inputs: [{ path: joined, options: ["-f", "h264", "-framerate", "10"] }],
    outputs: [{ path: out, options: ["-c", "copy"] }],
  });
  return out;
}

/** A WebM of one VP8 stream: 64x64 for a second, then keyframes of 4160x2400 (two encodes joined). */
async function growingWebm(name: string): Promise<string> {
  const parts = [
    ["64x64", "1"],
    ["4160x2400", "0.3"],
  ].map(([size, seconds], i) => {
    const part = path.join(dir, `${name}-${i}.webm`);
    return runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: `testsrc=s=${size}:r=10:d=${seconds}` }],
      outputs: [
        { path: part, options: ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M"] },
      ],
    }).then(() => part);
  });
  const list = path.join(dir, `${name}.txt`);
  fs.writeFileSync(list, (await Promise.all(parts)).map((p) => `file '${p}'\n`).join(""));
  const out = path.join(dir, `${name}.webm`);
  await runFfmpeg(bins, {
    inputs: [{ path: list, options: ["-f", "concat", "-safe", "0"] }],
    outputs: [{ path: out, options: ["-c", "copy"] }],
  });
  return out;
}

/** The app's services as a web process runs them: jobs are queued for a worker, not run here. */
function enqueueOnly(): StudioDeps {
  const jobs: JobClient = { send: async () => "job", sendMany: async () => {} };
  return { db: t.db, env: t.env, providers: t.providers, log: t.ctx.log, jobs };
}

describe("a video whose picture grows past 4K part-way", () => {
  it("an H.264 MP4 that starts at 64x64 fails processing with a sentence when its previews reach the 4160x2400 part", async () => {
    const file = await growingMp4("grows-at-1s", 1, 1);
    // what the studio's own check sees: the header's first size, well within 4K
    expect(await probe(bins, file, { format: "mov" })).toMatchObject({ width: 64, height: 64 });
    const { client } = await signUp(t.app);
    const media = await uploadAndProcess(client, file);
    expect(media).toMatchObject({ processing_status: "failed", processing_error: GROWN_MESSAGE });
  });

  it("a VP8 WebM (converted for playback) that starts at 64x64 fails processing with a sentence", async () => {
    const file = await growingWebm("grows-vp8");
    expect(await probe(bins, file, { format: "matroska" })).toMatchObject({ width: 64, height: 64 });
    const { client } = await signUp(t.app);
    const media = await uploadAndProcess(client, file);
    expect(media).toMatchObject({ processing_status: "failed", processing_error: GROWN_MESSAGE });
  });

  it("an edit of a video that grows after its first 3 s fails with a sentence; the item stays as it was", async () => {
    // 64x64 for 4 s: the remux copies it and the poster and GIF read the first 3 s, so it becomes ready
    const file = await growingMp4("grows-at-4s", 4, 0.5);
    const { client, user } = await signUp(t.app);
    const media = await uploadAndProcess(client, file);
    expect(media.processing_status, media.processing_error).toBe("ready");
    const edit = await applyTrim(enqueueOnly(), user.id, { mediaId: media.id, startTime: 0, endTime: 4.4 });
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
    expect(await renderEdit(deps, edit.id)).toBe(false);
    expect((await client.get(`/api/media/edits/${edit.id}`)).json().edit).toMatchObject({
      status: "failed",
      error: GROWN_MESSAGE,
    });
    const after = (await client.get(`/api/media/${media.id}`)).json().media;
    expect(after.version).toBe(media.version);
  });
});
