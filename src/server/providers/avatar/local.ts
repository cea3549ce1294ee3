/**
 * The offline avatar provider: a presenter video rendered on this machine. The script is spoken by
 * eSpeak NG (WebAssembly), then ffmpeg draws a presenter (a drawn figure whose mouth is the live
 * waveform of the speech), an audio-reactive spectrum along the bottom, captions timed to the speech
 * and the label "Local preview avatar", and encodes H.264 + AAC in an MP4.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type FfmpegBinaries, runFfmpeg } from "../../lib/ffmpeg";
import { APP_ROOT } from "../../lib/paths";
import type { CaptionCue, LocalAvatarProvider } from "./index";
import { type SpeakOptions, speakCues } from "./tts";

/** The label burned into every local video, so nobody mistakes it for a vendor's avatar. */
export const LOCAL_AVATAR_LABEL = "Local preview avatar";

const WIDTH = 1280;
const HEIGHT = 720;
const FPS = 25;
const FONT_FILE = path.join(APP_ROOT, "src/server/providers/avatar/assets/DejaVuSans-Bold.ttf");
const BACKGROUND_VERSION = 1;

/**
 * Splits a script into caption cues: sentences, and sentences longer than `maxWords` words cut at
 * commas/semicolons, then every `maxWords` words. Whitespace is collapsed; empty input gives [].
 */
