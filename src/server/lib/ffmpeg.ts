/**
 * A small typed layer over the ffmpeg and ffprobe binaries (child_process.spawn, no shell).
 *
 * Binaries (`resolveFfmpegBinaries`): `FFMPEG_PATH` / `FFPROBE_PATH` when set; else the system's `ffmpeg` and
 * `ffprobe` found on PATH when both are version 5 or newer; else the npm builds from `@ffmpeg-installer/ffmpeg`
 * (4.1: no `xfade`) and `@ffprobe-installer/ffprobe`. ARCHITECTURE.md explains why not fluent-ffmpeg.
 *
 * User media is never opened with format auto-detection: every probe and every render of a user's file pins
 * the demuxer (`-f`) from the file's magic bytes (`mediaDemuxer`), allows only that demuxer
 * (`-format_whitelist`) and only the `file` protocol (`-protocol_whitelist file`). Auto-detection let an
 * ID3-prefixed HLS playlist that `file-type` calls audio/mpeg read other local files through `file://`
 * segments (issue 11, finding 1). `verifyMediaFormat` refuses a file that ffmpeg or ffprobe would detect as
 * anything but its magic-byte type.
 *
 * Decoders of those inputs make no picture larger than DECODE_MAX_PIXELS (`-max_pixels`): ffprobe's
 * stream header gives only the first frames' size, and a stream can grow part-way. A run whose decoder
 * refuses a frame is killed and rejects with a FrameTooLargeError.
 *
 * Every run over user media has a time limit: probes PROBE_TIME_LIMIT_MS, waveform decoding
 * peaksTimeLimitMs, the callers' conversions, previews and renders their own (`RunOptions.timeLimitMs`
 * or `signal`). A run past its limit is killed (SIGKILL) and rejects with an FfmpegTimeoutError.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Readable } from "node:stream";
import { fileTypeFromFile } from "file-type";

const require = createRequire(import.meta.url);

/** Absolute paths of the ffmpeg and ffprobe binaries to run, and where they came from. */
export interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
  /** `env` (FFMPEG_PATH/FFPROBE_PATH), `system` (PATH, version >= 5) or `npm` (@ffmpeg-installer builds) */
  source?: "env" | "system" | "npm";
  /** ffmpeg's version string as `-version` prints it (e.g. "6.1.1-3" or "N-47683-g0e8eb07980-static") */
  version?: string;
}

/** The oldest system ffmpeg preferred over the npm build (major version). */
export const MIN_SYSTEM_FFMPEG_MAJOR = 5;

/** `ffmpeg -version`'s version word, or null when the binary does not run. */
export function ffmpegVersion(file: string): string | null {
  try {
    const out = spawnSync(file, ["-version"], { encoding: "utf8", timeout: 10_000 });
    if (out.status !== 0) return null;
    return /^\S+ version (\S+)/.exec(out.stdout)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** Major version of a release version string ("6.1.1-3" -> 6, "n5.1.4" -> 5); null for git snapshots ("N-47683-..."). */
export function ffmpegMajor(version: string | null): number | null {
  const m = version ? /^n?(\d+)\./.exec(version) : null;
  return m ? Number(m[1]) : null;
}

function onPath(name: string, searchPath: string | undefined): string | null {
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {}
  }
  return null;
}

const resolved = new Map<string, FfmpegBinaries>();

/**
 * The other binary of an explicit override: FFPROBE_PATH for FFMPEG_PATH alone and the reverse, taken
 * from the same folder (`/opt/ff/ffmpeg` -> `/opt/ff/ffprobe`), so that probing and rendering use one
 * build. @throws Error naming the variable to set when that folder does not hold it.
 */
function siblingBinary(given: string, name: "ffmpeg" | "ffprobe", variable: string): string {
  const file = path.join(path.dirname(given), name);
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return file;
  } catch {
    throw new Error(
      `${variable} is not set and ${file} does not exist: set both FFMPEG_PATH and FFPROBE_PATH to binaries of one ffmpeg build`,
    );
  }
}

