import { randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Env } from "../../../env";
import type { MediaItem, MediaProbe, RenditionKind } from "../../db/schema";
import type { JobDeps } from "../../jobs/define";
import {
  computePeaks,
  countVideoPackets,
  type FfmpegBinaries,
  FfmpegError,
  FfmpegTimeoutError,
  FrameTooLargeError,
  mediaDemuxer,
  PROBE_TIME_LIMIT_MS,
  type ProbeResult,
  probe,
  resolveFfmpegBinaries,
  runFfmpeg,
  verifyMediaFormat,
} from "../../lib/ffmpeg";
import { StorageNotFoundError } from "../../providers/storage";
import { buildEditGraph, renderOutputOptions } from "./studio.graph";
import { PROCESS_EXPIRE_SECONDS, RENDER_EXPIRE_SECONDS } from "./studio.jobs";
import * as q from "./studio.queries";
import { formatLength, MAX_MEDIA_SECONDS, MAX_VIDEO_PIXELS, MAX_VIDEO_WORK_PIXELS } from "./studio.schemas";

/**
 * Video frames go out as they came in (`-vsync vfr`), never repeated to fill a constant frame rate: two
 * frames an hour apart in a file that says 60 fps would otherwise be encoded as 216,000 frames. Kept
 * as `-vsync` (deprecated for `-fps_mode` since ffmpeg 5.1, still read by 7) for the npm 4.1 build.
 */
export const PASS_FRAMES = ["-vsync", "vfr"] as const;