export function splitIntoCues(script: string, maxWords = 10): string[] {
  const text = script.replace(/\s+/g, " ").trim();
  if (!text) return [];
  const sentences = text.match(/[^.!?]+(?:[.!?]+["'”’)\]]*|$)/g) ?? [text];
  const cues: string[] = [];
  for (const raw of sentences) {
    const sentence = raw.trim();
    if (!sentence) continue;
    const words = sentence.split(" ");
    if (words.length <= maxWords + 2) {
      cues.push(sentence);
      continue;
    }
    let current: string[] = [];
    for (const clause of sentence.split(/(?<=[,;:—])\s+/)) {
      const clauseWords = clause.split(" ");
      if (current.length && current.length + clauseWords.length > maxWords) {
        cues.push(current.join(" "));
        current = [];
      }
      for (const w of clauseWords) {
        current.push(w);
        if (current.length >= maxWords) {
          cues.push(current.join(" "));
          current = [];
        }
      }
    }
    if (current.length) cues.push(current.join(" "));
  }
  return cues;
}

/** Wraps caption text into lines of at most `width` characters (words longer than that stay whole). */
export function wrapCaption(text: string, width = 44): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join("\n");
}

/** A value inside single quotes in an ffmpeg filter graph (paths we create never contain a quote). */
function quoted(value: string): string {
  if (value.includes("'")) throw new Error(`unsupported character in ffmpeg filter value: ${value}`);
  return `'${value}'`;
}

type Rgb = [number, number, number];
interface Layer {
  /** a geq condition in X, Y (pixels) */
  when: string;
  color: Rgb;
}

/**
 * The presenter picture as geq expressions: a gradient backdrop, shoulders, neck, head, hair and
 * eyes, painted bottom to top (the mouth is added per frame from the audio).
 */
function presenterGeq(): string {
  const circle = (cx: number, cy: number, r: number) => `lt(hypot(X-${cx},Y-${cy}),${r})`;
  const layers: Layer[] = [
    { when: `lt(hypot((X-640)/270,(Y-760)/230),1)`, color: [79, 70, 229] },
    { when: `lt(abs(X-640),45)*between(Y,380,560)`, color: [224, 172, 105] },
    { when: circle(640, 300, 120), color: [241, 194, 125] },
    { when: `${circle(640, 300, 124)}*lt(Y,252)`, color: [70, 45, 30] },
    { when: `${circle(598, 292, 10)}+${circle(682, 292, 10)}`, color: [40, 30, 30] },
    {
      when: `lt(abs(X-598),16)*between(Y,268,272)+lt(abs(X-682),16)*between(Y,268,272)`,
      color: [70, 45, 30],
    },
  ];
  const backdrop: Rgb = [15, 23, 42];
  const gradient: Rgb = [30, 40, 60];
  const channel = (i: 0 | 1 | 2) => {
    let expr = `${backdrop[i]}+${gradient[i]}*Y/H`;
    for (const layer of layers) expr = `if(${layer.when},${layer.color[i]},${expr})`;
    return expr;
  };
  return `geq=r='${channel(0)}':g='${channel(1)}':b='${channel(2)}'`;
}

let backgroundPromise: Promise<string> | null = null;

/** Renders the presenter picture once per process into the temp folder; returns its path. */
async function presenterBackground(bin: FfmpegBinaries): Promise<string> {
  const target = path.join(
    os.tmpdir(),
    `pitchwise-avatar-presenter-v${BACKGROUND_VERSION}-${WIDTH}x${HEIGHT}.png`,
  );
  // the picture lives in the temp folder: draw it again if something cleaned that up
  if (
    backgroundPromise &&
    !(await fs.access(target).then(
      () => true,
      () => false,
    ))
  )
    backgroundPromise = null;
  if (!backgroundPromise) {
    backgroundPromise = (async () => {
      try {
        await fs.access(target);
        return target;
      } catch {}
      const tmp = `${target}.${randomUUID()}.png`;
      await runFfmpeg(bin, {
        globalOptions: ["-f", "lavfi"],
        inputs: [{ path: `color=c=black:s=${WIDTH}x${HEIGHT}:d=1` }],
        outputs: [{ path: tmp, options: ["-frames:v", "1", "-vf", presenterGeq()] }],
      });
      await fs.rename(tmp, target);
      return target;
    })();
    backgroundPromise.catch(() => {
      backgroundPromise = null;
    });
  }
  return backgroundPromise;
}

/**
 * The filter graph: input 0 is the looped presenter picture, input 1 the speech.
 * `captionFiles[i]` holds the text of `cues[i]`; drawtext reads it with expansion off (no `%{}`).
 */
export function buildLocalAvatarGraph(
  cues: CaptionCue[],
  captionFiles: string[],
  fontFile = FONT_FILE,
): string {
  const font = quoted(fontFile);
  const samplesPerFrame = Math.round(22050 / FPS);
  const parts = [
    // apad: the visuals keep getting (silent) audio past the end, so no overlay waits on an ended
    // stream (ffmpeg 5 stalls there); `-t` on the output cuts the video at the speech's end
    "[1:a]apad,asplit=2[amouth][aspec]",
    // the mouth: the live waveform of the speech, redrawn every frame
    `[amouth]showwaves=s=120x44:mode=cline:colors=0x5b1a1a:rate=${FPS}:n=${Math.max(1, Math.floor(samplesPerFrame / 120))}:scale=sqrt,format=rgba[mouth]`,
    // the audio-reactive spectrum along the bottom (black keyed out)
    `[aspec]showfreqs=s=${WIDTH}x120:mode=bar:ascale=log:fscale=log:colors=0xa5b4fc,fps=${FPS},format=rgba,colorkey=black:0.02:0,colorchannelmixer=aa=0.6[spectrum]`,
    // overlays blend in YUV 4:2:0 (what x264 encodes), not RGB: 1.7x faster (scripts/bench-avatar.ts)
    "[0:v]format=yuv420p[bg]",
    `[bg][spectrum]overlay=0:${HEIGHT - 120}:format=yuv420[withspec]`,
    "[withspec][mouth]overlay=580:335:format=yuv420[withmouth]",
  ];
  const draws = [
    `drawtext=fontfile=${font}:text=${quoted(LOCAL_AVATAR_LABEL)}:expansion=none:x=24:y=24:fontsize=26:fontcolor=white:box=1:boxcolor=black@0.55:boxborderw=10`,
  ];
  cues.forEach((cue, i) => {
    draws.push(
      `drawtext=fontfile=${font}:textfile=${quoted(captionFiles[i])}:expansion=none:enable='between(t,${cue.start.toFixed(3)},${cue.end.toFixed(3)})':x=(w-text_w)/2:y=h-210:fontsize=34:fontcolor=white:line_spacing=8:box=1:boxcolor=black@0.62:boxborderw=12`,
    );
  });
  parts.push(`[withmouth]${draws.join(",")},format=yuv420p[v]`);
  return parts.join(";\n");
}

export interface LocalAvatarOptions {
  ffmpeg: FfmpegBinaries;
  speech?: Partial<SpeakOptions>;
  /** x264 preset (default veryfast) */
  preset?: string;
}

/** The `local` avatar provider (AVATAR_PROVIDER=local, the default). Works offline. */
export class LocalAvatarRenderer implements LocalAvatarProvider {
  readonly kind = "local" as const;
  readonly name = "local" as const;
  private readonly speech: SpeakOptions;

  constructor(private readonly opts: LocalAvatarOptions) {
    this.speech = {
      voice: opts.speech?.voice ?? "en-us",
      wordsPerMinute: opts.speech?.wordsPerMinute ?? 165,
    };
  }

  /**
   * Renders the script to `outPath` (1280x720, 25 fps, H.264 + AAC, faststart). The video lasts as long
   * as the speech.
   * @throws Error for an empty script; FfmpegError when ffmpeg fails
   */
  async render(input: { script: string; outPath: string }) {
    const texts = splitIntoCues(input.script);
    if (!texts.length) throw new Error("The script is empty");
    const workDir = await fs.mkdtemp(path.join(os.tmpdir(), "pitchwise-avatar-"));
    try {
      const [speech, background] = await Promise.all([
        speakCues(texts, this.speech),
        presenterBackground(this.opts.ffmpeg),
      ]);
      const wavPath = path.join(workDir, "speech.wav");
      await fs.writeFile(wavPath, speech.wav);
      const captionFiles = await Promise.all(
        speech.cues.map(async (cue, i) => {
          const file = path.join(workDir, `cue-${i}.txt`);
          await fs.writeFile(file, wrapCaption(cue.text));
          return file;
        }),
      );
      const graphPath = path.join(workDir, "graph.txt");
      await fs.writeFile(graphPath, buildLocalAvatarGraph(speech.cues, captionFiles));
      await runFfmpeg(
        this.opts.ffmpeg,
        {
          globalOptions: ["-filter_complex_script", graphPath],
          inputs: [
            { path: background, options: ["-loop", "1", "-framerate", String(FPS)] },
            { path: wavPath, format: "wav" },
          ],
          outputs: [
            {
              path: input.outPath,
              options: [
                "-map",
                "[v]",
                "-map",
                "1:a",
                "-c:v",
                "libx264",
                "-preset",
                this.opts.preset ?? "veryfast",
                "-crf",
                "23",
                "-c:a",
                "aac",
                "-b:a",
                "128k",
                "-t",
                speech.durationSeconds.toFixed(3),
                "-movflags",
                "+faststart",
              ],
            },
          ],
        },
        // a guard against a stuck encoder: 10x the speech, at least 2 minutes
        { signal: AbortSignal.timeout(Math.round(Math.max(120, speech.durationSeconds * 10) * 1000)) },
      );
      return { durationSeconds: speech.durationSeconds, cues: speech.cues };
    } finally {
      await fs.rm(workDir, { recursive: true, force: true });
    }
  }
}
