import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FfmpegError,
  probe,
  resolveFfmpegBinaries,
  runFfmpeg,
  verifyMediaFormat,
} from "../../src/server/lib/ffmpeg";
import { createTestApp, signUp, type TestApp } from "../helpers";
import { multipart } from "./studio-helpers";

/**
 * Issue 11, finding 1: an ID3-tagged "MP3" that is really an HLS playlist listing file:// segments.
 * `file-type` says audio/mpeg (a second ID3 header claims a size past the end of the file); ffmpeg skips
 * the first tag including its "footer" (flag 0x10, 10 more bytes, which hide the second header) and, with
 * auto-detection, opens the rest as HLS and copies whatever local file the playlist names.
 */
function polyglot(segment: string, cover: Buffer): Buffer {
  const syncsafe = (n: number) =>
    Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
  const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:2,\nfile://${segment}\n#EXT-X-ENDLIST\n\n`;
  return Buffer.concat([
    Buffer.from("ID3\x04\x00\x10", "latin1"),
    syncsafe(0),
    Buffer.from("ID3\x04\x00\x00", "latin1"),
    syncsafe(1 << 20),
    Buffer.from(playlist),
    cover,
  ]);
}

const bins = resolveFfmpegBinaries({});
let t: TestApp;
let dir: string;
let secret: string;
let cover: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-polyglot-"));
  secret = path.join(dir, "secret.mp3");
  const coverFile = path.join(dir, "cover.mp3");
  await runFfmpeg(bins, {
    globalOptions: ["-f", "lavfi"],
    inputs: [{ path: "sine=frequency=880:duration=6" }],
    outputs: [{ path: secret, options: ["-c:a", "libmp3lame", "-b:a", "64k"] }],
  });
  await runFfmpeg(bins, {
    globalOptions: ["-f", "lavfi"],
    inputs: [{ path: "sine=frequency=220:duration=2" }],
    outputs: [
      {
        path: coverFile,
        options: ["-c:a", "libmp3lame", "-b:a", "32k", "-write_xing", "0", "-id3v2_version", "0"],
      },
    ],
  });
  cover = fs.readFileSync(coverFile);
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("media polyglots (issue 11, finding 1)", () => {
  it("pinned inputs read the file as its magic-byte type; verifyMediaFormat refuses the playlist", async () => {
    const file = path.join(dir, "poly.mp3");
    fs.writeFileSync(file, polyglot(secret, cover));
    // probing pins mp3: the 2 s cover, not the 6 s secret
    const info = await probe(bins, file);
    expect(info.formatName).toBe("mp3");
    expect(info.durationSeconds).toBeLessThan(3);
    // a pinned render copies the cover, never the listed segment
    const out = path.join(dir, "out.mp3");
    await runFfmpeg(bins, {
      inputs: [{ path: file, format: "mp3" }],
      outputs: [{ path: out, options: ["-c:a", "copy"] }],
    });
    expect((await probe(bins, out)).durationSeconds).toBeLessThan(3);
    await expect(verifyMediaFormat(bins, file, "mp3")).rejects.toThrow(/do not match its type/);
    // an honest MP3 passes
    await expect(verifyMediaFormat(bins, secret, "mp3")).resolves.toBeUndefined();
  });

  it("an upload that is an HLS playlist behind an ID3 tag fails processing and never yields another tenant's file", async () => {
    // tenant A's audio in storage
    const a = await signUp(t.app);
    const up = await a.client.inject({
      method: "POST",
      url: "/api/audio/upload",
      ...multipart(
        { name: "private memo" },
        { field: "audio", filename: "memo.mp3", content: fs.readFileSync(secret) },
      ),
    });
    expect(up.statusCode).toBe(200);
    const aItem = (await a.client.get("/api/media/list")).json().media[0];
    expect(aItem.processing_status).toBe("ready");
    const row = await t.db.query.mediaItems.findFirst({ where: (m, { eq }) => eq(m.id, aItem.id) });
    const aFile = path.join(t.env.DATA_DIR, "media", row!.currentKey!);
    const aBytes = fs.readFileSync(aFile);

    // tenant B uploads a polyglot naming A's stored file
    const b = await signUp(t.app);
    const res = await b.client.inject({
      method: "POST",
      url: "/api/audio/upload",
      ...multipart(
        { name: "song" },
        { field: "audio", filename: "song.mp3", content: polyglot(aFile, cover) },
      ),
    });
    expect(res.statusCode).toBe(200);
    const bItem = (await b.client.get("/api/media/list")).json().media[0];
    expect(bItem.processing_status).toBe("failed");
    expect(bItem.processing_error).toMatch(/do not match its type/);
    // nothing B can download holds A's audio
    const bRow = await t.db.query.mediaItems.findFirst({ where: (m, { eq }) => eq(m.id, bItem.id) });
    const bDir = path.join(t.env.DATA_DIR, "media", path.dirname(bRow!.currentKey!));
    for (const f of fs.readdirSync(bDir))
      expect(fs.readFileSync(path.join(bDir, f)).equals(aBytes)).toBe(false);
    const file = await b.client.get(`/api/media/${bItem.id}/file`);
    expect(Buffer.from(file.rawPayload).equals(aBytes)).toBe(false);
  });
});

