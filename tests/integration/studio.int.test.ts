import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mediaEdits, mediaItems } from "../../src/server/db/schema";
import { atempoChain, buildEditGraph, segmentsFromCuts } from "../../src/server/features/studio/studio.graph";
import { processMediaJob, renderEditJob } from "../../src/server/features/studio/studio.jobs";
import { handlerOf } from "../../src/server/jobs/registry";
import { probe, resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";
import {
  type AuthedClient,
  createTestApp,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";
import { multipart, zeros } from "./studio-helpers";

const MEDIA = SHARED_DATA ? path.join(SHARED_DATA, "media") : "";
const bins = resolveFfmpegBinaries({});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

function mediaFiles(): string[] {
  try {
    return fs.readdirSync(t.env.DATA_DIR, { recursive: true }).map(String);
  } catch {
    return [];
  }
}

async function upload(client: AuthedClient, url: string, field: string, file: string, name?: string) {
  const body = multipart(name ? { name } : {}, {
    field,
    filename: path.basename(file),
    content: fs.readFileSync(file),
  });
  return client.inject({ method: "POST", url, ...body });
}

/** Path on disk of the item's current playback file (local storage). */
function storedPath(key: string) {
  return path.join(t.env.DATA_DIR, "media", key);
}

describe("edit decision list -> one ffmpeg filter graph", () => {
  const base = {
    speed: 1,
    volume: 1,
    brightness: 100,
    contrast: 100,
    saturation: 100,
    blur: 0,
    fadeIn: 0,
    fadeOut: 0,
  };
  it("trims and concatenates kept segments, applies speed, eq, boxblur, fades and volume (no xfade: ffmpeg 4.1)", () => {
    const { kept } = segmentsFromCuts(0, 6, [4, 2, 9], [1]);
    expect(kept).toEqual([
      { start: 0, end: 2 },
      { start: 4, end: 6 },
    ]);
    const g = buildEditGraph(
      {
        ...base,
        segments: kept,
        speed: 0.25,
        volume: 1.5,
        brightness: 150,
        contrast: 80,
        saturation: 0,
        blur: 4,
        fadeIn: 1,
        fadeOut: 1,
      },
      { hasVideo: true, hasAudio: true },
    );
    expect(g.outputDurationSeconds).toBe(16);
    expect(g.filterComplex).toContain("[0:v]trim=start=0:end=2,setpts=PTS-STARTPTS[v0]");
    expect(g.filterComplex).toContain("[0:a]atrim=start=4:end=6,asetpts=PTS-STARTPTS[a1]");
    expect(g.filterComplex).toContain("[v0][a0][v1][a1]concat=n=2:v=1:a=1[vc][ac]");
    expect(g.filterComplex).toContain(
      "setpts=PTS/0.25,eq=brightness=0.25:contrast=0.8:saturation=0,boxblur=luma_radius=4:luma_power=1",
    );
    expect(g.filterComplex).toContain("fade=t=in:st=0:d=1,fade=t=out:st=15:d=1,format=yuv420p[vout]");
    expect(g.filterComplex).toContain(
      "[ac]atempo=0.5,atempo=0.5,volume=1.5,afade=t=in:st=0:d=1,afade=t=out:st=15:d=1[aout]",
    );
    expect(g.filterComplex).not.toContain("xfade");
  });
  it("audio-only and untouched edits need no concat or effects; fades never overlap", () => {
    const g = buildEditGraph(
      { ...base, segments: [{ start: 1, end: 2 }], fadeIn: 5, fadeOut: 5 },
      { hasVideo: false, hasAudio: true },
    );
    expect(g.videoLabel).toBeNull();
    expect(g.filterComplex).toBe(
      "[0:a]atrim=start=1:end=2,asetpts=PTS-STARTPTS[a0];[a0]afade=t=in:st=0:d=0.5,afade=t=out:st=0.5:d=0.5[aout]",
    );
    expect(atempoChain(2)).toEqual(["atempo=2"]);
    expect(atempoChain(1)).toEqual([]);
    expect(() => buildEditGraph({ ...base, segments: [] }, { hasVideo: true, hasAudio: true })).toThrow(
      "the edit keeps no segment",
    );
  });
});

describe("uploads: validation", () => {
  it("refuses a file over 100 MB with the spec's message and leaves nothing behind", async () => {
    const { client } = await signUp(t.app);
    const before = mediaFiles().filter((f) => !f.startsWith("tmp")).length;
    const body = multipart({ name: "huge" }, { field: "video", filename: "huge.mp4", content: zeros(101) });
    const res = await client.inject({ method: "POST", url: "/api/videos/upload", ...body });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ success: false, error: "File too large. Maximum size is 100MB." });
    expect(mediaFiles().filter((f) => !f.startsWith("tmp")).length).toBe(before);
    expect(fs.readdirSync(path.join(t.env.DATA_DIR, "tmp"))).toEqual([]);
    const list = await client.get("/api/media/list");
    expect(list.json()).toEqual({ success: true, media: [] });
  });

  it("decides the type by magic bytes: a text file named .mp4 is refused with the spec's message", async () => {
    const { client } = await signUp(t.app);
    const body = multipart(
      { name: "fake" },
      {
        field: "video",
        filename: "clip.mp4",
        contentType: "video/mp4",
        content: Buffer.from("just some text, not a video at all\n".repeat(20)),
      },
    );
    const res = await client.inject({ method: "POST", url: "/api/videos/upload", ...body });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      error: "Unsupported file type. Please upload MP4, WebM, MOV, MP3, or WAV files.",
    });
    expect((await client.get("/api/media/list")).json().media).toEqual([]);
    expect(fs.readdirSync(path.join(t.env.DATA_DIR, "tmp"))).toEqual([]);
  });

  it("refuses a PNG image (allowed list is audio/video only), a missing file, and non-multipart bodies", async () => {
    const { client } = await signUp(t.app);
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    const res = await client.inject({
      method: "POST",
      url: "/api/media/upload",
      ...multipart({}, { field: "file", filename: "a.png", content: png }),
    });
    expect(res.statusCode).toBe(415);
    const none = await client.inject({
      method: "POST",
      url: "/api/media/upload",
      ...multipart({ name: "x" }, null),
    });
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toBe("No file was uploaded");
    const json = await client.post("/api/videos/upload", { video: "x" });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe("Please upload the file as multipart/form-data");
  });

  it("requires sign-in", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/media/list" });
    expect(res.statusCode).toBe(401);
  });
});

