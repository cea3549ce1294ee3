import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processMedia } from "../../src/server/features/studio/studio.pipeline";
import { createMediaFromFile, type StudioDeps } from "../../src/server/features/studio/studio.service";
import type { JobClient } from "../../src/server/jobs/client";
import {
  countVideoPackets,
  FfmpegError,
  resolveFfmpegBinaries,
  runFfmpeg,
} from "../../src/server/lib/ffmpeg";
import { type AuthedClient, createTestApp, signUp, type TestApp } from "../helpers";

// Probes and previews of user media have time limits of their own (renders and conversions already
// had one): a probe or preview still running at its limit is killed (SIGKILL) and the item fails with
// a sentence, instead of ffprobe/ffmpeg running for as long as a crafted file makes them.

const bins = resolveFfmpegBinaries({});
let t: TestApp;
let dir: string;
/** An MP4 of 1,000,000 tiny H.264 packets (16x16 at 1000 fps, 13 MB): ffprobe counts them for ~0.6 s. */
let manyPackets: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-probe-limits-"));
  const clip = path.join(dir, "ten-thousand.mp4");
  await runFfmpeg(bins, {
    globalOptions: ["-f", "lavfi"],
    inputs: [{ path: "color=c=gray:s=16x16:r=1000:d=10" }],
    outputs: [
      {
        path: clip,
        options: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "1000000", "-pix_fmt", "yuv420p"],
      },
    ],
  });
  const list = path.join(dir, "ten-thousand.txt");
  fs.writeFileSync(list, `file '${clip}'\n`.repeat(100));
  manyPackets = path.join(dir, "million-packets.mp4");
  await runFfmpeg(bins, {
    inputs: [{ path: list, options: ["-f", "concat", "-safe", "0"] }],
    outputs: [{ path: manyPackets, options: ["-c", "copy"] }],
  });
});
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Process ids of running ffmpeg/ffprobe commands whose arguments mention `marker`. */
function toolsWith(marker: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(marker) && /ff(mpeg|probe)/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** No ffmpeg or ffprobe of `marker` is left a moment later (any found is killed, then reported). */
async function expectNoneLeft(marker: string) {
  await new Promise((r) => setTimeout(r, 500));
  const left = toolsWith(marker);
  for (const pid of left) process.kill(pid, "SIGKILL"); // do not leave it burning CPU after a failure
  expect(left).toEqual([]);
}

/** Stores `file` as a new media item of a new user, its processing queued but not run. */
async function storedItem(file: string): Promise<{ client: AuthedClient; mediaId: number }> {
  const { client, user } = await signUp(t.app);
  const jobs: JobClient = { send: async () => "job", sendMany: async () => {} };
  const deps: StudioDeps = { db: t.db, env: t.env, providers: t.providers, log: t.ctx.log, jobs };
  const item = await createMediaFromFile(deps, user.id, {
    path: file,
    name: path.basename(file),
    source: "upload",
  });
  return { client, mediaId: item.id };
}

const jobDeps = () => ({
  db: t.db,
  sql: t.sql,
  env: t.env,
  providers: t.providers,
  jobs: t.jobs,
  log: t.ctx.log,
});

describe("a probe's time limit", () => {
  it("ffprobe still counting packets at its limit is killed and the count fails", async () => {
    const started = Date.now();
    const counted = countVideoPackets(bins, manyPackets, { format: "mov", timeLimitMs: 100 });
    await expect(counted).rejects.toBeInstanceOf(FfmpegError);
    await expect(counted).rejects.toMatchObject({ reason: "ffprobe took longer than 0.1 s and was stopped" });
    expect(Date.now() - started).toBeLessThan(2_000);
    await expectNoneLeft(manyPackets);
    // without the tiny limit the same count finishes: the file is slow, not broken
    expect(await countVideoPackets(bins, manyPackets, { format: "mov" })).toBe(1_000_000);
  });

  it("processing whose probe runs past its limit is stopped and the item fails with a sentence", async () => {
    const { client, mediaId } = await storedItem(manyPackets);
    const started = Date.now();
    await processMedia(jobDeps(), mediaId, { probeTimeLimitMs: 100 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await client.get(`/api/media/${mediaId}`)).json().media).toMatchObject({
      processing_status: "failed",
      processing_error:
        "Reading this file took longer than 100 ms and was stopped: it may be damaged or unusually built. Please export it again (MP4 with H.264 works everywhere) and upload it.",
    });
    await expectNoneLeft(t.env.DATA_DIR);
  });
});

describe("a preview's time limit", () => {
  it("processing whose poster or GIF runs past its limit is stopped and the item fails with a sentence", async () => {
    // 3 s of 1080p at 60 fps, H.264 in MP4 (copied for playback): its previews decode up to 180 frames
    const file = path.join(dir, "hd.mp4");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: "testsrc2=s=1920x1080:r=60:d=3" }],
      outputs: [{ path: file, options: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] }],
    });
    const { client, mediaId } = await storedItem(file);
    const started = Date.now();
    await processMedia(jobDeps(), mediaId, { previewTimeLimitMs: 100 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await client.get(`/api/media/${mediaId}`)).json().media).toMatchObject({
      processing_status: "failed",
      processing_error:
        "Making this video's preview took longer than 100 ms and was stopped. Please export it at a smaller size or a lower frame rate and upload it again.",
    });
    await expectNoneLeft(t.env.DATA_DIR);
    // with its own limit (seconds) the same file processes
    await processMedia(jobDeps(), mediaId);
    expect((await client.get(`/api/media/${mediaId}`)).json().media.processing_status).toBe("ready");
  });
});
