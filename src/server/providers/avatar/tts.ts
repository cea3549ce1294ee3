/**
 * Offline text-to-speech with eSpeak NG (the `espeak-ng` npm package: the espeak-ng command line
 * compiled to WebAssembly). Each caption cue is spoken separately and the PCM is concatenated, so the
 * cue timings are exact sample offsets of the final audio.
 */
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import ESpeakNg from "espeak-ng";
import type { CaptionCue } from "./index";

const require = createRequire(import.meta.url);

let compiled: Promise<WebAssembly.Module> | null = null;

/** The 18 MB WebAssembly binary compiled once per process (each cue still gets a fresh instance). */
function wasmModule(): Promise<WebAssembly.Module> {
  if (!compiled) {
    compiled = fs
      .readFile(require.resolve("espeak-ng/dist/espeak-ng.wasm"))
      .then((bin) => WebAssembly.compile(bin));
    compiled.catch(() => {
      compiled = null;
    });
  }
  return compiled;
}

export interface Pcm {
  sampleRate: number;
  channels: number;
  /** signed 16-bit little-endian samples */
  data: Buffer;
}

/**
 * Reads a PCM WAV (RIFF, format 1, 16-bit). Tolerates a data chunk size larger than the file (a
 * streamed header).
 * @throws Error for anything else.
 */
export function parseWav(buf: Buffer): Pcm {
  if (buf.length < 12 || buf.toString("ascii", 0, 4) !== "RIFF" || buf.toString("ascii", 8, 12) !== "WAVE")
    throw new Error("not a WAV file");
  let off = 12;
  let sampleRate = 0;
  let channels = 0;
  let bits = 0;
  while (off + 8 <= buf.length) {
    const id = buf.toString("ascii", off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === "fmt ") {
      const format = buf.readUInt16LE(body);
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
      if (format !== 1 || bits !== 16) throw new Error(`unsupported WAV format ${format}/${bits}-bit`);
    } else if (id === "data") {
      if (!sampleRate) throw new Error("WAV data before fmt");
      const end = Math.min(buf.length, body + size);
      return { sampleRate, channels, data: buf.subarray(body, end - ((end - body) % (2 * channels))) };
    }
    off = body + size + (size % 2);
  }
  throw new Error("WAV without data");
}

/** A 16-bit PCM WAV file for `pcm`. */
export function encodeWav(pcm: Pcm): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + pcm.data.length, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(pcm.channels, 22);
  header.writeUInt32LE(pcm.sampleRate, 24);
  header.writeUInt32LE(pcm.sampleRate * pcm.channels * 2, 28);
  header.writeUInt16LE(pcm.channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(pcm.data.length, 40);
  return Buffer.concat([header, pcm.data]);
}

export interface SpeakOptions {
  /** eSpeak NG voice, e.g. "en-us" */
  voice: string;
  /** words per minute (espeak-ng `-s`, 80-450) */
  wordsPerMinute: number;
}

/**
 * Speaks one text with espeak-ng (the text goes through a file, `-f`, so it is never parsed as an option).
 * @returns the WAV eSpeak wrote (22,050 Hz mono, 16-bit)
 */
export async function speak(text: string, opts: SpeakOptions): Promise<Pcm> {
  const mod = await wasmModule();
  const stderr: string[] = [];
  const es = await ESpeakNg({
    arguments: [
      "-v",
      opts.voice,
      "-s",
      String(Math.round(opts.wordsPerMinute)),
      "-w",
      "/out.wav",
      "-f",
      "/in.txt",
    ],
    preRun: [(m) => m.FS.writeFile("/in.txt", text)],
    print: () => {},
    printErr: (line) => stderr.push(line),
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(mod, imports).then((instance) => done(instance, mod));
      return {};
    },
  });
  let wav: Uint8Array;
  try {
    wav = es.FS.readFile("/out.wav");
  } catch {
    throw new Error(
      `espeak-ng produced no audio${stderr.length ? `: ${stderr.join(" ").slice(0, 300)}` : ""}`,
    );
  }
  return parseWav(Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength));
}

/**
 * Speaks each cue text in order and joins the audio.
 * @returns one WAV, its duration (seconds) and a cue per text with its start and end (seconds)
 * @throws Error when espeak-ng fails
 */
export async function speakCues(
  texts: string[],
  opts: SpeakOptions,
): Promise<{ wav: Buffer; durationSeconds: number; cues: CaptionCue[] }> {
  const parts: Buffer[] = [];
  const cues: CaptionCue[] = [];
  let samples = 0;
  let sampleRate = 0;
  let channels = 1;
  for (const text of texts) {
    const pcm = await speak(text, opts);
    if (sampleRate && (pcm.sampleRate !== sampleRate || pcm.channels !== channels))
      throw new Error("espeak-ng changed its output format between cues");
    sampleRate = pcm.sampleRate;
    channels = pcm.channels;
    const n = pcm.data.length / (2 * channels);
    cues.push({ start: samples / sampleRate, end: (samples + n) / sampleRate, text });
    samples += n;
    parts.push(pcm.data);
    // let other work (HTTP requests in the same process) run between cues
    await new Promise((r) => setImmediate(r));
  }
  if (!sampleRate) throw new Error("nothing to speak");
  const data = Buffer.concat(parts);
  return { wav: encodeWav({ sampleRate, channels, data }), durationSeconds: samples / sampleRate, cues };
}