/**
 * Resolves the binaries once per configuration: explicit overrides (env FFMPEG_PATH / FFPROBE_PATH) win,
 * one of them alone paired with its sibling in the same folder; else the system's `ffmpeg` and `ffprobe`
 * on `PATH` when both run and report version >= 5 (one current build for probing and rendering); else
 * the npm packages. `PATH` defaults to the process's. @throws Error when only one override is set and
 * its folder lacks the other binary (a configuration error, reported at boot).
 */
export function resolveFfmpegBinaries(
  env: { FFMPEG_PATH?: string; FFPROBE_PATH?: string; PATH?: string } = {},
): FfmpegBinaries {
  const searchPath = env.PATH ?? process.env.PATH;
  const key = `${env.FFMPEG_PATH}|${env.FFPROBE_PATH}|${searchPath}`;
  const cached = resolved.get(key);
  if (cached) return cached;
  let result: FfmpegBinaries | null = null;
  if (env.FFMPEG_PATH || env.FFPROBE_PATH) {
    const ffmpeg = env.FFMPEG_PATH ?? siblingBinary(env.FFPROBE_PATH as string, "ffmpeg", "FFMPEG_PATH");
    const ffprobe = env.FFPROBE_PATH ?? siblingBinary(ffmpeg, "ffprobe", "FFPROBE_PATH");
    result = { ffmpeg, ffprobe, source: "env", version: ffmpegVersion(ffmpeg) ?? undefined };
  } else {
    const sysFfmpeg = onPath("ffmpeg", searchPath);
    const sysFfprobe = onPath("ffprobe", searchPath);
    if (sysFfmpeg && sysFfprobe) {
      const version = ffmpegVersion(sysFfmpeg);
      const major = ffmpegMajor(version);
      const probeMajor = ffmpegMajor(ffmpegVersion(sysFfprobe));
      if (
        major !== null &&
        major >= MIN_SYSTEM_FFMPEG_MAJOR &&
        probeMajor !== null &&
        probeMajor >= MIN_SYSTEM_FFMPEG_MAJOR
      )
        result = { ffmpeg: sysFfmpeg, ffprobe: sysFfprobe, source: "system", version: version ?? undefined };
    }
  }
  if (!result) {
    const ffmpeg = (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
    const ffprobe = (require("@ffprobe-installer/ffprobe") as { path: string }).path;
    result = { ffmpeg, ffprobe, source: "npm", version: ffmpegVersion(ffmpeg) ?? undefined };
  }
  resolved.set(key, result);
  return result;
}

/**
 * ffmpeg demuxer for each media MIME type `file-type` can report for an accepted upload (studio uploads:
 * MP4, MOV, WebM, MP3, WAV) and for the pictures and sounds the app makes itself (PNG, JPEG).
 */
export const DEMUXER_BY_MIME: Readonly<Record<string, string>> = {
  "video/mp4": "mov",
  "video/x-m4v": "mov",
  "video/quicktime": "mov",
  "audio/mp4": "mov",
  "audio/x-m4a": "mov",
  "video/webm": "matroska",
  "audio/webm": "matroska",
  "video/x-matroska": "matroska",
  "audio/mpeg": "mp3",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/vnd.wave": "wav",
  "image/png": "png_pipe",
  "image/jpeg": "jpeg_pipe",
};

/** Human names of the demuxers (for refusal messages). */
const FORMAT_LABEL: Record<string, string> = {
  mov: "MP4/MOV",
  matroska: "WebM",
  mp3: "MP3",
  wav: "WAV",
  png_pipe: "PNG",
  jpeg_pipe: "JPEG",
};

/**
 * The demuxer to pin for a file, from its magic bytes (`file-type`), never from its name or a client's MIME.
 * @throws FfmpegError when the bytes are not one of the media types in `DEMUXER_BY_MIME`.
 */
export async function mediaDemuxer(file: string): Promise<string> {
  const detected = await fileTypeFromFile(file).catch(() => undefined);
  const demuxer = detected ? DEMUXER_BY_MIME[detected.mime] : undefined;
  if (!demuxer)
    throw new FfmpegError(
      `the file is not a supported media type (${detected?.mime ?? "unknown contents"})`,
      null,
      [file],
    );
  return demuxer;
}

/**
 * The largest picture, in pixels (width x height), that a decoder of user media may make: 4096 x 2160
 * (DCI 4K), the studio's frame-size limit (studio.schemas MAX_VIDEO_PIXELS). Passed to every pinned input
 * as ffmpeg's `-max_pixels` (an AVCodecContext option, "Maximum number of pixels per image"), which the
 * decoder checks on every frame it allocates: a stream that starts small and grows part-way (an H.264
 * stream joined from two encodes, a VP8 keyframe of a new size), which ffprobe's header reports at its
 * first size, is refused at the first larger frame instead of being decoded at full cost. Decoders
 * check the width rounded up to their row alignment (16 to 64 pixels).
 */
export const DECODE_MAX_PIXELS = 4096 * 2160;

/** ffmpeg's words when a decoder refuses a picture over `-max_pixels` (libavutil imgutils, AV_LOG_ERROR). */
const MAX_PIXELS_REFUSAL = /Picture size (\d+)x(\d+) exceeds specified max pixel count/;

/**
 * Input options that allow `format` and nothing else, without naming it: only its demuxer
 * (`-format_whitelist`, which also covers nested opens), only plain local files as protocol (no hls,
 * concat, data, http, ...), and decoders that make no picture over DECODE_MAX_PIXELS (`-max_pixels`).
 * The format check (verifyMediaFormat) uses them as they are, so the tools still detect the format.
 */
function restrictedInputOptions(format: string): string[] {
  return [
    "-protocol_whitelist",
    "file",
    "-format_whitelist",
    format,
    "-max_pixels",
    String(DECODE_MAX_PIXELS),
  ];
}

/**
 * Input options that open `format` and nothing else: restrictedInputOptions with the demuxer pinned
 * (`-f`).
 */
export function pinnedInputOptions(format: string): string[] {
  return [...restrictedInputOptions(format), "-f", format];
}

/**
 * Refuses a file whose format, as ffmpeg's and ffprobe's own detection see it, is not `format` (the
 * demuxer its magic bytes gave). Detection runs with `-format_whitelist format` and
 * `-protocol_whitelist file`: a file detected as anything else (an HLS playlist behind an ID3 tag, a
 * concat script) stops at "Format not on whitelist" before its demuxer opens anything.
 * Each tool runs for at most `opts.timeLimitMs` (default PROBE_TIME_LIMIT_MS).
 * @throws FfmpegError with a sentence for the uploader when either tool detects another format;
 *   FfmpegTimeoutError when either ran out of time.
 */
export async function verifyMediaFormat(
  bin: FfmpegBinaries,
  file: string,
  format: string,
  opts: { timeLimitMs?: number } = {},
): Promise<void> {
  const timeLimitMs = opts.timeLimitMs ?? PROBE_TIME_LIMIT_MS;
  const base = restrictedInputOptions(format);
  const checks = [
    runProcess(
      bin.ffprobe,
      ["-v", "error", ...base, "-show_entries", "format=format_name", "-of", "json", file],
      { collectStdout: true, timeLimitMs },
    ),
    runProcess(
      bin.ffmpeg,
      ["-hide_banner", "-nostdin", "-loglevel", "error", ...base, "-i", file, "-t", "0", "-f", "null", "-"],
      { timeLimitMs },
    ),
  ];
  const results = await Promise.allSettled(checks);
  for (const r of results)
    if (r.status === "rejected" && r.reason instanceof FfmpegTimeoutError) throw r.reason;
  for (const r of results) {
    if (
      r.status === "rejected" &&
      r.reason instanceof FfmpegError &&
      /not on whitelist/i.test(r.reason.reason)
    )
      throw new FfmpegError(
        `the file's contents do not match its type: it starts like ${FORMAT_LABEL[format] ?? format} but ffmpeg reads it as another format (for example a playlist). Upload the media file itself.`,
        r.reason.exitCode,
        r.reason.args,
      );
  }
  const probed = results[0];
  if (probed.status === "fulfilled") {
    const name = (JSON.parse(probed.value || "{}") as RawProbe).format?.format_name ?? "";
    if (name && !name.split(",").includes(format))
      throw new FfmpegError(
        `the file's contents do not match its type: it starts like ${FORMAT_LABEL[format] ?? format} but ffprobe reads it as ${name}`,
        0,
        [file],
      );
  }
}

/** An ffmpeg failure; `reason` is the last meaningful lines of stderr (what the user is shown). */
export class FfmpegError extends Error {
  constructor(
    readonly reason: string,
    readonly exitCode: number | null,
    readonly args: string[],
  ) {
    super(reason);
    this.name = "FfmpegError";
  }
}

/**
 * A decoder refused a picture of `width` x `height` pixels, over DECODE_MAX_PIXELS (`-max_pixels`): the
 * run was killed there. Usually a stream that grows part-way past the size its header gave.
 */
export class FrameTooLargeError extends FfmpegError {
  constructor(
    readonly width: number,
    readonly height: number,
    args: string[],
  ) {
    super(
      `a frame of ${width} x ${height} pixels is larger than the ${DECODE_MAX_PIXELS} pixels a decoder may make`,
      null,
      args,
    );
    this.name = "FrameTooLargeError";
  }
}

/**
 * How long one probe of a user's file may run (ffprobe reading its streams or counting its packets, the
 * format check's ffprobe and ffmpeg): 20 s. Ordinary uploads take a fraction of a second; the slowest
 * file within the upload limit, 100 MB of tiny packets (millions of them), is counted in about 5 s on
 * 2 cores. A hung or slower probe is killed (SIGKILL) and rejects with an FfmpegTimeoutError.
 */
export const PROBE_TIME_LIMIT_MS = 20_000;

/**
 * How long decoding `durationSeconds` of audio for waveform peaks (`computePeaks`) may run, in
 * milliseconds: 10 s plus 1 s per 50 s of audio. Decoding to 8 kHz runs at about 1,000x real time on
 * 2 cores (20 minutes of AAC in 1.3 s), so 2 hours (the studio's longest media) get 154 s, some 20x
 * what they need.
 */
export function peaksTimeLimitMs(durationSeconds: number): number {
  return 10_000 + Math.ceil(Math.max(0, durationSeconds) / 50) * 1000;
}

/**
 * An ffmpeg or ffprobe run went past its time limit (`RunOptions.timeLimitMs`, milliseconds) and was
 * killed (SIGKILL).
 */
export class FfmpegTimeoutError extends FfmpegError {
  constructor(
    readonly limitMs: number,
    program: string,
    args: string[],
  ) {
    super(`${program} took longer than ${limitMs / 1000} s and was stopped`, null, args);
    this.name = "FfmpegTimeoutError";
  }
}

/** One input file with options placed before `-i` (e.g. `-ss`, `-stream_loop`). */
export interface FfmpegInput {
  path: string;
  options?: string[];
  /**
   * pin this demuxer and bound its decoders' picture size (`pinnedInputOptions`): required for any file
   * a user supplied
   */
  format?: string;
}

/** One output with its options (codecs, maps, `-f`, ...). `path` may be `pipe:1`. */
export interface FfmpegOutput {
  path: string;
  options?: string[];
}

/** What `buildFfmpegArgs` turns into an argument vector. */
export interface FfmpegCommand {
  inputs: FfmpegInput[];
  /** a `-filter_complex` graph */
  filterComplex?: string;
  outputs: FfmpegOutput[];
  /** overwrite outputs (default true) */
  overwrite?: boolean;
  /** emit `-progress pipe:1` key=value blocks on stdout */
  progress?: boolean;
  /** extra global options (e.g. `-threads 0`) */
  globalOptions?: string[];
}

/**
 * Builds the argument vector for ffmpeg (no shell quoting needed: spawn takes the array as is). Every
 * input is pinned to its demuxer (`pinnedInputOptions`); every output gets a muxing queue of 4,096
 * packets, so a webm recording whose audio leads its video is not refused.
 */
export function buildFfmpegArgs(cmd: FfmpegCommand): string[] {
  const args = ["-hide_banner", "-nostdin", "-loglevel", "error"];
  if (cmd.overwrite !== false) args.push("-y");
  if (cmd.progress) args.push("-progress", "pipe:1", "-nostats");
  if (cmd.globalOptions) args.push(...cmd.globalOptions);
  for (const input of cmd.inputs)
    args.push(
      ...(input.format ? pinnedInputOptions(input.format) : []),
      ...(input.options ?? []),
      "-i",
      input.path,
    );
  if (cmd.filterComplex) args.push("-filter_complex", cmd.filterComplex);
  // a browser recording (MediaRecorder webm) can start its audio well before the first video frame;
  // ffmpeg's default queue (128 packets) then fails with "Too many packets buffered for output stream"
  for (const output of cmd.outputs)
    args.push("-max_muxing_queue_size", "4096", ...(output.options ?? []), output.path);
  return args;
}

/** A progress report parsed from `-progress` (RFC-less key=value blocks ending with `progress=`). */
export interface FfmpegProgress {
  /** output time reached, seconds */
  outTimeSeconds: number;
  frame?: number;
  speed?: number;
  done: boolean;
}

/**
 * Incremental parser for ffmpeg's `-progress` output: feed it stdout chunks, it calls `onProgress`
 * once per block (blocks end with `progress=continue` or `progress=end`). `out_time_ms` is in
 * microseconds despite its name (ffmpeg 4.x).
 */
export function createProgressParser(onProgress: (p: FfmpegProgress) => void) {
  let buffer = "";
  let block: Record<string, string> = {};
  return (chunk: Buffer | string) => {
    buffer += chunk.toString();
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      const eq = line.indexOf("=");
      if (eq > 0) {
        const key = line.slice(0, eq);
        const value = line.slice(eq + 1);
        block[key] = value;
        if (key === "progress") {
          const us = Number(block.out_time_us ?? block.out_time_ms);
          onProgress({
            outTimeSeconds: Number.isFinite(us) && us > 0 ? us / 1e6 : 0,
            frame: block.frame ? Number(block.frame) : undefined,
            speed: block.speed ? Number.parseFloat(block.speed) : undefined,
            done: value === "end",
          });
          block = {};
        }
      }
      nl = buffer.indexOf("\n");
    }
  };
}

