import type { AppContext } from "../../context";
import type { AvatarProviderName, AvatarVideo, AvatarVideoStatus } from "../../db/schema/avatar";
import { AppError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { parseInput } from "../../lib/validate";
import { ProviderError } from "../../providers/errors";
import { pollAvatarVideoJob } from "./avatar.jobs";
import { pollJobId, timeoutMessage } from "./avatar.pipeline";
import * as q from "./avatar.queries";
import { createAvatarInput, providerSchema, scriptSchema, statusInput } from "./avatar.schemas";

/** What the avatar services need (an AppContext or a job's deps both fit). */
export type AvatarDeps = Pick<AppContext, "db" | "env" | "providers" | "jobs" | "log">;

/** At most this many avatar videos of one user may be in progress at once (vendor calls cost credits). */
export const MAX_IN_PROGRESS_PER_USER = 5;

/** Vendor names as users know them. */
export const PROVIDER_DISPLAY: Record<AvatarProviderName, string> = {
  local: "The local avatar",
  did: "D-ID",
  heygen: "HeyGen",
};

/**
 * The avatar video as the API shows it. `status` follows spec section 4: created/processing while
 * the vendor works, `completed` once `videoUrl` (a Pitchwise URL, not the vendor's expiring one)
 * exists, `error` with a reason.
 */
export interface PublicAvatarVideo {
  videoId: string;
  provider: AvatarProviderName;
  vendorVideoId: string | null;
  status: AvatarVideoStatus;
  vendorStatus: string | null;
  videoUrl: string | null;
  mediaId: number | null;
  title: string;
  script: string;
  error: string | null;
  /** seconds */
  durationSeconds: number | null;
  createdAt: string;
  completedAt: string | null;
}

/** Maps a row to the API shape; the video URL is the owner-only media file route of the library item. */
export function toPublicAvatarVideo(v: AvatarVideo): PublicAvatarVideo {
  return {
    videoId: v.id,
    provider: v.provider,
    vendorVideoId: v.vendorVideoId,
    status: v.status,
    vendorStatus: v.vendorStatus,
    videoUrl: v.status === "completed" && v.mediaId ? `/api/media/${v.mediaId}/file` : null,
    mediaId: v.mediaId,
    title: v.title,
    script: v.script,
    error: v.error,
    durationSeconds: v.durationSeconds,
    createdAt: v.createdAt.toISOString(),
    completedAt: v.completedAt?.toISOString() ?? null,
  };
}

/** A library name from the script: "AI avatar: <first words>…" (at most 60 characters). */
export function defaultTitle(script: string): string {
  const words = script.replace(/\s+/g, " ").trim();
  const head = words.length > 48 ? `${words.slice(0, 47).replace(/\s+\S*$/, "")}…` : words;
  return `AI avatar: ${head}`;
}

/**
 * Starts an avatar video for `workspaceId` with `providerName` (spec section 7, `POST /api/videos/create/*`).
 * Vendors get the script at once (their id is kept); the local provider renders in a job. Either
 * way the polling job `avatar.poll-video` takes it from there.
 *
 * @returns the new video; status `error` (with the vendor's reason) when the vendor refused it
 * @throws AppError BAD_REQUEST 'Please enter a script' (blank), or a too long script
 * @throws AppError UNPROCESSABLE when the provider is not configured here (no API key)
 * @throws AppError TOO_MANY_REQUESTS with MAX_IN_PROGRESS_PER_USER videos in progress
 */
export async function createAvatarVideo(
  deps: AvatarDeps,
  workspaceId: string,
  providerName: unknown,
  raw: unknown,
  createdBy: string | null = null,
): Promise<PublicAvatarVideo> {
  const name = parseInput(providerSchema, providerName);
  // the script is parsed on its own so its message reads exactly 'Please enter a script' (spec section 5)
  const body = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const input = {
    ...parseInput(createAvatarInput.pick({ title: true }), { title: body.title }),
    script: parseInput(scriptSchema, body.script),
  };
  const provider = deps.providers.avatar.get(name);
  if (!provider)
    throw new AppError(
      "UNPROCESSABLE",
      `${PROVIDER_DISPLAY[name]} is not configured on this server (set ${name === "did" ? "DID_API_KEY" : "HEYGEN_API_KEY"}); choose another provider`,
    );
  const title = input.title || defaultTitle(input.script);
  const deadlineAt = new Date(Date.now() + deps.env.AVATAR_POLL_TIMEOUT_SECONDS * 1000);
  // counted and inserted under the workspace's lock: a burst of requests cannot all pass the cap
  const started = await q.insertAvatarVideoWithinCap(
    deps.db,
    { workspaceId, createdBy, provider: name, script: input.script, title, deadlineAt, status: "created" },
    MAX_IN_PROGRESS_PER_USER,
  );
  if ("inProgress" in started)
    throw new AppError(
      "TOO_MANY_REQUESTS",
      `You already have ${started.inProgress} avatar videos in progress. Please wait for one to finish.`,
    );
  const row = started.row;

  if (provider.kind === "local") {
    const updated = await q.updateAvatarVideo(deps.db, row.id, {
      vendorVideoId: row.id,
      vendorStatus: "queued",
    });
    await deps.jobs.send(
      pollAvatarVideoJob,
      { avatarVideoId: row.id, attempt: 0 },
      { id: pollJobId(row.id, 0) },
    );
    return toPublicAvatarVideo((await q.getOwned(deps.db, workspaceId, row.id)) ?? updated ?? row);
  }

  try {
    const created = await provider.create({ script: input.script, title });
    const updated = await q.updateAvatarVideo(deps.db, row.id, {
      vendorVideoId: created.vendorVideoId,
      vendorStatus: created.vendorStatus,
      updatedAt: new Date(),
    });
    await deps.jobs.send(
      pollAvatarVideoJob,
      { avatarVideoId: row.id, attempt: 0 },
      {
        id: pollJobId(row.id, 0),
        startAfter: new Date(Date.now() + deps.env.AVATAR_POLL_INTERVAL_SECONDS * 1000),
      },
    );
    return toPublicAvatarVideo((await q.getOwned(deps.db, workspaceId, row.id)) ?? updated ?? row);
  } catch (error) {
    const message =
      error instanceof ProviderError
        ? error.transient
          ? `${error.message}. Please try again in a moment.`
          : error.message
        : `${PROVIDER_DISPLAY[name]} request failed`;
    if (!(error instanceof ProviderError))
      deps.log.error({ err: error, provider: name }, "avatar create failed");
    const failed = await q.updateAvatarVideo(deps.db, row.id, {
      status: "error",
      error: message,
      updatedAt: new Date(),
    });
    return toPublicAvatarVideo(failed ?? row);
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The current state of one of the user's avatar videos (spec section 7,
 * `GET /api/videos/status/{provider}/{videoId}`). `videoId` is Pitchwise's id from the create call;
 * the vendor's id is accepted too. Pitchwise answers from its own table: the client never polls
 * the vendor. A video past its deadline that no job finished is reported (and stored) as timed out.
 * @throws AppError BAD_REQUEST for an unknown provider or a malformed id; NOT_FOUND when it is not the user's
 */
export async function getAvatarVideoStatus(
  deps: Pick<AppContext, "db" | "env">,
  workspaceId: string,
  raw: { provider: unknown; videoId: unknown },
): Promise<PublicAvatarVideo> {
  const { provider, videoId } = parseInput(statusInput, raw);
  const row = await q.findByAnyId(deps.db, workspaceId, provider, videoId, UUID_RE.test(videoId));
  if (!row) throw new AppError("NOT_FOUND", "Video not found");
  if ((row.status === "created" || row.status === "processing") && row.deadlineAt.getTime() < Date.now()) {
    const timedOut = await q.failIfInProgress(
      deps.db,
      row.id,
      timeoutMessage(deps.env.AVATAR_POLL_TIMEOUT_SECONDS),
    );
    if (timedOut) return toPublicAvatarVideo(timedOut);
  }
  return toPublicAvatarVideo(row);
}

/**
 * One avatar video of the workspace by Pitchwise id, or null when absent or another workspace's (for
 * other features: video campaigns wait on their recipients' videos through this).
 */
export async function getAvatarVideo(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  id: string,
): Promise<AvatarVideo | null> {
  if (!UUID_RE.test(id)) return null;
  return (await q.getOwned(deps.db, workspaceId, id)) ?? null;
}

/** The user's avatar videos, newest first (at most `limit`, default 20). */
export async function listAvatarVideos(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  limit = 20,
): Promise<PublicAvatarVideo[]> {
  const rows = await q.listNewest(deps.db, workspaceId, Math.min(100, Math.max(1, limit)));
  return rows.map(toPublicAvatarVideo);
}

/** The script of the landing-page demo video (spec section 2: the success view promises 'AI Avatar Video Included'). */
export function demoScript(firstName: string): string {
  const name = firstName.replace(/\s+/g, " ").trim().slice(0, 40) || "there";
  return `Hi ${name}! I'm the Pitchwise AI avatar, and this short video was made just for you. It shows what your customers will see: a personal video, a text message, an email and even an AI phone call, all sent from one place. Start your free trial today, and let's grow your business together!`;
}

/** A demo's local render starts this long after the demo job queued it, milliseconds. */
export const DEMO_RENDER_DELAY_MS = 2000;

/** The public page of a demo video. */
export function demoVideoUrl(env: { APP_URL: string }, token: string): string {
  return `${env.APP_URL}/a/${token}`;
}

/**
 * Starts the avatar video of a landing-page demo request with the default provider (AVATAR_PROVIDER,
 * the offline local one unless configured) and returns the public page that will play it. Idempotent
 * per demo request (a retried demo job gets the same page).
 * @returns the page URL, or null when the vendor refused the video at once (the demo email then goes
 *   without a video link)
 */
export async function startDemoAvatarVideo(
  deps: AvatarDeps,
  input: { demoRequestId: number; firstName: string },
): Promise<string | null> {
  const name = deps.providers.avatar.get(deps.providers.avatar.defaultName)
    ? deps.providers.avatar.defaultName
    : "local";
  const provider = deps.providers.avatar.get(name);
  if (!provider) return null;
  const inserted = await q.insertDemoAvatarVideo(deps.db, {
    workspaceId: null,
    demoRequestId: input.demoRequestId,
    publicToken: randomToken(),
    provider: name,
    script: demoScript(input.firstName),
    title: "Pitchwise demo",
    deadlineAt: new Date(Date.now() + deps.env.AVATAR_POLL_TIMEOUT_SECONDS * 1000),
  });
  if (!inserted) {
    const existing = await q.getByDemoRequest(deps.db, input.demoRequestId);
    return existing?.publicToken && existing.status !== "error"
      ? demoVideoUrl(deps.env, existing.publicToken)
      : null;
  }
  const url = demoVideoUrl(deps.env, inserted.publicToken!);
  if (provider.kind === "local") {
    await q.updateAvatarVideo(deps.db, inserted.id, { vendorVideoId: inserted.id, vendorStatus: "queued" });
    // rendered after the demo's email, SMS and call are out (the render is CPU-heavy; the page waits for it)
    await deps.jobs.send(
      pollAvatarVideoJob,
      { avatarVideoId: inserted.id, attempt: 0 },
      { id: pollJobId(inserted.id, 0), startAfter: new Date(Date.now() + DEMO_RENDER_DELAY_MS) },
    );
    return url;
  }
  try {
    const created = await provider.create({ script: inserted.script, title: inserted.title });
    await q.updateAvatarVideo(deps.db, inserted.id, {
      vendorVideoId: created.vendorVideoId,
      vendorStatus: created.vendorStatus,
      updatedAt: new Date(),
    });
    await deps.jobs.send(
      pollAvatarVideoJob,
      { avatarVideoId: inserted.id, attempt: 0 },
      {
        id: pollJobId(inserted.id, 0),
        startAfter: new Date(Date.now() + deps.env.AVATAR_POLL_INTERVAL_SECONDS * 1000),
      },
    );
    return url;
  } catch (error) {
    deps.log.warn(
      { err: error, demoRequestId: input.demoRequestId },
      "demo avatar video refused by the vendor",
    );
    await q.updateAvatarVideo(deps.db, inserted.id, {
      status: "error",
      error: (error as Error).message,
      updatedAt: new Date(),
    });
    return null;
  }
}

const TOKEN_RE = /^[a-z2-7]{16,64}$/;

/**
 * A demo video by its public token (the page `/a/{token}` needs no account).
 * @throws AppError NOT_FOUND for a malformed or unknown token
 */
export async function getDemoAvatarVideo(deps: Pick<AppContext, "db">, token: string): Promise<AvatarVideo> {
  if (!TOKEN_RE.test(token)) throw new AppError("NOT_FOUND", "Video not found");
  const row = await q.getByPublicToken(deps.db, token);
  if (!row || row.workspaceId !== null) throw new AppError("NOT_FOUND", "Video not found");
  return row;
}
