import fsp from "node:fs/promises";
import path from "node:path";
import type { AvatarVideo, avatarVideos } from "../../db/schema/avatar";
import { type AnyJobDefinition, defineHandler, type JobDeps } from "../../jobs/define";
import { AppError } from "../../lib/errors";
import { ProviderError } from "../../providers/errors";
import { tmpDir } from "../studio/studio.pipeline";
import { MAX_UPLOAD_BYTES } from "../studio/studio.schemas";
import { createMediaFromFile } from "../studio/studio.service";
import { pollAvatarVideoJob } from "./avatar.jobs";
import { downloadVideo, nextPollDelaySeconds, pollJobId, timeoutMessage } from "./avatar.pipeline";
import * as q from "./avatar.queries";

const DISPLAY = { local: "The local avatar", did: "D-ID", heygen: "HeyGen" } as const;

async function load(deps: JobDeps, id: string): Promise<AvatarVideo | undefined> {
  return q.getById(deps.db, id);
}

/** Marks the video failed with a reason the user sees (only while it is still in progress). */
async function fail(deps: JobDeps, row: AvatarVideo, reason: string) {
  await q.updateAvatarVideo(deps.db, row.id, {
    status: "error",
    error: reason,
    nextPollAt: null,
    updatedAt: new Date(),
  });
  deps.log.info({ avatarVideoId: row.id, provider: row.provider, reason }, "avatar video failed");
}

/**
 * Claims poll `row.attempts` (compare-and-set on `attempts`) and applies `patch`. Returns false when
 * another worker got there first.
 */
async function claim(
  deps: JobDeps,
  row: AvatarVideo,
  patch: Partial<typeof avatarVideos.$inferInsert>,
): Promise<boolean> {
  return q.claimAttempt(deps.db, row.id, row.attempts, patch);
}

/** Queues poll `attempt` after `delaySeconds`, unless that would pass the deadline (then fails it). */
async function schedule(deps: JobDeps, row: AvatarVideo, attempt: number, delaySeconds: number) {
  const at = new Date(Date.now() + delaySeconds * 1000);
  if (at.getTime() > row.deadlineAt.getTime() + 1000) {
    // one last poll exactly at the deadline decides
    const last = new Date(Math.max(Date.now(), row.deadlineAt.getTime()) + 1000);
    await q.updateAvatarVideo(deps.db, row.id, { nextPollAt: last });
    await deps.jobs.send(
      pollAvatarVideoJob,
      { avatarVideoId: row.id, attempt },
      { id: pollJobId(row.id, attempt), startAfter: last },
    );
    return;
  }
  await q.updateAvatarVideo(deps.db, row.id, { nextPollAt: at });
  await deps.jobs.send(
    pollAvatarVideoJob,
    { avatarVideoId: row.id, attempt },
    { id: pollJobId(row.id, attempt), startAfter: at },
  );
}

/**
 * Stores the finished file and completes the video: a user's video becomes a library item (studio
 * pipeline: probe, playback rendition, poster); a landing-page demo video is stored as is under
 * `avatar-demo/` for its public page.
 */
async function ingest(deps: JobDeps, row: AvatarVideo, file: string, durationSeconds: number | undefined) {
  if (!row.workspaceId) {
    const key = `avatar-demo/${row.id}.mp4`;
    await deps.providers.storage.putFile(key, file, { contentType: "video/mp4", move: true });
    await q.updateAvatarVideo(deps.db, row.id, {
      status: "completed",
      storageKey: key,
      durationSeconds: durationSeconds ?? null,
      error: null,
      nextPollAt: null,
      completedAt: new Date(),
      updatedAt: new Date(),
    });
    return;
  }
  const media = await createMediaFromFile(deps, row.workspaceId, {
    path: file,
    name: row.title,
    source: "avatar",
    move: true,
    createdBy: row.createdBy,
  });
  await q.updateAvatarVideo(deps.db, row.id, {
    status: "completed",
    mediaId: media.id,
    durationSeconds: media.durationSeconds ?? durationSeconds ?? null,
    error: null,
    nextPollAt: null,
    completedAt: new Date(),
    updatedAt: new Date(),
  });
  deps.log.info(
    { avatarVideoId: row.id, mediaId: media.id, provider: row.provider },
    "avatar video stored in the library",
  );
}

function reasonOf(error: unknown): string {
  if (error instanceof AppError || error instanceof ProviderError) return error.message;
  return (error as Error)?.message ?? String(error);
}