/** Keeps the useful tail of stderr as the failure reason (at most ~600 characters). */
function reasonFrom(stderr: string, fallback: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const text = lines.slice(-4).join(" / ");
  return (text || fallback).slice(-600);
}

export interface RunOptions {
  /** called per `-progress` block (requires `progress: true` in the command) */
  onProgress?: (p: FfmpegProgress) => void;
  /** receives raw stdout when not parsing progress (e.g. `pipe:1` PCM) */
  onStdout?: (chunk: Buffer) => void;
  /** piped into ffmpeg's stdin (for `-i pipe:0`) */
  stdin?: Readable;
  /** aborting it kills the process at once (SIGKILL) */
  signal?: AbortSignal;
  /**
   * milliseconds the process may run; then it is killed (SIGKILL) and the run rejects with an
   * FfmpegTimeoutError
   */
  timeLimitMs?: number;
}

/**
 * Runs ffmpeg with `cmd`. Resolves when it exits 0.
 * @throws FrameTooLargeError when a decoder refuses a picture over DECODE_MAX_PIXELS (ffmpeg killed);
 *   FfmpegTimeoutError past `opts.timeLimitMs` (ffmpeg killed); FfmpegError with stderr's last lines
 *   on a non-zero exit or spawn failure.
 */
export function runFfmpeg(bin: FfmpegBinaries, cmd: FfmpegCommand, opts: RunOptions = {}): Promise<void> {
  const args = buildFfmpegArgs(cmd);
  if (opts.stdin) {
    // -nostdin would close stdin; drop it when we feed the input
    args.splice(args.indexOf("-nostdin"), 1);
  }
  return runProcess(bin.ffmpeg, args, opts).then(() => undefined);
}