describe("which ffmpeg runs", () => {
  function fakeBin(folder: string, name: string, version: string) {
    const file = path.join(folder, name);
    fs.writeFileSync(
      file,
      `#!/bin/sh\necho "${name} version ${version} Copyright (c) 2000-2024 the FFmpeg developers"\n`,
    );
    fs.chmodSync(file, 0o755);
  }

  it("prefers the system's ffmpeg/ffprobe at version >= 5, else the npm build; FFMPEG_PATH wins", () => {
    const modern = fs.mkdtempSync(path.join(dir, "sys6-"));
    fakeBin(modern, "ffmpeg", "6.1.1-3");
    fakeBin(modern, "ffprobe", "6.1.1-3");
    const sys = resolveFfmpegBinaries({ PATH: modern });
    expect(sys).toMatchObject({ source: "system", ffmpeg: path.join(modern, "ffmpeg"), version: "6.1.1-3" });

    const old = fs.mkdtempSync(path.join(dir, "sys4-"));
    fakeBin(old, "ffmpeg", "4.4.2-0ubuntu0.22.04.1");
    fakeBin(old, "ffprobe", "4.4.2-0ubuntu0.22.04.1");
    expect(resolveFfmpegBinaries({ PATH: old }).source).toBe("npm");
    expect(resolveFfmpegBinaries({ PATH: path.join(dir, "nowhere") }).source).toBe("npm");

    const forced = resolveFfmpegBinaries({
      PATH: modern,
      FFMPEG_PATH: "/opt/ff/ffmpeg",
      FFPROBE_PATH: "/opt/ff/ffprobe",
    });
    expect(forced).toMatchObject({ source: "env", ffmpeg: "/opt/ff/ffmpeg", ffprobe: "/opt/ff/ffprobe" });
  });

  it("one override alone runs with its sibling from the same build, never with the npm ffprobe", () => {
    const build = fs.mkdtempSync(path.join(dir, "opt-ff-"));
    fakeBin(build, "ffmpeg", "7.0.2");
    fakeBin(build, "ffprobe", "7.0.2");
    expect(resolveFfmpegBinaries({ FFMPEG_PATH: path.join(build, "ffmpeg") })).toMatchObject({
      source: "env",
      ffmpeg: path.join(build, "ffmpeg"),
      ffprobe: path.join(build, "ffprobe"),
      version: "7.0.2",
    });
    expect(resolveFfmpegBinaries({ FFPROBE_PATH: path.join(build, "ffprobe") })).toMatchObject({
      ffmpeg: path.join(build, "ffmpeg"),
      ffprobe: path.join(build, "ffprobe"),
    });
    const lonely = fs.mkdtempSync(path.join(dir, "lonely-"));
    fakeBin(lonely, "ffmpeg", "7.0.2");
    expect(() => resolveFfmpegBinaries({ FFMPEG_PATH: path.join(lonely, "ffmpeg") })).toThrow(
      /FFPROBE_PATH is not set/,
    );
  });

  it("a file that is not media at all is refused before any ffmpeg run", async () => {
    const txt = path.join(dir, "notes.txt");
    fs.writeFileSync(txt, "#EXTM3U\nfile:///etc/passwd\n");
    await expect(probe(bins, txt)).rejects.toBeInstanceOf(FfmpegError);
  });
});
