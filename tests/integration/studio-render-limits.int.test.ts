import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mediaEdits, mediaItems } from "../../src/server/db/schema";
import { renderEditJob } from "../../src/server/features/studio/studio.jobs";
import { processMedia, renderEdit } from "../../src/server/features/studio/studio.pipeline";
import { MAX_UPLOAD_BYTES } from "../../src/server/features/studio/studio.schemas";
import { applyAdvanced, applyTrim, type StudioDeps } from "../../src/server/features/studio/studio.service";
import type { JobClient } from "../../src/server/jobs/client";
import { handlerOf } from "../../src/server/jobs/registry";
import { probe, resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";
import { type AuthedClient, createTestApp, signUp, type TestApp } from "../helpers";
import { multipart, uploadAndProcess } from "./studio-helpers";

// Renders a tenant can ask for: how many at once, and how long (CPU, time and disk they cost).

const bins = resolveFfmpegBinaries({});
let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-render-limits-"));
});
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A small H.264/AAC MP4 made here: `seconds` of a 64x64 test picture and a tone. */
async function makeClip(name: string, seconds: number): Promise<string> {
  const out = path.join(dir, name);
  await runFfmpeg(bins, {
    globalOptions: ["-f", "lavfi", "-i", `testsrc=s=64x64:r=10:d=${seconds}`, "-f", "lavfi"],
    inputs: [{ path: `sine=f=440:d=${seconds}` }],
    outputs: [{ path: out, options: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"] }],
  });
  return out;
}

/**
 * An H.264 MP4 of two 64x64 frames, the second `seconds` after the first: a few kilobytes that last
 * `seconds` (what a hostile upload looks like: bytes bound nothing in time).
 */
async function makeGap(name: string, seconds: number): Promise<string> {
  const out = path.join(dir, name);
  await runFfmpeg(bins, {
    globalOptions: ["-f", "lavfi"],
    inputs: [{ path: "color=c=red:s=64x64:r=1:d=2" }],
    outputs: [
      {
        path: out,
        options: ["-vf", `setpts='if(eq(N,0),0,${seconds}/TB)'`, "-vsync", "vfr", "-c:v", "libx264"],
      },
    ],
  });
  return out;
}

async function uploadVideo(client: AuthedClient, file: string): Promise<number> {
  const res = await client.inject({
    method: "POST",
    url: "/api/videos/upload",
    ...multipart(
      { name: path.basename(file) },
      { field: "video", filename: path.basename(file), content: fs.readFileSync(file) },
    ),
  });
  expect(res.statusCode, res.body).toBe(200);
  const media = res.json().media;
  const ready = (await client.get(`/api/media/${media.id}`)).json().media;
  expect(ready.processing_status, ready.processing_error).toBe("ready");
  return media.id;
}

/** The app's services as a web process runs them: jobs are queued for a worker, not run here. */
function enqueueOnly(): StudioDeps & { queued: unknown[] } {
  const queued: unknown[] = [];
  const jobs: JobClient = {
    send: async (_job, data) => {
      queued.push(data);
      return `job-${queued.length}`;
    },
    sendMany: async (_job, items) => {
      for (const i of items) queued.push(i.data);
    },
  };
  return { db: t.db, env: t.env, providers: t.providers, log: t.ctx.log, jobs, queued };
}

describe("one edit of a media item at a time", () => {
  let client: AuthedClient;
  let workspaceId: string;
  let mediaId: number;
  beforeAll(async () => {
    let user: { id: string };
    ({ client, user } = await signUp(t.app));
    workspaceId = user.id;
    mediaId = await uploadVideo(client, await makeClip("two-seconds.mp4", 2));
  });

  const edits = async () => t.db.select().from(mediaEdits).where(eq(mediaEdits.mediaId, mediaId));

  it("an edit still queued for the worker refuses the next one (409); once rendered, editing goes on", async () => {
    const deps = enqueueOnly();
    const first = await applyTrim(deps, workspaceId, { mediaId, startTime: 0, endTime: 1.5 });
    expect(first.status).toBe("queued");
    const again = applyTrim(deps, workspaceId, { mediaId, startTime: 0, endTime: 1, speed: 0.5 });
    await expect(again).rejects.toMatchObject({
      code: "CONFLICT",
      message: "An edit of this media is still rendering. Please wait for it to finish.",
    });
    const advanced = applyAdvanced(deps, workspaceId, { mediaId, startTime: 0, endTime: 1, cuts: [0.5] });
    await expect(advanced).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await edits()).toHaveLength(1);
    expect(deps.queued).toHaveLength(1);

    // the REST route answers the same while it waits
    const rest = await client.post("/api/media/edit/trim", { mediaId, startTime: 0, endTime: 1 });
    expect(rest.statusCode).toBe(409);

    // the worker renders it; the next edit is accepted
    const jobDeps = { ...deps, sql: t.sql, jobs: t.jobs };
    await handlerOf(renderEditJob).handler({ editId: first.id }, jobDeps, { id: "r1", retryCount: 0 });
    const next = await client.post("/api/media/edit/trim", { mediaId, startTime: 0, endTime: 1 });
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().edit.status).toBe("done");
  });

  it("of 6 edit requests at once, one is queued and the others are refused", async () => {
    const deps = enqueueOnly();
    const before = (await edits()).length;
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        applyTrim(deps, workspaceId, { mediaId, startTime: 0, endTime: 0.5 + i * 0.05 }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "CONFLICT" });
    expect((await edits()).length).toBe(before + 1);
    expect(deps.queued).toHaveLength(1);
  });
});

