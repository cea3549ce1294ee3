import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { expect } from "vitest";
import { resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";
import type { AuthedClient } from "../helpers";

/**
 * Builds a multipart/form-data body: text `fields` plus one file part. `content` may be a Buffer or a
 * generator of chunks (streamed: used for 100 MB+ bodies without holding them in memory).
 */
export function multipart(
  fields: Record<string, string>,
  file: {
    field: string;
    filename: string;
    contentType?: string;
    content: Buffer | (() => Iterable<Buffer>);
  } | null,
) {
  const boundary = `----pitchwise${Math.random().toString(16).slice(2)}`;
  const head: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    head.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  const headers = { "content-type": `multipart/form-data; boundary=${boundary}` };
  if (!file) return { payload: Buffer.concat([...head, Buffer.from(`--${boundary}--\r\n`)]), headers };
  const fileHead = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType ?? "application/octet-stream"}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  if (Buffer.isBuffer(file.content)) {
    return { payload: Buffer.concat([...head, fileHead, file.content, tail]), headers };
  }
  const gen = file.content;
  const stream = Readable.from(
    (function* () {
      yield* head;
      yield fileHead;
      yield* gen();
      yield tail;
    })(),
  );
  return { payload: stream, headers };
}

/** `count` chunks of `size` zero bytes (a stream of count x size bytes). */
export function zeros(count: number, size = 1024 * 1024) {
  return function* () {
    const chunk = Buffer.alloc(size);
    for (let i = 0; i < count; i++) yield chunk;
  };
}

/** A mono 8 kHz 16-bit PCM WAV of `seconds` of silence (RIFF header per the WAVE spec). */
export function silentWav(seconds: number): Buffer {
  const samples = Math.round(8000 * seconds);
  const b = Buffer.alloc(44 + samples * 2);
  b.write("RIFF", 0);
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write("WAVEfmt ", 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36);
  b.writeUInt32LE(samples * 2, 40);
  return b;
}

/**
 * Uploads the video at `file` through POST /api/videos/upload (expects 200; with createTestApp's
 * inline job client it is processed before the answer) and answers the item as GET /api/media/{id}
 * shows it (`media`: status, error, sizes, ...).
 */
export async function uploadAndProcess(client: AuthedClient, file: string) {
  const res = await client.inject({
    method: "POST",
    url: "/api/videos/upload",
    ...multipart({}, { field: "video", filename: path.basename(file), content: fs.readFileSync(file) }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return (await client.get(`/api/media/${res.json().media.id}`)).json().media;
}

/**
 * Makes a one-second 160x120 video with ffmpeg (lavfi testsrc, H.264) and uploads it as `name` through
 * POST /api/videos/upload, as a person would; expects 200 and returns the new media item's id (the app
 * then processes it: playback file, thumbnail, GIF).
 */
export async function uploadTestClip(client: AuthedClient, name = "Clip"): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-clip-"));
  const file = path.join(dir, "clip.mp4");
  try {
    await runFfmpeg(resolveFfmpegBinaries({}), {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: "testsrc=size=160x120:rate=10:duration=1" }],
      outputs: [{ path: file, options: ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"] }],
    });
    const body = multipart(
      { name },
      { field: "video", filename: "clip.mp4", contentType: "video/mp4", content: fs.readFileSync(file) },
    );
    const res = await client.inject({ method: "POST", url: "/api/videos/upload", ...body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().media.id as number;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