describe.skipIf(!SHARED_DATA)(`shared media files (${SHARED_DATA_MISSING})`, () => {
  it("uploads every file in ../shared/data/media, processes it and reports ffprobe facts", async () => {
    const { client } = await signUp(t.app);
    const expected: Record<string, { type: string; duration: number; width?: number; height?: number }> = {
      "mdn-flower.mp4": { type: "video", duration: 5.06, width: 960, height: 540 },
      "mdn-flower.webm": { type: "video", duration: 5.06, width: 960, height: 540 },
      "mdn-t-rex-roar.mp3": { type: "audio", duration: 2.1 },
      "fluent-ffmpeg-testaudio-one.wav": { type: "audio", duration: 1.0 },
    };
    for (const file of fs.readdirSync(MEDIA)) {
      const exp = expected[file];
      const isVideo = exp?.type === "video";
      const res = await upload(
        client,
        isVideo ? "/api/videos/upload" : "/api/audio/upload",
        isVideo ? "video" : "audio",
        path.join(MEDIA, file),
        file,
      );
      expect(res.statusCode, `${file}: ${res.body}`).toBe(200);
      expect(res.json().success).toBe(true);
      expect(typeof res.json().media.id).toBe("number");
    }
    const list = (await client.get("/api/media/list")).json();
    expect(list.success).toBe(true);
    expect(list.media).toHaveLength(fs.readdirSync(MEDIA).length);
    for (const m of list.media) {
      const exp = expected[m.name];
      expect(m.processing_status, `${m.name}: ${m.processing_error}`).toBe("ready");
      if (!exp) continue;
      expect(m.type).toBe(exp.type);
      expect(m.duration).toBeGreaterThan(exp.duration - 0.15);
      expect(m.duration).toBeLessThan(exp.duration + 0.15);
      expect(m.size).toBeGreaterThan(0);
      expect(m.status).toBe("published");
      const file = await client.get(m.url);
      expect(file.statusCode).toBe(200);
      if (exp.type === "video") {
        expect(m.width).toBe(exp.width);
        expect(m.height).toBe(exp.height);
        expect(file.headers["content-type"]).toBe("video/mp4");
        expect(m.thumbnail_url).toMatch(/^\/api\/media\/\d+\/poster/);
        const poster = await client.get(m.thumbnail_url);
        expect(poster.headers["content-type"]).toBe("image/jpeg");
        expect(poster.rawPayload.subarray(0, 3).toString("hex")).toBe("ffd8ff");
        const gif = await client.get(m.gif_url);
        expect(gif.rawPayload.subarray(0, 6).toString()).toBe("GIF89a");
      } else {
        expect(file.headers["content-type"]).toBe("audio/mpeg");
      }
      const detail = (await client.get(`/api/media/${m.id}`)).json();
      expect(detail.peaks.channels.length).toBeGreaterThanOrEqual(1);
      expect(detail.peaks.channels[0].length).toBeGreaterThan(100);
      // the flower clip's audio track is digital silence (-91 dB); the audio files are not
      if (exp.type === "audio")
        expect(Math.max(...detail.peaks.channels[0].map(Math.abs))).toBeGreaterThan(0.01);
    }
    // the webm became an H.264/AAC MP4 (plays in Safari)
    const webm = list.media.find((m: { name: string }) => m.name === "mdn-flower.webm");
    const item = await t.db.query.mediaItems.findFirst({ where: (mi, { eq }) => eq(mi.id, webm.id) });
    const info = await probe(bins, storedPath(item!.currentKey!));
    expect(info.videoCodec).toBe("h264");
    expect(info.audioCodec).toBe("aac");
    // the wav became an MP3
    const wav = list.media.find((m: { name: string }) => m.name === "fluent-ffmpeg-testaudio-one.wav");
    const wavItem = await t.db.query.mediaItems.findFirst({ where: (mi, { eq }) => eq(mi.id, wav.id) });
    expect((await probe(bins, storedPath(wavItem!.currentKey!))).audioCodec).toBe("mp3");
  });

  it("serves byte ranges (206) for seeking and 416 for unsatisfiable ranges", async () => {
    const { client } = await signUp(t.app);
    const up = await upload(
      client,
      "/api/videos/upload",
      "video",
      path.join(MEDIA, "mdn-flower.mp4"),
      "flower",
    );
    const m = up.json().media;
    const res = await client.inject({
      method: "GET",
      url: `/api/media/${m.id}/file`,
      headers: { range: "bytes=0-99" },
    });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.length).toBe(100);
    expect(res.headers["content-range"]).toMatch(/^bytes 0-99\/\d+$/);
    const bad = await client.inject({
      method: "GET",
      url: `/api/media/${m.id}/file`,
      headers: { range: "bytes=999999999-" },
    });
    expect(bad.statusCode).toBe(416);
  });

  it("a recording uploaded as a draft lists first in /api/media/drafts with status draft", async () => {
    const { client } = await signUp(t.app);
    await upload(client, "/api/videos/upload", "video", path.join(MEDIA, "mdn-flower.mp4"), "published one");
    const draft = await upload(
      client,
      "/api/media/upload-draft",
      "file",
      path.join(MEDIA, "mdn-flower.webm"),
      "My recording",
    );
    expect(draft.statusCode).toBe(200);
    expect(draft.json()).toMatchObject({ success: true, media: { id: expect.any(Number), status: "draft" } });
    const drafts = (await client.get("/api/media/drafts")).json();
    expect(drafts.media.map((m: { name: string; status: string }) => [m.name, m.status])).toEqual([
      ["My recording", "draft"],
      ["published one", "published"],
    ]);
    const videos = (await client.get("/api/videos/my-videos")).json();
    expect(videos.success).toBe(true);
    expect(videos.videos[0]).toMatchObject({
      title: expect.any(String),
      url: expect.stringMatching(/^\/api\/media\/\d+\/file/),
      duration: expect.any(Number),
    });
  });

  it("an audio-only webm (like a MediaRecorder audio recording) becomes audio with an MP3 rendition", async () => {
    const { client } = await signUp(t.app);
    const webm = path.join(t.env.DATA_DIR, "voice.webm");
    await runFfmpeg(bins, {
      inputs: [{ path: path.join(MEDIA, "mdn-t-rex-roar.mp3") }],
      outputs: [{ path: webm, options: ["-c:a", "libopus", "-f", "webm"] }],
    });
    const res = await upload(client, "/api/media/upload", "file", webm, "voice memo");
    expect(res.statusCode).toBe(200);
    const m = (await client.get("/api/media/list")).json().media[0];
    expect(m).toMatchObject({ type: "audio", processing_status: "ready", mime_type: "audio/mpeg" });
    // a webm sent to the video endpoint is still audio once ffprobe finds no video stream
    const res2 = await upload(client, "/api/videos/upload", "video", webm, "voice memo 2");
    expect(res2.json().media.type).toBe("audio");
  });

  it("a corrupt file with valid magic bytes ends as failed with ffmpeg's reason", async () => {
    const { client } = await signUp(t.app);
    const head = fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")).subarray(0, 64);
    const corrupt = Buffer.concat([head, Buffer.alloc(4096, 7)]);
    const res = await client.inject({
      method: "POST",
      url: "/api/videos/upload",
      ...multipart({ name: "broken" }, { field: "video", filename: "b.mp4", content: corrupt }),
    });
    expect(res.statusCode).toBe(200);
    const m = (await client.get("/api/media/list")).json().media[0];
    expect(m.processing_status).toBe("failed");
    expect(m.processing_error).toBeTruthy();
    const edit = await client.post("/api/media/edit/trim", { mediaId: m.id, startTime: 0, endTime: 1 });
    expect(edit.statusCode).toBe(422);
  });
});