describe("how long and how large media and edits may be (2 hours, 4K)", () => {
  let client: AuthedClient;
  let workspaceId: string;
  beforeAll(async () => {
    let user: { id: string };
    ({ client, user } = await signUp(t.app));
    workspaceId = user.id;
  });

  it("an upload of a few kilobytes that lasts 10 hours fails processing with a sentence", async () => {
    const file = await makeGap("ten-hours.mp4", 36_000);
    expect(fs.statSync(file).size).toBeLessThan(20_000);
    const media = await uploadAndProcess(client, file);
    expect(media).toMatchObject({
      processing_status: "failed",
      processing_error:
        "This file is 10 h long; the studio takes media up to 2 h. Please upload a shorter file.",
    });
  });

  it("a video larger than 4K fails processing with a sentence", async () => {
    const file = path.join(dir, "huge.mp4");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: "color=c=blue:s=4160x2400:r=1:d=1" }],
      outputs: [{ path: file, options: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] }],
    });
    const media = await uploadAndProcess(client, file);
    expect(media).toMatchObject({
      processing_status: "failed",
      processing_error:
        "This video is 4160 x 2400 pixels; the studio takes video up to 4K (4096 x 2160). Please export it at a smaller size and upload it again.",
    });
  });

  it("an edit that would last over 2 hours is a 400 before anything is queued; a shorter one is queued", async () => {
    // an hour and a minute, kept: under the limit. Its previews take the first 3 s, however far apart
    // its two frames are (the GIF's fps filter repeated the first frame for the whole hour: minutes of work)
    const file = await makeGap("an-hour.mp4", 3_660);
    const started = Date.now();
    const media = await uploadAndProcess(client, file);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(media.processing_status, media.processing_error).toBe("ready");
    expect(media.duration).toBeGreaterThan(3_600);
    const item = await t.db.query.mediaItems.findFirst({ where: (mi, { eq }) => eq(mi.id, media.id) });
    const gif = await probe(bins, path.join(t.env.DATA_DIR, "media", item!.gifKey!), { format: "gif" });
    expect(gif.durationSeconds).toBeCloseTo(3, 0);
    const queued = async () =>
      (await t.db.select().from(mediaEdits).where(eq(mediaEdits.mediaId, media.id))).length;

    const slow = await client.post("/api/media/edit/trim", {
      mediaId: media.id,
      startTime: 0,
      endTime: 4_000,
      speed: 0.5,
    });
    expect(slow.statusCode, slow.body).toBe(400);
    expect(slow.json().error).toBe(
      "This edit would be 2 h 2 min long; an edit can be at most 2 h. Select a shorter part or a faster speed.",
    );
    const slower = await client.post("/api/media/edit/advanced", {
      mediaId: media.id,
      startTime: 0,
      endTime: 3_000,
      speed: 0.25,
      cuts: [1_000, 2_000],
      removedSegments: [1],
    });
    expect(slower.statusCode, slower.body).toBe(400);
    expect(slower.json().error).toContain("This edit would be 2 h 13 min long");
    // tRPC answers the same
    const trpc = await client.inject({
      method: "POST",
      url: "/trpc/studio.trim",
      payload: { json: { mediaId: media.id, startTime: 0, endTime: 4_000, speed: 0.5 } },
    });
    expect(trpc.statusCode).toBe(400);
    expect(await queued()).toBe(0);

    // 100 minutes is accepted (queued for the worker; rendering it is not this test's business)
    const ok = await applyTrim(enqueueOnly(), workspaceId, {
      mediaId: media.id,
      startTime: 0,
      endTime: 3_000,
      speed: 0.5,
    });
    expect(ok.status).toBe("queued");
    expect(ok.edl.segments).toEqual([{ start: 0, end: 3_000 }]);
  });
});