/**
 * Spawns a binary; collects stderr (bounded) and optionally parses `-progress` from stdout. An abort of
 * `opts.signal` kills the process (SIGKILL) and rejects with an FfmpegError. A decoder's refusal of a
 * picture over `-max_pixels` kills it too (ffmpeg drops the frame and goes on, exiting 0 with the
 * rest of the stream missing) and rejects with a FrameTooLargeError. A run past `opts.timeLimitMs`
 * is killed (SIGKILL) and rejects with an FfmpegTimeoutError.
 */
export function runProcess(
  file: string,
  args: string[],
  opts: RunOptions & { collectStdout?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      signal: opts.signal,
      // an aborted run must stop now: ffmpeg takes SIGTERM as "finish up", and a filter graph that is
      // still buffering (palettegen, a long gap) kept running to its end, long after the caller gave up
      killSignal: "SIGKILL",
    });
    let stderr = "";
    let tooLarge: FrameTooLargeError | null = null;
    let timedOut: FfmpegTimeoutError | null = null;
    const limit = opts.timeLimitMs;
    const timer =
      limit === undefined
        ? null
        : setTimeout(() => {
            timedOut = new FfmpegTimeoutError(limit, path.basename(file), args);
            child.kill("SIGKILL");
          }, limit);
    const out: Buffer[] = [];
    const parse = opts.onProgress ? createProgressParser(opts.onProgress) : null;
    child.stdout?.on("data", (chunk: Buffer) => {
      if (parse) parse(chunk);
      else if (opts.onStdout) opts.onStdout(chunk);
      else if (opts.collectStdout) out.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const seen = stderr.length;
      stderr += chunk.toString();
      // look from a little before this chunk: the refusal's line may arrive in two chunks
      const refused = tooLarge ? null : MAX_PIXELS_REFUSAL.exec(stderr.slice(Math.max(0, seen - 200)));
      if (refused) {
        tooLarge = new FrameTooLargeError(Number(refused[1]), Number(refused[2]), args);
        child.kill("SIGKILL");
      }
      if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
    });
    if (opts.stdin && child.stdin) {
      child.stdin.on("error", () => {}); // ffmpeg may close stdin early (EPIPE)
      opts.stdin.pipe(child.stdin);
    }
    child.on("error", (err) => {
      if (timer) clearTimeout(timer);
      reject(timedOut ?? new FfmpegError(`could not run ${file}: ${err.message}`, null, args));
    });
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      if (timedOut) reject(timedOut);
      else if (tooLarge) reject(tooLarge);
      else if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new FfmpegError(reasonFrom(stderr, `exited with code ${code}`), code, args));
    });
  });
}

