import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { ProviderError } from "../../providers/errors";

/**
 * A pg-boss job id for poll number `attempt` of a video: the same (video, attempt) always gives the
 * same uuid (SHA-1 based, shaped like RFC 9562 version 5), so a duplicate send is ignored (pg-boss
 * and the inline client both dedupe by id).
 */
export function pollJobId(avatarVideoId: string, attempt: number): string {
  const hex = createHash("sha1").update(`pitchwise-avatar:${avatarVideoId}:${attempt}`).digest("hex");
  const variant = ((Number.parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The reason stored when a video is still not done at its deadline (AVATAR_POLL_TIMEOUT_SECONDS). */
export function timeoutMessage(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  return minutes >= 1
    ? `Video generation timed out after ${minutes} minute${minutes === 1 ? "" : "s"}`
    : `Video generation timed out after ${Math.round(seconds)} second${Math.round(seconds) === 1 ? "" : "s"}`;
}

/** Longest wait between two polls after repeated transient failures, seconds. */
export const MAX_BACKOFF_SECONDS = 120;

/**
 * Seconds until the next poll: the interval (spec section 9: 5000 ms) while all is well, doubled per
 * consecutive transient failure (network, 429, 5xx), capped at MAX_BACKOFF_SECONDS.
 */
export function nextPollDelaySeconds(intervalSeconds: number, transientFailures: number): number {
  if (transientFailures <= 0) return intervalSeconds;
  return Math.min(MAX_BACKOFF_SECONDS, intervalSeconds * 2 ** Math.min(transientFailures, 10));
}

/**
 * Downloads a finished vendor video into `dir` (streamed, never held in memory).
 * @returns the file path and its size in bytes (the caller owns the file)
 * @throws ProviderError: transient for network errors, timeouts and HTTP errors (an expired or not yet
 *   readable URL is fixed by the next status poll, which returns a fresh URL); permanent when the file
 *   is larger than `maxBytes` or the URL is not http(s).
 */
export async function downloadVideo(
  url: string,
  dir: string,
  opts: { maxBytes: number; timeoutMs?: number; vendor: string },
): Promise<{ path: string; size: number }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderError(`${opts.vendor} returned an invalid video URL`, { transient: false });
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    throw new ProviderError(`${opts.vendor} returned a video URL that is not http(s)`, { transient: false });
  let res: Response;
  try {
    res = await fetch(parsed, {
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10 * 60_000),
      redirect: "follow",
    });
  } catch (error) {
    throw new ProviderError(`Could not download the video from ${opts.vendor}: ${(error as Error).message}`, {
      transient: true,
    });
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => {});
    throw new ProviderError(`Could not download the video from ${opts.vendor} (HTTP ${res.status})`, {
      transient: true,
      httpStatus: res.status,
    });
  }
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    await res.body.cancel().catch(() => {});
    throw tooLarge(opts);
  }
  const file = path.join(dir, `avatar-${randomUUID()}.mp4`);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > opts.maxBytes) cb(tooLarge(opts));
      else cb(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
      counter,
      fs.createWriteStream(file),
    );
  } catch (error) {
    await fsp.rm(file, { force: true });
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(`The download from ${opts.vendor} broke off: ${(error as Error).message}`, {
      transient: true,
    });
  }
  return { path: file, size };
}

function tooLarge(opts: { maxBytes: number; vendor: string }) {
  return new ProviderError(
    `The video from ${opts.vendor} is larger than ${Math.round(opts.maxBytes / 1024 / 1024)} MB`,
    {
      transient: false,
    },
  );
}