describe.skipIf(!SHARED_DATA)(`editing (${SHARED_DATA_MISSING})`, () => {
  let client: AuthedClient;
  let workspaceId: string;
  let videoId: number;
  let audioId: number;
  beforeAll(async () => {
    let user: { id: string };
    ({ client, user } = await signUp(t.app));
    workspaceId = user.id;
    // grading needs the premium editor (a paid plan); the last test checks the Free plan's refusal
    await setPlan(t, workspaceId, "professional");
    videoId = (
      await upload(client, "/api/videos/upload", "video", path.join(MEDIA, "mdn-flower.mp4"), "flower")
    ).json().media.id;
    audioId = (
      await upload(client, "/api/audio/upload", "audio", path.join(MEDIA, "mdn-t-rex-roar.mp3"), "roar")
    ).json().media.id;
  });

  async function current(id: number) {
    const item = await t.db.query.mediaItems.findFirst({ where: (mi, { eq }) => eq(mi.id, id) });
    return { item: item!, info: await probe(bins, storedPath(item!.currentKey!)) };
  }

  it("simple trim 1-4 s at speed 2 gives a 1.5 s H.264/AAC video; draft status keeps it a draft", async () => {
    const res = await client.post("/api/media/edit/trim", {
      mediaId: videoId,
      startTime: 1,
      endTime: 4,
      volume: 1.5,
      speed: 2,
      fadeIn: 0.5,
      fadeOut: 0.5,
      status: "draft",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, edit: { status: "done", progress: 100 } });
    const { item, info } = await current(videoId);
    expect(info.durationSeconds).toBeGreaterThan(1.4);
    expect(info.durationSeconds).toBeLessThan(1.65);
    expect(info.videoCodec).toBe("h264");
    expect(info.audioCodec).toBe("aac");
    expect(item.isDraft).toBe(true);
    expect(item.version).toBe(2);
    const progress = (await client.get(`/api/media/edits/${res.json().edit.id}`)).json();
    expect(progress.edit).toMatchObject({ status: "done", progress: 100 });
    // the original stays (non-destructive)
    const original = await client.get(`/api/media/${videoId}/original`);
    expect(original.rawPayload.length).toBe(fs.statSync(path.join(MEDIA, "mdn-flower.mp4")).size);
  });

  it("advanced edit: cuts split the selection, a dropped segment is removed, every effect applies; output checked with ffprobe", async () => {
    // current file is 1.5 s long; select 0-1.5, cuts at 0.5 and 1.0, drop the middle segment, speed 0.5
    const res = await client.post("/api/media/edit/advanced", {
      mediaId: videoId,
      startTime: 0,
      endTime: 1.5,
      volume: 0.8,
      speed: 0.5,
      effects: { brightness: 120, contrast: 90, saturation: 150, blur: 3, fadeIn: true, fadeOut: true },
      cuts: [1.0, 0.5, 2.5],
      removedSegments: [1],
      quality: "source",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().edit.status).toBe("done");
    const { item, info } = await current(videoId);
    expect(info.durationSeconds).toBeGreaterThan(1.85);
    expect(info.durationSeconds).toBeLessThan(2.2);
    expect(info.hasVideo && info.hasAudio).toBe(true);
    expect(item.isDraft).toBe(false);
    const m = (await client.get(`/api/media/${videoId}`)).json().media;
    expect(m.duration).toBeCloseTo(info.durationSeconds, 0);
    expect(m.thumbnail_url).toContain("v=3");
  });

  it("edits an audio item into an MP3 with the new length", async () => {
    const res = await client.post("/api/media/edit/trim", {
      mediaId: audioId,
      startTime: 0.5,
      endTime: 1.5,
      volume: 1,
      speed: 1,
      fadeIn: 0,
      fadeOut: 0,
      quality: "source",
    });
    expect(res.statusCode).toBe(200);
    const { info } = await current(audioId);
    expect(info.audioCodec).toBe("mp3");
    expect(info.hasVideo).toBe(false);
    expect(info.durationSeconds).toBeGreaterThan(0.9);
    expect(info.durationSeconds).toBeLessThan(1.15);
  });

  it.each([
    // 0 is no media id: answered like an unknown id (lib/validate recordId)
    [{ mediaId: 0, startTime: 0, endTime: 1 }, 404, "Media not found"],
    [{ mediaId: 1, startTime: 2, endTime: 1 }, 404, "Media not found"],
    [{ startTime: 0, endTime: 1 }, 400, "Media id must be a number"],
    [{ mediaId: 1, startTime: -1, endTime: 1 }, 400, "Start time cannot be negative"],
    [{ mediaId: 1, startTime: 0, endTime: 1, speed: 3 }, 400, "Speed must be 0.5, 1 or 2"],
    [{ mediaId: 1, startTime: 0, endTime: 1, volume: 5 }, 400, "Volume must be between 0 and 2"],
    [{ mediaId: 1, startTime: 0, endTime: 1, fadeIn: 9 }, 400, "Fade in must be at most 5 seconds"],
  ])("trim %j -> %i", async (payload, status, message) => {
    const res = await client.post("/api/media/edit/trim", payload);
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toContain(message);
  });

  it("rejects bad edits of a real item: end before start, every segment dropped, bad effect values", async () => {
    const end = await client.post("/api/media/edit/trim", { mediaId: videoId, startTime: 1, endTime: 0.5 });
    expect(end.statusCode).toBe(400);
    expect(end.json().error).toBe("End time must be after start time");
    const dropped = await client.post("/api/media/edit/advanced", {
      mediaId: videoId,
      startTime: 0,
      endTime: 1,
      cuts: [0.5],
      removedSegments: [0, 1],
    });
    expect(dropped.statusCode).toBe(400);
    expect(dropped.json().error).toBe("Keep at least one segment");
    const blur = await client.post("/api/media/edit/advanced", {
      mediaId: videoId,
      startTime: 0,
      endTime: 1,
      effects: { blur: 50 },
    });
    expect(blur.statusCode).toBe(400);
    expect(blur.json().error).toContain("Blur must be between 0 and 10");
  });

  it("the premium editor's colour grading and blur are refused on the Free plan (402, nothing queued); cuts, volume, speed and fades are not", async () => {
    await setPlan(t, workspaceId, "free");
    const edits = async () =>
      (await t.db.select().from(mediaEdits).where(eq(mediaEdits.mediaId, videoId))).length;
    const before = await edits();
    for (const effects of [{ brightness: 150 }, { contrast: 99 }, { saturation: 0 }, { blur: 0.5 }]) {
      const graded = await client.post("/api/media/edit/advanced", {
        mediaId: videoId,
        startTime: 0,
        endTime: 1,
        effects,
      });
      expect(graded.statusCode, JSON.stringify(effects)).toBe(402);
      expect(graded.json().error).toBe(
        "The premium editor is not included in your Free plan. Upgrade to Professional to use the premium editor.",
      );
    }
    expect(await edits()).toBe(before);
    // the free tools: a fade, a cut, volume and speed render on Free
    const free = await client.post("/api/media/edit/advanced", {
      mediaId: videoId,
      startTime: 0,
      endTime: 1,
      volume: 0.9,
      speed: 2,
      cuts: [0.5],
      effects: { brightness: 100, blur: 0, fadeIn: true },
    });
    expect(free.statusCode, free.body).toBe(200);
    expect(await edits()).toBe(before + 1);
  });
});

describe.skipIf(!SHARED_DATA)(`job failures (${SHARED_DATA_MISSING})`, () => {
  it("a render whose input vanished fails on its last attempt instead of staying 'rendering'; processing fails at once", async () => {
    const { client, user } = await signUp(t.app);
    const m = (
      await upload(client, "/api/videos/upload", "video", path.join(MEDIA, "mdn-flower.mp4"), "gone")
    ).json().media;
    const [edit] = await t.db
      .insert(mediaEdits)
      .values({
        workspaceId: user.id,
        mediaId: m.id,
        mode: "trim",
        edl: {
          segments: [{ start: 0, end: 1 }],
          speed: 1,
          volume: 1,
          brightness: 100,
          contrast: 100,
          saturation: 100,
          blur: 0,
          fadeIn: 0,
          fadeOut: 0,
        },
        inputKey: `u/${user.id}/m/${m.id}/missing.mp4`,
      })
      .returning();
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
    await expect(
      handlerOf(renderEditJob).handler({ editId: edit.id }, deps, { id: "x", retryCount: 0 }),
    ).rejects.toThrow();
    expect((await client.get(`/api/media/edits/${edit.id}`)).json().edit.status).toBe("rendering");
    await expect(
      handlerOf(renderEditJob).handler({ editId: edit.id }, deps, { id: "x", retryCount: 1 }),
    ).rejects.toThrow();
    expect((await client.get(`/api/media/edits/${edit.id}`)).json().edit).toMatchObject({
      status: "failed",
      error: expect.stringContaining("internal error"),
    });

    await t.db
      .update(mediaItems)
      .set({ currentKey: `u/${user.id}/m/${m.id}/missing.mp4`, processingStatus: "processing" })
      .where(eq(mediaItems.id, m.id));
    // a missing stored file is final at the first attempt (no retries)
    await handlerOf(processMediaJob).handler({ mediaId: m.id }, deps, { id: "y", retryCount: 0 });
    expect((await client.get(`/api/media/${m.id}`)).json().media).toMatchObject({
      processing_status: "failed",
      processing_error: "the uploaded file is missing",
    });
  });
});

describe.skipIf(!SHARED_DATA)(`tenant isolation and delete (${SHARED_DATA_MISSING})`, () => {
  it("another user's media id gives 404 everywhere; delete removes rows and files", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const m = (
      await upload(a.client, "/api/videos/upload", "video", path.join(MEDIA, "mdn-flower.mp4"), "mine")
    ).json().media;
    for (const url of [
      `/api/media/${m.id}`,
      `/api/media/${m.id}/file`,
      `/api/media/${m.id}/poster`,
      `/api/media/${m.id}/original`,
    ]) {
      expect((await b.client.get(url)).statusCode, url).toBe(404);
    }
    expect((await b.client.del(`/api/media/${m.id}`)).statusCode).toBe(404);
    expect(
      (await b.client.post("/api/media/edit/trim", { mediaId: m.id, startTime: 0, endTime: 1 })).statusCode,
    ).toBe(404);
    expect((await b.client.get("/api/media/list")).json().media).toEqual([]);
    const trpcOther = await b.client.get(
      `/trpc/studio.get?input=${encodeURIComponent(JSON.stringify({ json: { id: m.id } }))}`,
    );
    expect(trpcOther.statusCode).toBe(404);
    const dir = path.join(t.env.DATA_DIR, "media", "u", a.user.id, "m", String(m.id));
    expect(fs.existsSync(dir)).toBe(true);
    const del = await a.client.del(`/api/media/${m.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ success: true });
    expect(fs.existsSync(dir)).toBe(false);
    expect((await a.client.get(`/api/media/${m.id}`)).statusCode).toBe(404);
    // a path that names no item is the unknown id's 404, as /api/v1 answers it (lib/validate pathRecordId)
    const named = await a.client.del(`/api/media/abc`);
    expect([named.statusCode, named.json().error]).toEqual([404, "Media not found"]);
  });

  it("the tRPC studio router lists, edits and deletes like REST", async () => {
    const { client } = await signUp(t.app);
    const m = (
      await upload(client, "/api/videos/upload", "video", path.join(MEDIA, "mdn-flower.mp4"), "trpc")
    ).json().media;
    // the picker lists ready videos only: an upload whose processing failed (a preview past its time
    // limit on a machine under heavy load) says why here rather than as an empty picker below
    expect(m.processing_status, `${m.name}: ${m.processing_error}`).toBe("ready");
    const list = await client.get("/trpc/studio.list");
    expect(list.json().result.data.json.map((x: { id: number }) => x.id)).toEqual([m.id]);
    // the video campaign builder's picker: the same answer as GET /api/videos/my-videos, this workspace only
    const mine = await client.get("/trpc/studio.myVideos");
    expect(mine.json().result.data.json).toEqual((await client.get("/api/videos/my-videos")).json().videos);
    expect(mine.json().result.data.json).toMatchObject([{ id: m.id, title: "trpc" }]);
    const other = await signUp(t.app);
    expect((await other.client.get("/trpc/studio.myVideos")).json().result.data.json).toEqual([]);
    const edit = await client.post("/trpc/studio.trim", {
      json: { mediaId: m.id, startTime: 0, endTime: 2 },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json().result.data.json.status).toBe("done");
    const bad = await client.post("/trpc/studio.advanced", {
      json: { mediaId: m.id, startTime: 0, endTime: 1, speed: 7 },
    });
    expect(bad.statusCode).toBe(400);
    const del = await client.post("/trpc/studio.delete", { json: { id: m.id } });
    expect(del.json().result.data.json).toEqual({ success: true });
  });
});