interface RawProbe {
  format?: { format_name?: string; duration?: string; bit_rate?: string };
  streams?: {
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    sample_rate?: string;
    channels?: number;
    duration?: string;
  }[];
}

/** ffprobe's facts about a file (seconds, pixels, Hz). Codecs are null when the stream is absent. */
export interface ProbeResult {
  formatName: string;
  durationSeconds: number;
  bitRate: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  width: number | null;
  height: number | null;
  frameRate: number | null;
  sampleRate: number | null;
  channels: number | null;
  hasVideo: boolean;
  hasAudio: boolean;
}

function fraction(v: string | undefined): number | null {
  if (!v) return null;
  const [a, b] = v.split("/").map(Number);
  if (!b || !Number.isFinite(a) || !Number.isFinite(b)) return null;
  return a / b;
}

/** Options of one probe: the demuxer to pin and how long it may run. */
export interface ProbeOptions {
  /** the demuxer to pin (default: the one the file's magic bytes give, `mediaDemuxer`) */
  format?: string;
  /** milliseconds ffprobe may run (default PROBE_TIME_LIMIT_MS) */
  timeLimitMs?: number;
}

/**
 * ffprobe's stdout for `file` read with `args`, the demuxer pinned to `opts.format` (default: the one
 * its magic bytes give, `mediaDemuxer`) and only the file protocol (pinnedInputOptions), killed after
 * `opts.timeLimitMs` (default PROBE_TIME_LIMIT_MS).
 * @throws FfmpegError when ffprobe cannot read the file; FfmpegTimeoutError when it ran out of time.
 */
