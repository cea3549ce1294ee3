import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { probe, resolveFfmpegBinaries, runProcess } from "../../src/server/lib/ffmpeg";
import {
  buildLocalAvatarGraph,
  LOCAL_AVATAR_LABEL,
  LocalAvatarRenderer,
  splitIntoCues,
  wrapCaption,
} from "../../src/server/providers/avatar/local";
import { encodeWav, parseWav, speak } from "../../src/server/providers/avatar/tts";

/** The offline avatar provider: espeak-ng (WASM) speech + ffmpeg presenter video (no database). */

const bin = resolveFfmpegBinaries(process.env);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avatar-local-test-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("caption cues", () => {
  it("splits sentences and cuts long ones at commas, then every 10 words", () => {
    expect(splitIntoCues("  Hello there!  How are you?\nFine.")).toEqual([
      "Hello there!",
      "How are you?",
      "Fine.",
    ]);
    const long =
      "We help small businesses reach customers by video, email, text message and calls, all from one place that is easy to use";
    const cues = splitIntoCues(long);
    expect(cues.join(" ")).toBe(long);
    for (const c of cues) expect(c.split(" ").length).toBeLessThanOrEqual(10);
    expect(cues[0]).toBe("We help small businesses reach customers by video, email,");
    expect(splitIntoCues("   \n ")).toEqual([]);
    expect(splitIntoCues("no end punctuation")).toEqual(["no end punctuation"]);
  });

  it("wraps caption lines at 44 characters", () => {
    const wrapped = wrapCaption("and this video was made on this very machine, without any cloud");
    expect(wrapped.split("\n").every((l) => l.length <= 44)).toBe(true);
    expect(wrapped.replace(/\n/g, " ")).toBe(
      "and this video was made on this very machine, without any cloud",
    );
  });

  it("builds one label and one timed drawtext per cue, reading text from files (no expansion)", () => {
    const graph = buildLocalAvatarGraph(
      [
        { start: 0, end: 1.25, text: "a" },
        { start: 1.25, end: 2.5, text: "b" },
      ],
      ["/tmp/c0.txt", "/tmp/c1.txt"],
      "/fonts/f.ttf",
    );
    expect(graph).toContain(`text='${LOCAL_AVATAR_LABEL}'`);
    expect(graph).toContain("textfile='/tmp/c0.txt':expansion=none:enable='between(t,0.000,1.250)'");
    expect(graph).toContain("textfile='/tmp/c1.txt':expansion=none:enable='between(t,1.250,2.500)'");
    expect(graph).toContain("showwaves=");
    expect(graph).toContain("showfreqs=");
  });
});

describe("text to speech (espeak-ng WASM)", () => {
  it("speaks text into 16-bit PCM whose length grows with the text", async () => {
    const short = await speak("Hello.", { voice: "en-us", wordsPerMinute: 165 });
    const long = await speak("Hello, this is a much longer sentence for the speech engine to say.", {
      voice: "en-us",
      wordsPerMinute: 165,
    });
    expect(short.sampleRate).toBe(22050);
    expect(short.channels).toBe(1);
    expect(long.data.length).toBeGreaterThan(short.data.length * 2);
    // round trip through our WAV writer
    const again = parseWav(encodeWav(long));
    expect(again.data.equals(long.data)).toBe(true);
  });

  it("never treats the script as command-line options", async () => {
    const pcm = await speak("-w /etc/passwd --help", { voice: "en-us", wordsPerMinute: 165 });
    expect(pcm.data.length).toBeGreaterThan(22050); // it spoke the words (over 0.5 s of audio)
  });
});

describe("local avatar render", () => {
  it("renders a playable H.264/AAC MP4 whose duration matches the speech, with audible speech", async () => {
    const renderer = new LocalAvatarRenderer({ ffmpeg: bin });
    const out = path.join(dir, "avatar.mp4");
    const script =
      "Hi Sam! I'm your Pitchwise assistant. This preview was rendered on this machine, with captions timed to the speech. 100% offline; {name} and %{pts} stay literal.";
    const result = await renderer.render({ script, outPath: out });

    // cues cover the speech back to back
    expect(result.cues.length).toBe(splitIntoCues(script).length);
    expect(result.cues[0].start).toBe(0);
    for (let i = 1; i < result.cues.length; i++)
      expect(result.cues[i].start).toBeCloseTo(result.cues[i - 1].end, 6);
    expect(result.cues.at(-1)!.end).toBeCloseTo(result.durationSeconds, 6);
    expect(result.durationSeconds).toBeGreaterThan(5);

    const facts = await probe(bin, out);
    expect(facts.videoCodec).toBe("h264");
    expect(facts.audioCodec).toBe("aac");
    expect([facts.width, facts.height]).toEqual([1280, 720]);
    expect(facts.frameRate).toBe(25);
    expect(Math.abs(facts.durationSeconds - result.durationSeconds)).toBeLessThan(0.1);

    // the audio stream alone lasts as long as the speech
    const audioDuration = Number(
      (
        await runProcess(
          bin.ffprobe,
          [
            "-v",
            "error",
            "-select_streams",
            "a:0",
            "-show_entries",
            "stream=duration",
            "-of",
            "default=nw=1:nk=1",
            out,
          ],
          { collectStdout: true },
        )
      ).trim(),
    );
    expect(Math.abs(audioDuration - result.durationSeconds)).toBeLessThan(0.1);

    // and it is speech, not silence (ffmpeg volumedetect)
    const detect = await new Promise<string>((resolve, reject) => {
      let stderr = "";
      const child = spawn(bin.ffmpeg, [
        "-hide_banner",
        "-nostdin",
        "-i",
        out,
        "-af",
        "volumedetect",
        "-vn",
        "-f",
        "null",
        "-",
      ]);
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      child.on("error", reject);
      child.on("close", () => resolve(stderr));
    });
    const mean = Number(detect.match(/mean_volume: (-?[\d.]+) dB/)?.[1]);
    expect(mean).toBeGreaterThan(-40);
  }, 120_000);

  it("refuses an empty script", async () => {
    const renderer = new LocalAvatarRenderer({ ffmpeg: bin });
    await expect(renderer.render({ script: "  \n ", outPath: path.join(dir, "empty.mp4") })).rejects.toThrow(
      "The script is empty",
    );
  });
});
