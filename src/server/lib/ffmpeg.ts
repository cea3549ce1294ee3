/**
 * A small typed layer over the ffmpeg and ffprobe binaries (child_process.spawn, no shell).
 *
 * Binaries: `FFMPEG_PATH` / `FFPROBE_PATH` when set, else the npm builds from `@ffmpeg-installer/ffmpeg`
 * and `@ffprobe-installer/ffprobe` (ffmpeg 4.1: no `xfade`). ARCHITECTURE.md explains why not fluent-ffmpeg.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import type { Readable } from "node:stream";

const require = createRequire(import.meta.url);

/** Absolute paths of the ffmpeg and ffprobe binaries to run. */
export interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
}

/**
 * Resolves the binaries: explicit overrides (env FFMPEG_PATH / FFPROBE_PATH) win, else the npm packages.
 * @throws Error when neither is available.
 */
export function resolveFfmpegBinaries(
  env: { FFMPEG_PATH?: string; FFPROBE_PATH?: string } = {},
): FfmpegBinaries {
  const ffmpeg = env.FFMPEG_PATH ?? (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
  const ffprobe = env.FFPROBE_PATH ?? (require("@ffprobe-installer/ffprobe") as { path: string }).path;
  return { ffmpeg, ffprobe };
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

/** One input file with options placed before `-i` (e.g. `-ss`, `-stream_loop`). */
export interface FfmpegInput {
  path: string;
  options?: string[];
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

/** Builds the argument vector for ffmpeg (no shell quoting needed: spawn takes the array as is). */
export function buildFfmpegArgs(cmd: FfmpegCommand): string[] {
  const args = ["-hide_banner", "-nostdin", "-loglevel", "error"];
  if (cmd.overwrite !== false) args.push("-y");
  if (cmd.progress) args.push("-progress", "pipe:1", "-nostats");
  if (cmd.globalOptions) args.push(...cmd.globalOptions);
  for (const input of cmd.inputs) args.push(...(input.options ?? []), "-i", input.path);
  if (cmd.filterComplex) args.push("-filter_complex", cmd.filterComplex);
  for (const output of cmd.outputs) args.push(...(output.options ?? []), output.path);
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
  signal?: AbortSignal;
}

/**
 * Runs ffmpeg with `cmd`. Resolves when it exits 0.
 * @throws FfmpegError with stderr's last lines on a non-zero exit or spawn failure.
 */
export function runFfmpeg(bin: FfmpegBinaries, cmd: FfmpegCommand, opts: RunOptions = {}): Promise<void> {
  const args = buildFfmpegArgs(cmd);
  if (opts.stdin) {
    // -nostdin would close stdin; drop it when we feed the input
    args.splice(args.indexOf("-nostdin"), 1);
  }
  return runProcess(bin.ffmpeg, args, opts).then(() => undefined);
}

/** Spawns a binary; collects stderr (bounded) and optionally parses `-progress` from stdout. */
export function runProcess(
  file: string,
  args: string[],
  opts: RunOptions & { collectStdout?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      signal: opts.signal,
    });
    let stderr = "";
    const out: Buffer[] = [];
    const parse = opts.onProgress ? createProgressParser(opts.onProgress) : null;
    child.stdout?.on("data", (chunk: Buffer) => {
      if (parse) parse(chunk);
      else if (opts.onStdout) opts.onStdout(chunk);
      else if (opts.collectStdout) out.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
    });
    if (opts.stdin && child.stdin) {
      child.stdin.on("error", () => {}); // ffmpeg may close stdin early (EPIPE)
      opts.stdin.pipe(child.stdin);
    }
    child.on("error", (err) => reject(new FfmpegError(`could not run ${file}: ${err.message}`, null, args)));
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString());
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

/**
 * Probes a file with `ffprobe -print_format json -show_format -show_streams`. Cover art (an attached
 * picture such as an MP3's mjpeg) does not count as video.
 * @throws FfmpegError with ffprobe's reason for an unreadable file.
 */
export async function probe(bin: FfmpegBinaries, file: string): Promise<ProbeResult> {
  const stdout = await runProcess(
    bin.ffprobe,
    ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file],
    { collectStdout: true },
  );
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
 * Computes waveform peaks: decodes the audio to mono/stereo 8000 Hz s16le through a pipe (constant
 * memory) and keeps, per bucket, the sample with the largest magnitude (sign kept) scaled to [-1, 1].
 * `buckets` per channel (default 1000). Source of 8000 Hz: spec section 9 (waveform decoding rate).
 * @throws FfmpegError when decoding fails.
 */
export async function computePeaks(
  bin: FfmpegBinaries,
  file: string,
  opts: { durationSeconds: number; channels: number; buckets?: number },
): Promise<number[][]> {
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
      inputs: [{ path: file }],
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