/** One poll of a vendor video: status -> (still working: poll again | failed | done: download and store). */
async function pollRemote(deps: JobDeps, row: AvatarVideo) {
  const provider = deps.providers.avatar.get(row.provider);
  if (provider?.kind !== "remote" || !row.vendorVideoId) {
    await fail(deps, row, `${DISPLAY[row.provider]} is no longer configured on this server`);
    return;
  }
  const interval = deps.env.AVATAR_POLL_INTERVAL_SECONDS;
  let status: Awaited<ReturnType<typeof provider.getStatus>>;
  try {
    status = await provider.getStatus(row.vendorVideoId);
  } catch (error) {
    if (error instanceof ProviderError && !error.transient) {
      await fail(deps, row, `Video generation failed: ${error.message}`);
      return;
    }
    const failures = row.transientFailures + 1;
    if (!(await claim(deps, row, { transientFailures: failures, error: null }))) return;
    deps.log.warn(
      { avatarVideoId: row.id, reason: reasonOf(error), failures },
      "avatar status poll failed, backing off",
    );
    await schedule(deps, row, row.attempts + 1, nextPollDelaySeconds(interval, failures));
    return;
  }
  if (status.phase === "failed") {
    await fail(deps, row, status.error ?? "Video generation failed");
    return;
  }
  if (status.phase !== "done" || !status.videoUrl) {
    const ok = await claim(deps, row, {
      vendorStatus: status.vendorStatus,
      status: status.phase === "queued" ? "created" : "processing",
      transientFailures: 0,
    });
    if (ok) await schedule(deps, row, row.attempts + 1, interval);
    return;
  }
  if (
    !(await claim(deps, row, {
      vendorStatus: status.vendorStatus,
      status: "processing",
      vendorVideoUrl: status.videoUrl,
    }))
  )
    return;
  let file: { path: string } | null = null;
  try {
    file = await downloadVideo(status.videoUrl, tmpDir(deps), {
      maxBytes: MAX_UPLOAD_BYTES,
      vendor: DISPLAY[row.provider],
    });
    await ingest(deps, row, file.path, status.durationSeconds);
  } catch (error) {
    if (file) await fsp.rm(file.path, { force: true });
    if (error instanceof ProviderError && error.transient) {
      const failures = row.transientFailures + 1;
      await q.updateAvatarVideo(deps.db, row.id, { transientFailures: failures });
      deps.log.warn(
        { avatarVideoId: row.id, reason: error.message, failures },
        "avatar download failed, retrying",
      );
      await schedule(deps, row, row.attempts + 1, nextPollDelaySeconds(interval, failures));
      return;
    }
    await fail(deps, row, `Video generation failed: ${reasonOf(error)}`);
  }
}

/** Renders a local avatar video and stores it in the library. */
async function renderLocal(deps: JobDeps, row: AvatarVideo) {
  const provider = deps.providers.avatar.get("local");
  if (provider?.kind !== "local") {
    await fail(deps, row, "The local avatar is not available");
    return;
  }
  if (!(await claim(deps, row, { status: "processing", vendorStatus: "rendering" }))) return;
  const out = path.join(tmpDir(deps), `avatar-local-${row.id}.mp4`);
  try {
    const rendered = await provider.render({ script: row.script, outPath: out });
    await ingest(deps, row, out, rendered.durationSeconds);
  } catch (error) {
    deps.log.error({ err: error, avatarVideoId: row.id }, "local avatar render failed");
    await fail(deps, row, `Video generation failed: ${reasonOf(error)}`);
  } finally {
    await fsp.rm(out, { force: true });
  }
}

/**
 * Polls one avatar video (every AVATAR_POLL_INTERVAL_SECONDS while processing, backing off on
 * transient vendor failures, failing at `deadlineAt`), downloads the finished vendor video into
 * Pitchwise storage and hands it to the studio's media processing so it stays playable after the
 * vendor URL expires and shows up in the library. For the local provider it renders the video.
 */
const pollAvatarVideoHandler = defineHandler(pollAvatarVideoJob, {
  handler: async (data, deps) => {
    const row = await load(deps, data.avatarVideoId);
    if (!row || row.status === "completed" || row.status === "error") return;
    if (row.attempts !== data.attempt) return; // a stale duplicate: a newer poll owns the video
    if (Date.now() > row.deadlineAt.getTime()) {
      await fail(deps, row, timeoutMessage(deps.env.AVATAR_POLL_TIMEOUT_SECONDS));
      return;
    }
    if (row.provider === "local") await renderLocal(deps, row);
    else await pollRemote(deps, row);
  },
});

/** The avatar feature's job handlers (worker registry). */
export const avatarHandlers: AnyJobDefinition[] = [pollAvatarVideoHandler];