describe("frames far apart are not repeated across the gap", () => {
  it("a 60 fps WebM of 3 frames spanning 100 minutes converts and edits in seconds", async () => {
    const { client } = await signUp(t.app);
    // VP8 (so processing transcodes instead of remuxing): frames at 0, 1/60 s and 6,000 s
    const file = path.join(dir, "three-frames.webm");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: "testsrc=s=640x360:r=60:d=0.05" }],
      outputs: [
        {
          path: file,
          options: [
            "-vf",
            "setpts='if(lt(N,2),N/60/TB,6000/TB)'",
            "-vsync",
            "vfr",
            "-c:v",
            "libvpx",
            "-b:v",
            "200k",
          ],
        },
      ],
    });
    let started = Date.now();
    const media = await uploadAndProcess(client, file);
    // at a constant 60 fps that was 360,000 encoded frames (minutes of CPU); now the 3 it has
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(media.processing_status, media.processing_error).toBe("ready");
    expect(media.duration).toBeGreaterThan(5_999);

    started = Date.now();
    const edit = await client.post("/api/media/edit/trim", {
      mediaId: media.id,
      startTime: 0,
      endTime: 6_000,
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json().edit.status).toBe("done");
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 120_000);
});

describe("how many frames a video may hold", () => {
  it("a 4 MB MP4 of 14,000 4K frames fails processing with a sentence; nothing can be rendered from it", async () => {
    const { client } = await signUp(t.app);
    // 100 frames of a still 4K picture at 1000 fps, repeated 140 times by stream copy: 14 s, about 4 MB
    const clip = path.join(dir, "still-4k.mp4");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: "color=c=gray:s=4096x2160:r=1000:d=0.1" }],
      outputs: [
        {
          path: clip,
          options: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "100000", "-pix_fmt", "yuv420p"],
        },
      ],
    });
    const list = path.join(dir, "still-4k.txt");
    fs.writeFileSync(list, `file '${clip}'\n`.repeat(140));
    const file = path.join(dir, "frames-4k.mp4");
    await runFfmpeg(bins, {
      inputs: [{ path: list, options: ["-f", "concat", "-safe", "0"] }],
      outputs: [{ path: file, options: ["-c", "copy"] }],
    });
    expect(fs.statSync(file).size).toBeLessThan(MAX_UPLOAD_BYTES / 10);
    // encoding 14,000 frames of 4K is hours of CPU: the upload is refused before any of it
    const media = await uploadAndProcess(client, file);
    expect(media).toMatchObject({
      processing_status: "failed",
      processing_error:
        "This video has 14,000 frames of 4096 x 2160 pixels, more than the studio converts (30 minutes of 1080p at 30 frames a second, or fewer frames of a larger picture). Please export it at a lower frame rate or size and upload it again.",
    });
    const edit = await client.post("/api/media/edit/trim", { mediaId: media.id, startTime: 0, endTime: 14 });
    expect(edit.statusCode).toBe(422);
  });
});