async function runPinnedProbe(
  bin: FfmpegBinaries,
  file: string,
  opts: ProbeOptions,
  args: string[],
): Promise<string> {
  const demuxer = opts.format ?? (await mediaDemuxer(file));
  return runProcess(bin.ffprobe, ["-v", "error", ...pinnedInputOptions(demuxer), ...args, file], {
    collectStdout: true,
    timeLimitMs: opts.timeLimitMs ?? PROBE_TIME_LIMIT_MS,
  });
}

/**
 * Probes a file with `ffprobe -print_format json -show_format -show_streams`, the demuxer pinned to
 * `opts.format` (default: the one its magic bytes give, `mediaDemuxer`), for at most `opts.timeLimitMs`
 * (default PROBE_TIME_LIMIT_MS). Cover art (an attached picture such as an MP3's mjpeg) does not count
 * as video.
 * @throws FfmpegError with ffprobe's reason for an unreadable file or an unsupported type;
 *   FrameTooLargeError when the frames it decodes are over DECODE_MAX_PIXELS; FfmpegTimeoutError
 *   when it ran out of time.
 */
export async function probe(
  bin: FfmpegBinaries,
  file: string,
  opts: ProbeOptions = {},
): Promise<ProbeResult> {
  const stdout = await runPinnedProbe(bin, file, opts, [
    "-print_format",
    "json",
    "-show_format",
    "-show_streams",
  ]);
  const raw = JSON.parse(stdout) as RawProbe;
  const streams = raw.streams ?? [];
  const video = streams.find(
    (s) => s.codec_type === "video" && s.codec_name !== "mjpeg" && s.codec_name !== "png",
  );
  const audio = streams.find((s) => s.codec_type === "audio");
  let duration = Number(raw.format?.duration);
  if (!Number.isFinite(duration)) {
    duration = Math.max(0, ...streams.map((s) => Number(s.duration)).filter(Number.isFinite));
  }
  if (!video && !audio) throw new FfmpegError("no audio or video stream found", 0, [file]);
  return {
    formatName: raw.format?.format_name ?? "unknown",
    durationSeconds: Number.isFinite(duration) ? duration : 0,
    bitRate: raw.format?.bit_rate ? Number(raw.format.bit_rate) : null,
    videoCodec: video?.codec_name ?? null,
    audioCodec: audio?.codec_name ?? null,
    width: video?.width ?? null,
    height: video?.height ?? null,
    frameRate: fraction(video?.avg_frame_rate),
    sampleRate: audio?.sample_rate ? Number(audio.sample_rate) : null,
    channels: audio?.channels ?? null,
    hasVideo: Boolean(video),
    hasAudio: Boolean(audio),
  };
}

