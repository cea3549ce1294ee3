/**
 * Benchmark of the offline avatar provider (`npx tsx scripts/bench-avatar.ts`).
 *
 * 1. Speech: our per-cue synthesis (one espeak-ng WASM run per caption cue, for exact caption timing)
 *    against one espeak-ng run over the whole script (the baseline), same text.
 * 2. Video: our full render (speech + presenter + audio-reactive mouth and spectrum + timed captions +
 *    label) against a hand-written ffmpeg command that only encodes the same speech with the same still
 *    picture (the baseline: what any "image + audio to MP4" costs).
 * Prints seconds, the ratio to the baseline and the real-time factor (render seconds per video second).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { probe, resolveFfmpegBinaries, runFfmpeg } from "../src/server/lib/ffmpeg";
import { LocalAvatarRenderer, splitIntoCues } from "../src/server/providers/avatar/local";
import { speak, speakCues } from "../src/server/providers/avatar/tts";

const SCRIPT =
  "Hi Sam! I'm your Pitchwise assistant, and this video was made on this very machine, without any cloud service. " +
  "We help small businesses reach customers by video, email, text message and calls, all from one place. " +
  "Reply to this email, or book a call, and let's grow your business together. " +
  "Every campaign you send is tracked, so you know who watched, who clicked and who replied. " +
  "Try it free for fourteen days, and cancel any time.";
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const bin = resolveFfmpegBinaries(process.env);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-avatar-"));

async function best(label: string, fn: () => Promise<void>): Promise<number> {
  let bestMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    bestMs = Math.min(bestMs, performance.now() - t0);
  }
  console.log(`${label.padEnd(46)} ${(bestMs / 1000).toFixed(2)} s (best of ${RUNS})`);
  return bestMs / 1000;
}

const voice = { voice: "en-us", wordsPerMinute: 165 };
const cues = splitIntoCues(SCRIPT);
await speak("warm up", voice); // compile the WASM once, outside the timings

console.log(`script: ${SCRIPT.length} characters, ${cues.length} caption cues`);
const perCue = await best(`speech, per cue (${cues.length} espeak runs)`, async () => {
  await speakCues(cues, voice);
});
const single = await best("speech, baseline (1 espeak run)", async () => {
  await speak(SCRIPT, voice);
});
console.log(`speech ratio per-cue / baseline: ${(perCue / single).toFixed(2)}x`);

const renderer = new LocalAvatarRenderer({ ffmpeg: bin });
const out = path.join(dir, "avatar.mp4");
await renderer.render({ script: "warm up", outPath: out }); // draws the presenter picture once
const ours = await best("render, full local avatar (speech + video)", async () => {
  await renderer.render({ script: SCRIPT, outPath: out });
});
const facts = await probe(bin, out);

const speech = await speakCues(cues, voice);
const wav = path.join(dir, "speech.wav");
fs.writeFileSync(wav, speech.wav);
const still = fs.readdirSync(os.tmpdir()).find((f) => f.startsWith("pitchwise-avatar-presenter-"));
if (!still) throw new Error("presenter picture not found");
const baselineOut = path.join(dir, "baseline.mp4");
const baseline = await best("render, baseline (still + audio, ffmpeg)", async () => {
  await runFfmpeg(bin, {
    inputs: [
      { path: path.join(os.tmpdir(), still), options: ["-loop", "1", "-framerate", "25"] },
      { path: wav },
    ],
    outputs: [
      {
        path: baselineOut,
        options: [
          "-c:v",
          "libx264",
          "-preset",
          "veryfast",
          "-crf",
          "23",
          "-pix_fmt",
          "yuv420p",
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
  });
});
console.log(`render ratio ours / baseline: ${(ours / baseline).toFixed(2)}x`);
console.log(
  `video: ${facts.durationSeconds.toFixed(2)} s, ${facts.width}x${facts.height}; real-time factor ours ${(ours / facts.durationSeconds).toFixed(2)}, baseline ${(baseline / facts.durationSeconds).toFixed(2)}`,
);
fs.rmSync(dir, { recursive: true, force: true });