/** Folder for temporary files (uploads in flight, S3 downloads, ffmpeg outputs): DATA_DIR/tmp. */
export function tmpDir(deps: { env: Pick<Env, "DATA_DIR"> }): string {
  const dir = path.join(deps.env.DATA_DIR, "tmp");
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Storage prefix of every file of one media item: `u/<workspaceId>/m/<mediaId>`. */
export function mediaPrefix(workspaceId: string, mediaId: number): string {
  return `${workspaceMediaPrefix(workspaceId)}/m/${mediaId}`;
}

/** The storage folder of a workspace's whole media library (each item under mediaPrefix). */
export function workspaceMediaPrefix(workspaceId: string): string {
  return `u/${workspaceId}`;
}

function bins(env: Env): FfmpegBinaries {
  return resolveFfmpegBinaries(env);
}

function toProbe(p: ProbeResult): MediaProbe {
  return {
    formatName: p.formatName,
    durationSeconds: p.durationSeconds,
    bitRate: p.bitRate ?? undefined,
    videoCodec: p.videoCodec,
    audioCodec: p.audioCodec,
    width: p.width,
    height: p.height,
    frameRate: p.frameRate,
    sampleRate: p.sampleRate,
    channels: p.channels,
  };
}

async function storeRendition(
  deps: JobDeps,
  item: Pick<MediaItem, "id" | "workspaceId">,
  kind: RenditionKind,
  name: string,
  file: string,
  mime: string,
  extra: { durationSeconds?: number | null; editId?: number } = {},
) {
  const key = `${mediaPrefix(item.workspaceId, item.id)}/${name}`;
  const stored = await deps.providers.storage.putFile(key, file, { contentType: mime, move: true });
  try {
    await q.upsertRendition(deps.db, {
      mediaId: item.id,
      kind,
      storageKey: key,
      mimeType: mime,
      sizeBytes: stored.size,
      ...extra,
    });
  } catch (error) {
    // the item was deleted while its job ran (its files went with it): no row will ever name this
    // file, so it goes too (a retry that still finds the item stores it again)
    await deps.providers.storage.delete(key).catch(() => {});
    throw error;
  }
  return { key, size: stored.size };
}

/** A scratch folder for one job run, removed by `done()`. */
async function scratch(deps: JobDeps) {
  const dir = path.join(tmpDir(deps), `job-${randomUUID()}`);
  await fsp.mkdir(dir, { recursive: true });
  return { dir, done: () => fsp.rm(dir, { recursive: true, force: true }) };
}

/**
 * How long each preview run over a video may take (the poster, the GIF), in milliseconds: 15 s. The
 * GIF of a 4K 60 fps H.264 file (3 s: 180 frames decoded) takes about 2 s on 2 cores, the poster
 * under 1 s; a preview still running at the limit is killed (SIGKILL).
 */
export const PREVIEW_TIME_LIMIT_MS = 15_000;

/** A time limit for people: "20 s", "29 min"; under a second in milliseconds (limits set by tests). */
function formatLimit(ms: number): string {
  return ms < 1000 ? `${ms} ms` : formatLength(ms / 1000);
}

/** The item's error when reading (probing) its file ran past its limit (PROBE_TIME_LIMIT_MS). */
export function probeTimeoutMessage(ms: number): string {
  return `Reading this file took longer than ${formatLimit(ms)} and was stopped: it may be damaged or unusually built. Please export it again (MP4 with H.264 works everywhere) and upload it.`;
}

/** The item's error when its poster or GIF preview ran past its limit (PREVIEW_TIME_LIMIT_MS). */
export function previewTimeoutMessage(ms: number): string {
  return `Making this video's preview took longer than ${formatLimit(ms)} and was stopped. Please export it at a smaller size or a lower frame rate and upload it again.`;
}

/** The item's error when decoding its sound for the waveform ran past its limit (lib/ffmpeg peaksTimeLimitMs). */
export function waveformTimeoutMessage(ms: number): string {
  return `Reading this file's sound for its waveform took longer than ${formatLimit(ms)} and was stopped. Please export it again and upload it.`;
}

/**
 * Poster (JPEG, 640 px wide, frame at min(1 s, duration/2)) and animated GIF preview (first 3 s,
 * 10 fps, 320 px wide, palettegen/paletteuse) of a video file. Each ffmpeg run is killed after
 * `limits.timeLimitMs` (default PREVIEW_TIME_LIMIT_MS) or when `limits.signal` aborts.
 * @throws FfmpegTimeoutError when a run ran out of time; FfmpegError when ffmpeg fails.
 */
async function makeVideoPreviews(
  b: FfmpegBinaries,
  input: string,
  format: string,
  duration: number,
  dir: string,
  limits: { timeLimitMs?: number; signal?: AbortSignal } = {},
) {
  const run = { timeLimitMs: limits.timeLimitMs ?? PREVIEW_TIME_LIMIT_MS, signal: limits.signal };
  const poster = path.join(dir, "poster.jpg");
  const gif = path.join(dir, "preview.gif");
  const made = (f: string) => fs.existsSync(f) && fs.statSync(f).size > 0;
  // ffmpeg exits 0 with no output when the seek lands past the last video frame (short or
  // oddly timed recordings): fall back to the first frame
  for (const at of [Math.min(1, Math.max(0, duration / 2)), 0]) {
    await runFfmpeg(
      b,
      {
        inputs: [{ path: input, format, options: ["-ss", at.toFixed(3)] }],
        outputs: [{ path: poster, options: ["-frames:v", "1", "-vf", "scale=640:-2", "-q:v", "3"] }],
      },
      run,
    );
    if (made(poster)) break;
  }
  await runFfmpeg(
    b,
    {
      inputs: [{ path: input, format, options: ["-t", "3"] }],
      filterComplex:
        // trim after fps: the input's `-t 3` does not end the stream for fps, which repeats the last frame up to
        // the next one, and palettegen waits for the end: two frames an hour apart made 36,000 GIF frames
        "[0:v]fps=10,trim=duration=3,scale=320:-2:flags=lanczos,split[a][b];[a]palettegen=max_colors=128[p];[b][p]paletteuse=dither=bayer",
      outputs: [{ path: gif, options: ["-loop", "0"] }],
    },
    run,
  );
  return { poster: made(poster) ? poster : null, gif: made(gif) ? gif : null };
}

/**
 * The processing job's work for one media item (`studio.process-media`):
 * ffprobe metadata; an H.264/AAC MP4 playback rendition for video (remuxed with faststart when the
 * source already is H.264/AAC in MP4/MOV, else transcoded: webm recordings then play in Safari too)
 * or an MP3 for audio; a poster and an animated GIF for video; waveform peaks for any audio track.
 * A file ffmpeg cannot read ends as `failed` with ffmpeg's reason (no retry, no crash); a conversion
 * still running `hooks.timeLimitMs` after the start (PROCESS_TIME_LIMIT_MS: just under the job's
 * expiry) is killed and the item fails with a sentence, as does a file whose decoder meets a frame over
 * MAX_VIDEO_PIXELS (a stream that grows part-way: frameTooLargeMessage). Every other ffmpeg and
 * ffprobe run has its own limit too, and one past it fails the item with a sentence: each probe
 * `hooks.probeTimeLimitMs` (PROBE_TIME_LIMIT_MS, probeTimeoutMessage), the poster and the GIF
 * `hooks.previewTimeLimitMs` each (PREVIEW_TIME_LIMIT_MS, previewTimeoutMessage), the waveform's decode
 * lib/ffmpeg peaksTimeLimitMs of its duration (waveformTimeoutMessage); previews and waveform also stop at
 * the conversion's limit. Other errors (storage, database) are thrown so the job is retried.
 */
export async function processMedia(
  deps: JobDeps,
  mediaId: number,
  hooks: { timeLimitMs?: number; probeTimeLimitMs?: number; previewTimeLimitMs?: number } = {},
): Promise<void> {
  const timeLimit = hooks.timeLimitMs ?? PROCESS_TIME_LIMIT_MS;
  const probeLimit = hooks.probeTimeLimitMs ?? PROBE_TIME_LIMIT_MS;
  const previewLimit = hooks.previewTimeLimitMs ?? PREVIEW_TIME_LIMIT_MS;
  // counts from the job's start: the conversion is killed before pg-boss would retry the job beside it
  const deadline = AbortSignal.timeout(timeLimit);
  const item = await q.selectMediaItem(deps.db, mediaId);
  if (!item?.currentKey) return;
  const b = bins(deps.env);
  const fail = async (reason: string) => {
    await q.updateMediaItem(deps.db, mediaId, {
      processingStatus: "failed",
      processingError: reason.slice(0, 1000),
      updatedAt: new Date(),
    });
  };
  const work = await scratch(deps);
  let local: { path: string; cleanup: () => Promise<void> };
  try {
    local = await deps.providers.storage.toLocalFile(item.currentKey, work.dir);
  } catch (error) {
    await work.done();
    // the stored file is gone (deleted meanwhile): retrying cannot help
    if (error instanceof StorageNotFoundError) return fail("the uploaded file is missing");
    throw error;
  }
  try {
    let info: ProbeResult;
    let format: string;
    try {
      // the demuxer from the magic bytes, pinned for every ffmpeg run on this file; a file ffmpeg
      // would detect as something else (an HLS playlist behind an ID3 tag) is refused
      format = await mediaDemuxer(local.path);
      await verifyMediaFormat(b, local.path, format, { timeLimitMs: probeLimit });
      info = await probe(b, local.path, { format, timeLimitMs: probeLimit });
    } catch (error) {
      // a decoder's refusal of the first frames' size says what beyondStudioLimits says of a header
      if (error instanceof FrameTooLargeError)
        await fail(
          beyondStudioLimits({ durationSeconds: 0, width: error.width, height: error.height }) ??
            frameTooLargeMessage(error),
        );
      else if (error instanceof FfmpegTimeoutError) await fail(probeTimeoutMessage(error.limitMs));
      else await fail(error instanceof FfmpegError ? error.reason : "could not read the file");
      return;
    }
    let frames = 0;
    try {
      if (info.hasVideo) frames = await countVideoPackets(b, local.path, { format, timeLimitMs: probeLimit });
    } catch (error) {
      if (error instanceof FfmpegTimeoutError) await fail(probeTimeoutMessage(error.limitMs));
      else await fail(error instanceof FfmpegError ? error.reason : "could not read the file");
      return;
    }
    const tooBig = beyondStudioLimits({ ...info, frames });
    if (tooBig) {
      await fail(tooBig);
      return;
    }
    const type = info.hasVideo ? "video" : "audio";
    // every conversion stops at the limit even when the container's duration lied
    const cap = ["-t", String(MAX_MEDIA_SECONDS)];
    // which run a time limit stopped, for the sentence
    let step: "probe" | "preview" | "waveform" | "convert" = "convert";
    try {
      let playback: { key: string; size: number };
      let posterKey: string | null = null;
      let gifKey: string | null = null;
      if (type === "video") {
        const out = path.join(work.dir, "playback.mp4");
        const canRemux =
          info.videoCodec === "h264" &&
          (!info.hasAudio || info.audioCodec === "aac") &&
          /mp4|mov/.test(info.formatName);
        const videoOpts = canRemux
          ? ["-map", "0:v:0", "-c:v", "copy"]
          : [
              "-map",
              "0:v:0",
              "-vf",
              "scale=trunc(iw/2)*2:trunc(ih/2)*2",
              "-c:v",
              "libx264",
              "-preset",
              "veryfast",
              "-crf",
              "23",
              "-pix_fmt",
              "yuv420p",
              ...PASS_FRAMES,
            ];
        const audioOpts = info.hasAudio
          ? ["-map", "0:a:0", "-c:a", canRemux ? "copy" : "aac", ...(canRemux ? [] : ["-b:a", "128k"])]
          : [];
        await runFfmpeg(
          b,
          {
            inputs: [{ path: local.path, format }],
            outputs: [
              { path: out, options: [...videoOpts, ...audioOpts, ...cap, "-movflags", "+faststart"] },
            ],
          },
          { signal: deadline },
        );
        step = "probe";
        const outInfo = await probe(b, out, { format: "mov", timeLimitMs: probeLimit });
        info.durationSeconds = outInfo.durationSeconds || info.durationSeconds;
        step = "preview";
        const previews = await makeVideoPreviews(b, out, "mov", info.durationSeconds, work.dir, {
          timeLimitMs: previewLimit,
          signal: deadline,
        });
        if (previews.poster)
          posterKey = (
            await storeRendition(
              deps,
              item,
              "poster",
              `poster-v${item.version}.jpg`,
              previews.poster,
              "image/jpeg",
            )
          ).key;
        if (previews.gif)
          gifKey = (
            await storeRendition(deps, item, "gif", `preview-v${item.version}.gif`, previews.gif, "image/gif")
          ).key;
        // peaks before the playback file moves into storage
        step = "waveform";
        const peaks = info.hasAudio
          ? await computePeaks(b, out, {
              format: "mov",
              durationSeconds: info.durationSeconds,
              channels: info.channels ?? 2,
              signal: deadline,
            })
          : null;
        playback = await storeRendition(deps, item, "playback", "playback.mp4", out, "video/mp4", {
          durationSeconds: info.durationSeconds,
        });
        await q.updateMediaItem(deps.db, mediaId, {
          type,
          processingStatus: "ready",
          processingError: null,
          durationSeconds: info.durationSeconds,
          width: info.width,
          height: info.height,
          probe: toProbe(info),
          peaks: peaks ? { durationSeconds: info.durationSeconds, channels: peaks } : null,
          currentKey: playback.key,
          sizeBytes: playback.size,
          posterKey,
          gifKey,
          updatedAt: new Date(),
        });
      } else {
        const out = path.join(work.dir, "playback.mp3");
        const isMp3 = info.audioCodec === "mp3" && /mp3/.test(info.formatName);
        await runFfmpeg(
          b,
          {
            inputs: [{ path: local.path, format }],
            outputs: [
              {
                path: out,
                options: [
                  "-map",
                  "0:a:0",
                  "-vn",
                  ...(isMp3 ? ["-c:a", "copy"] : ["-c:a", "libmp3lame", "-b:a", "128k"]),
                  ...cap,
                ],
              },
            ],
          },
          { signal: deadline },
        );
        step = "probe";
        const outInfo = await probe(b, out, { format: "mp3", timeLimitMs: probeLimit });
        info.durationSeconds = outInfo.durationSeconds || info.durationSeconds;
        step = "waveform";
        const peaks = await computePeaks(b, out, {
          format: "mp3",
          durationSeconds: info.durationSeconds,
          channels: info.channels ?? 2,
          signal: deadline,
        });
        playback = await storeRendition(deps, item, "playback", "playback.mp3", out, "audio/mpeg", {
          durationSeconds: info.durationSeconds,
        });
        await q.updateMediaItem(deps.db, mediaId, {
          type,
          mimeType: item.mimeType === "video/webm" ? "audio/webm" : item.mimeType,
          processingStatus: "ready",
          processingError: null,
          durationSeconds: info.durationSeconds,
          probe: toProbe(info),
          peaks: { durationSeconds: info.durationSeconds, channels: peaks },
          currentKey: playback.key,
          sizeBytes: playback.size,
          updatedAt: new Date(),
        });
      }
    } catch (error) {
      if (error instanceof FfmpegError) {
        // the person sees a sentence; ffmpeg's own words go to the log for whoever debugs it
        deps.log.warn({ mediaId, reason: error.reason }, "media processing failed");
        if (error instanceof FrameTooLargeError) {
          await fail(frameTooLargeMessage(error));
          return;
        }
        if (error instanceof FfmpegTimeoutError && step !== "convert") {
          await fail(
            step === "probe"
              ? probeTimeoutMessage(error.limitMs)
              : step === "preview"
                ? previewTimeoutMessage(error.limitMs)
                : waveformTimeoutMessage(error.limitMs),
          );
          return;
        }
        if (deadline.aborted) {
          await fail(
            `Converting this file took longer than ${formatLength(timeLimit / 1000)} and was stopped. Please export it at a smaller size or a lower frame rate and upload it again.`,
          );
          return;
        }
        await fail(
          "We could not convert this file for playback: it may be damaged or use an unusual encoding. Please export it again (MP4 with H.264 works everywhere) and upload it.",
        );
        return;
      }
      throw error;
    }
  } finally {
    await local.cleanup();
    await work.done();
  }
}

/**
 * Why the studio does not convert a probed file, or null when it may: longer than MAX_MEDIA_SECONDS
 * (2 hours), video frames of more than MAX_VIDEO_PIXELS (4096 x 2160), or more video to encode than
 * MAX_VIDEO_WORK_PIXELS (`frames` x width x height; 30 minutes of 1080p at 30 fps). The sentence is the
 * item's processing error. A duration the file does not state (0: a browser recording) is not refused
 * here; the conversion stops at the limit (`-t`).
 */
export function beyondStudioLimits(
  info: Pick<ProbeResult, "durationSeconds" | "width" | "height"> & { frames?: number },
) {
  if (info.durationSeconds > MAX_MEDIA_SECONDS)
    return `This file is ${formatLength(info.durationSeconds)} long; the studio takes media up to ${formatLength(MAX_MEDIA_SECONDS)}. Please upload a shorter file.`;
  if ((info.width ?? 0) * (info.height ?? 0) > MAX_VIDEO_PIXELS)
    return `This video is ${info.width} x ${info.height} pixels; the studio takes video up to 4K (4096 x 2160). Please export it at a smaller size and upload it again.`;
  const frames = info.frames ?? 0;
  if (frames * (info.width ?? 0) * (info.height ?? 0) > MAX_VIDEO_WORK_PIXELS)
    return `This video has ${frames.toLocaleString("en-US")} frames of ${info.width} x ${info.height} pixels, more than the studio converts (30 minutes of 1080p at 30 frames a second, or fewer frames of a larger picture). Please export it at a lower frame rate or size and upload it again.`;
  return null;
}

/**
 * The sentence for a video whose decoder refused a frame over MAX_VIDEO_PIXELS (lib/ffmpeg
 * FrameTooLargeError) after the probed size was within it: the stream grows part-way.
 */
export function frameTooLargeMessage(frame: { width: number; height: number }): string {
  return `This video changes to ${frame.width} x ${frame.height} pixels part-way through; the studio takes video up to 4K (4096 x 2160). Please export it at one size no larger than 4K and upload it again.`;
}

/** Hooks for measuring a render (benchmarks). */
export interface RenderHooks {
  /** minimum milliseconds between progress writes (default 500) */
  progressIntervalMs?: number;
  /** milliseconds the ffmpeg run may take (default RENDER_TIME_LIMIT_MS) */
  timeLimitMs?: number;
}

/**
 * How long processing's conversion (the playback rendition) may run: a minute less than the job's
 * expiry (PROCESS_EXPIRE_SECONDS); then ffmpeg is killed and the item fails with a sentence.
 */
export const PROCESS_TIME_LIMIT_MS = (PROCESS_EXPIRE_SECONDS - 60) * 1000;

/**
 * How long a render's ffmpeg may run: a minute less than the job's expiry (RENDER_EXPIRE_SECONDS), so
 * it is killed before pg-boss hands the job to another attempt, never left encoding beside it.
 */
export const RENDER_TIME_LIMIT_MS = (RENDER_EXPIRE_SECONDS - 60) * 1000;

/** The edit's error when its render ran out of time. */
export function renderTimeoutMessage(ms: number): string {
  return `The render took longer than ${formatLength(ms / 1000)} and was stopped. Try a shorter part, fewer effects or a faster speed.`;
}

/**
 * The render job's work (`studio.render-edit`): renders an edit decision list with ONE ffmpeg filter
 * graph (`buildEditGraph`) into a new rendition (`edit-<id>.mp4|mp3`), non-destructively: the
 * original and earlier renditions stay. Progress (0-1) is parsed from ffmpeg's `-progress` output and
 * written at most every 500 ms. On success the item plays the new rendition (version + 1, draft or
 * published as the edit asked) and a `studio.derive-previews` job refreshes poster, GIF and peaks.
 * An ffmpeg failure marks the edit `failed` with ffmpeg's reason; a run past `hooks.timeLimitMs`
 * (RENDER_TIME_LIMIT_MS: just under the job's expiry) is killed and the edit fails with renderTimeoutMessage;
 * a frame over MAX_VIDEO_PIXELS stops the decoder and the edit fails with frameTooLargeMessage.
 * @returns true when the render succeeded.
 */
export async function renderEdit(deps: JobDeps, editId: number, hooks: RenderHooks = {}): Promise<boolean> {
  const edit = await q.selectMediaEdit(deps.db, editId);
  if (!edit || edit.status === "done") return edit?.status === "done";
  const item = await q.selectMediaItem(deps.db, edit.mediaId);
  if (!item) return false;
  await q.updateMediaEdit(deps.db, editId, {
    status: "rendering",
    startedAt: new Date(),
    progress: 0,
    error: null,
  });
  const b = bins(deps.env);
  const work = await scratch(deps);
  const local = await deps.providers.storage.toLocalFile(edit.inputKey, work.dir);
  try {
    const hasVideo = item.type === "video";
    const hasAudio = Boolean(item.probe?.audioCodec);
    const graph = buildEditGraph(edit.edl, { hasVideo, hasAudio });
    const out = renderOutputOptions(graph);
    const file = path.join(work.dir, `edit.${out.ext}`);
    let lastWrite = 0;
    let pending: Promise<unknown> = Promise.resolve();
    const interval = hooks.progressIntervalMs ?? 500;
    const timeLimit = hooks.timeLimitMs ?? RENDER_TIME_LIMIT_MS;
    const deadline = AbortSignal.timeout(timeLimit);
    try {
      const format = await mediaDemuxer(local.path);
      await runFfmpeg(
        b,
        {
          inputs: [{ path: local.path, format }],
          filterComplex: graph.filterComplex,
          // an edit queued before the length check (studio.service assertRenderLength) stops at the limit
          outputs: [{ path: file, options: [...out.options, "-t", String(MAX_MEDIA_SECONDS)] }],
          progress: true,
        },
        {
          onProgress: (p) => {
            const now = Date.now();
            if (p.done || now - lastWrite < interval) return;
            lastWrite = now;
            const fraction = Math.min(
              0.99,
              graph.outputDurationSeconds > 0 ? p.outTimeSeconds / graph.outputDurationSeconds : 0,
            );
            pending = pending.then(() =>
              q.updateMediaEdit(deps.db, editId, { progress: fraction }, "rendering").catch(() => {}),
            );
          },
          // killed (SIGKILL) at the limit
          signal: deadline,
        },
      );
    } catch (error) {
      await pending;
      if (error instanceof FfmpegError) {
        await q.updateMediaEdit(deps.db, editId, {
          status: "failed",
          error: deadline.aborted
            ? renderTimeoutMessage(timeLimit)
            : error instanceof FrameTooLargeError
              ? frameTooLargeMessage(error)
              : error.reason.slice(0, 1000),
          finishedAt: new Date(),
        });
        return false;
      }
      throw error;
    }
    await pending;
    const stored = await storeRendition(deps, item, "edit", `edit-${editId}.${out.ext}`, file, out.mime, {
      durationSeconds: graph.outputDurationSeconds,
      editId,
    });
    await q.completeRender(
      deps.db,
      editId,
      {
        status: "done",
        progress: 1,
        outputKey: stored.key,
        outputDurationSeconds: graph.outputDurationSeconds,
        finishedAt: new Date(),
      },
      item.id,
      {
        currentKey: stored.key,
        sizeBytes: stored.size,
        durationSeconds: graph.outputDurationSeconds,
        isDraft: edit.saveAsDraft,
        updatedAt: new Date(),
      },
    );
    return true;
  } finally {
    await local.cleanup();
    await work.done();
  }
}

/**
 * Refreshes poster, GIF preview and waveform peaks from the item's current file after a render
 * (`studio.derive-previews`). Measures the exact duration with ffprobe. Each run has its time limit
 * (PROBE_TIME_LIMIT_MS, PREVIEW_TIME_LIMIT_MS per preview, lib/ffmpeg peaksTimeLimitMs); an ffmpeg
 * failure, a run past its limit included, is logged and the item keeps the previews it had.
 */
export async function derivePreviews(deps: JobDeps, mediaId: number): Promise<void> {
  const item = await q.selectMediaItem(deps.db, mediaId);
  if (!item?.currentKey) return;
  const b = bins(deps.env);
  const work = await scratch(deps);
  const local = await deps.providers.storage.toLocalFile(item.currentKey, work.dir);
  try {
    const format = await mediaDemuxer(local.path);
    const info = await probe(b, local.path, { format });
    const set: q.MediaItemPatch = {
      durationSeconds: info.durationSeconds,
      updatedAt: new Date(),
    };
    if (info.hasAudio) {
      const peaks = await computePeaks(b, local.path, {
        format,
        durationSeconds: info.durationSeconds,
        channels: info.channels ?? 2,
      });
      set.peaks = { durationSeconds: info.durationSeconds, channels: peaks };
    }
    if (info.hasVideo) {
      const previews = await makeVideoPreviews(b, local.path, format, info.durationSeconds, work.dir);
      if (previews.poster)
        set.posterKey = (
          await storeRendition(
            deps,
            item,
            "poster",
            `poster-v${item.version}.jpg`,
            previews.poster,
            "image/jpeg",
          )
        ).key;
      if (previews.gif)
        set.gifKey = (
          await storeRendition(deps, item, "gif", `preview-v${item.version}.gif`, previews.gif, "image/gif")
        ).key;
    }
    // only if no newer render replaced the file meanwhile
    await q.updateMediaItem(deps.db, mediaId, set, { version: item.version });
  } catch (error) {
    if (error instanceof FfmpegError)
      deps.log.warn({ mediaId, reason: error.reason }, "could not refresh previews");
    else throw error;
  } finally {
    await local.cleanup();
    await work.done();
  }
}