/**
 * How many packets (frames) the first video stream of `file` holds, counted by demuxing the whole
 * file without decoding (`ffprobe -count_packets`: a fraction of a second for 100 MB), the demuxer
 * pinned to `opts.format` (default: its magic bytes'), for at most `opts.timeLimitMs` (default
 * PROBE_TIME_LIMIT_MS). 0 when the file has no video stream.
 * @throws FfmpegError when ffprobe cannot read the file; FfmpegTimeoutError when it ran out of time.
 */
export async function countVideoPackets(
  bin: FfmpegBinaries,
  file: string,
  opts: ProbeOptions = {},
): Promise<number> {
  const stdout = await runPinnedProbe(bin, file, opts, [
    "-select_streams",
    "v:0",
    "-count_packets",
    "-show_entries",
    "stream=nb_read_packets",
    "-of",
    "json",
  ]);
  const raw = JSON.parse(stdout || "{}") as { streams?: { nb_read_packets?: string }[] };
  const n = Number(raw.streams?.[0]?.nb_read_packets);
  return Number.isFinite(n) ? n : 0;
}

/**
 * Computes waveform peaks: decodes the audio to mono/stereo 8000 Hz s16le through a pipe (constant
 * memory) and keeps, per bucket, the sample with the largest magnitude (sign kept) scaled to [-1, 1].
 * `buckets` per channel (default 1000). Source of 8000 Hz: spec section 9 (waveform decoding rate).
 * The decode is killed after `opts.timeLimitMs` (default peaksTimeLimitMs(durationSeconds)) or when
 * `opts.signal` aborts.
 * @throws FfmpegError when decoding fails; FfmpegTimeoutError when it ran out of time.
 */