describe("a render's time limit", () => {
  it("a render still running at its limit is killed and the edit fails with a sentence; the item stays as it was", async () => {
    const { client, user } = await signUp(t.app);
    const file = path.join(dir, "minute.mp4");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi", "-i", "testsrc=s=640x360:r=30:d=60", "-f", "lavfi"],
      inputs: [{ path: "sine=f=440:d=60" }],
      outputs: [
        {
          path: file,
          options: [
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-shortest",
          ],
        },
      ],
    });
    const mediaId = await uploadVideo(client, file);
    const before = (await client.get(`/api/media/${mediaId}`)).json().media;
    const edit = await applyAdvanced(enqueueOnly(), user.id, {
      mediaId,
      startTime: 0,
      endTime: 60,
      speed: 0.25,
      effects: { fadeIn: 2, fadeOut: 2 },
    });
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
    const started = Date.now();
    // 1,800 frames at 640 x 360 and 4 minutes of audio: seconds of work, stopped after one
    expect(await renderEdit(deps, edit.id, { timeLimitMs: 1_000 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    const after = (await client.get(`/api/media/edits/${edit.id}`)).json().edit;
    expect(after).toMatchObject({
      status: "failed",
      error:
        "The render took longer than 1 s and was stopped. Try a shorter part, fewer effects or a faster speed.",
    });
    expect((await client.get(`/api/media/${mediaId}`)).json().media.version).toBe(before.version);
  });
});

describe("processing's time limit", () => {
  it("a conversion still running at its limit is killed and the item fails with a sentence", async () => {
    const { client, user } = await signUp(t.app);
    // MPEG-4 Part 2 in MOV: not H.264, so processing transcodes it (a minute of 640 x 360)
    const file = path.join(dir, "minute.mov");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: "testsrc=s=640x360:r=30:d=60" }],
      outputs: [{ path: file, options: ["-c:v", "mpeg4", "-q:v", "5"] }],
    });
    const res = await client.inject({
      method: "POST",
      url: "/api/videos/upload",
      ...multipart({}, { field: "video", filename: "minute.mov", content: fs.readFileSync(file) }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const mediaId = res.json().media.id as number;
    // processed once already (inline jobs); process it again under a 1 s limit
    await t.db
      .update(mediaItems)
      .set({ processingStatus: "processing", currentKey: `u/${user.id}/m/${mediaId}/original.mov` })
      .where(eq(mediaItems.id, mediaId));
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
    const started = Date.now();
    await processMedia(deps, mediaId, { timeLimitMs: 1_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await client.get(`/api/media/${mediaId}`)).json().media).toMatchObject({
      processing_status: "failed",
      processing_error:
        "Converting this file took longer than 1 s and was stopped. Please export it at a smaller size or a lower frame rate and upload it again.",
    });
  });
});

describe("deleting media while its render runs", () => {
  it("leaves no file of it in storage", async () => {
    const { client, user } = await signUp(t.app);
    const file = path.join(dir, "minute-for-delete.mp4");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi", "-i", "testsrc=s=640x360:r=30:d=60", "-f", "lavfi"],
      inputs: [{ path: "sine=f=440:d=60" }],
      outputs: [
        {
          path: file,
          options: [
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-shortest",
          ],
        },
      ],
    });
    const mediaId = await uploadVideo(client, file);
    const edit = await applyAdvanced(enqueueOnly(), user.id, {
      mediaId,
      startTime: 0,
      endTime: 60,
      speed: 0.25,
    });
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
    const render = renderEdit(deps, edit.id).then(
      (ok) => ({ ok }),
      (error: Error) => ({ error }),
    );
    // delete it once ffmpeg is under way (the render takes seconds)
    for (let i = 0; i < 100; i++) {
      const [row] = await t.db.select().from(mediaEdits).where(eq(mediaEdits.id, edit.id));
      if (row?.status === "rendering") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await client.inject({ method: "DELETE", url: `/api/media/${mediaId}` })).statusCode).toBe(200);
    const outcome = await render;
    // the job fails (pg-boss would retry it, and the retry finds no edit)
    expect(outcome).toHaveProperty("error");
    const folder = path.join(t.env.DATA_DIR, "media", "u", user.id, "m", String(mediaId));
    const left = fs.existsSync(folder)
      ? fs
          .readdirSync(folder, { recursive: true })
          .map(String)
          .filter((f) => fs.statSync(path.join(folder, f)).isFile())
      : [];
    expect(left).toEqual([]);
  });
});