export async function computePeaks(
  bin: FfmpegBinaries,
  file: string,
  opts: {
    durationSeconds: number;
    channels: number;
    buckets?: number;
    format?: string;
    timeLimitMs?: number;
    signal?: AbortSignal;
  },
): Promise<number[][]> {
  const format = opts.format ?? (await mediaDemuxer(file));
  const channels = Math.min(2, Math.max(1, opts.channels));
  const buckets = opts.buckets ?? 1000;
  const rate = 8000;
  const expectedFrames = Math.max(1, Math.ceil(opts.durationSeconds * rate));
  const framesPerBucket = Math.max(1, Math.ceil(expectedFrames / buckets));
  const peaks: number[][] = Array.from({ length: channels }, () => []);
  const current = new Array<number>(channels).fill(0);
  let frameInBucket = 0;
  let leftover: Buffer | null = null;
  const frameBytes = 2 * channels;
  const flush = () => {
    for (let c = 0; c < channels; c++) {
      peaks[c].push(Math.round((current[c] / 32768) * 10000) / 10000);
      current[c] = 0;
    }
    frameInBucket = 0;
  };
  await runFfmpeg(
    bin,
    {
      inputs: [{ path: file, format }],
      outputs: [
        {
          path: "pipe:1",
          options: [
            "-vn",
            "-ac",
            String(channels),
            "-ar",
            String(rate),
            "-f",
            "s16le",
            "-acodec",
            "pcm_s16le",
          ],
        },
      ],
    },
    {
      timeLimitMs: opts.timeLimitMs ?? peaksTimeLimitMs(opts.durationSeconds),
      signal: opts.signal,
      onStdout: (chunk) => {
        let buf = leftover ? Buffer.concat([leftover, chunk]) : chunk;
        const usable = buf.length - (buf.length % frameBytes);
        leftover = usable < buf.length ? Buffer.from(buf.subarray(usable)) : null;
        buf = buf.subarray(0, usable);
        for (let off = 0; off < buf.length; off += frameBytes) {
          for (let c = 0; c < channels; c++) {
            const s = buf.readInt16LE(off + 2 * c);
            if (Math.abs(s) > Math.abs(current[c])) current[c] = s;
          }
          frameInBucket++;
          if (frameInBucket >= framesPerBucket) flush();
        }
      },
    },
  );
  if (frameInBucket > 0) flush();
  return peaks;
}
