import { randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileTypeFromFile } from "file-type";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import type { EditDecisionList, MediaEdit, MediaItem, MediaSource, MediaType } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import type { ByteRange } from "../../providers/storage";
import { assertWorkspaceFeature } from "../billing/billing.service";
import { segmentsFromCuts } from "./studio.graph";
import { derivePreviewsJob, processMediaJob, renderEditJob } from "./studio.jobs";
import { mediaPrefix, tmpDir, workspaceMediaPrefix } from "./studio.pipeline";
import * as q from "./studio.queries";
import {
  ALLOWED_MIME,
  advancedEditSchema,
  FILE_TOO_LARGE_MESSAGE,
  formatLength,
  MAX_MEDIA_SECONDS,
  MAX_UPLOAD_BYTES,
  trimEditSchema,
  UNSUPPORTED_TYPE_MESSAGE,
} from "./studio.schemas";

/** What the studio's services need (an AppContext or a job's deps both fit). */
export type StudioDeps = Pick<AppContext, "db" | "env" | "providers" | "jobs" | "log">;

/**
 * Streams `body` into a temporary file, counting bytes; refuses more than `maxBytes`.
 * Resolves with the path and size; on any failure (including the limit) the file is removed.
 * @throws AppError PAYLOAD_TOO_LARGE 'File too large. Maximum size is 100MB.' (spec section 5).
 */
export async function streamToTempFile(
  deps: Pick<AppContext, "env">,
  body: Readable,
  maxBytes = MAX_UPLOAD_BYTES,
): Promise<{ path: string; size: number }> {
  const file = path.join(tmpDir(deps), `upload-${randomUUID()}`);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) cb(new AppError("PAYLOAD_TOO_LARGE", FILE_TOO_LARGE_MESSAGE));
      else cb(null, chunk);
    },
  });
  try {
    await pipeline(body, counter, fs.createWriteStream(file));
    if ((body as Readable & { truncated?: boolean }).truncated)
      throw new AppError("PAYLOAD_TOO_LARGE", FILE_TOO_LARGE_MESSAGE);
  } catch (error) {
    await fsp.rm(file, { force: true });
    if ((error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE")
      throw new AppError("PAYLOAD_TOO_LARGE", FILE_TOO_LARGE_MESSAGE);
    throw error;
  }
  return { path: file, size };
}

/** Input of `createMediaFromFile`: a file on local disk or a stream, plus how to list it. */
export interface CreateMediaInput {
  /** a local file (left in place unless `move`) */
  path?: string;
  /** or a stream (written to a temporary file first, at most 100 MB) */
  stream?: Readable;
  /** display name; defaults to "Untitled" */
  name: string;
  source: MediaSource;
  /** keep it a draft (recordings opened in the editor) */
  isDraft?: boolean;
  /** hint for containers that hold either kind (webm): the endpoint's kind */
  typeHint?: MediaType;
  /** move `path` into storage instead of copying it */
  move?: boolean;
  /** the user who uploaded or made it (null for system work) */
  createdBy?: string | null;
}

/**
 * Stores a media file for `workspaceId` and queues its processing job (`studio.process-media`: ffprobe
 * metadata, H.264/AAC MP4 or MP3 playback rendition, poster + GIF preview for video, waveform peaks).
 *
 * The type is decided by magic bytes (`file-type`), never by a client's MIME; allowed types and the
 * message come from spec section 5. A type starting with `video` is video, otherwise audio (the
 * processing job corrects a webm without a video stream to audio).
 *
 * Returns the new row (status `processing`). Entry point for other features (e.g. the AI avatar
 * feature stores its rendered videos with `source: "avatar"`).
 *
 * @throws AppError PAYLOAD_TOO_LARGE 'File too large. Maximum size is 100MB.' (over 100 MB)
 * @throws AppError UNSUPPORTED_MEDIA_TYPE 'Unsupported file type. Please upload MP4, WebM, MOV, MP3, or WAV files.'
 * On any failure nothing is left behind (no row, no stored file, no temporary file).
 */
export async function createMediaFromFile(
  deps: StudioDeps,
  workspaceId: string,
  input: CreateMediaInput,
): Promise<MediaItem> {
  let localPath: string;
  let size: number;
  let ownsTemp = false;
  if (input.stream) {
    const tmp = await streamToTempFile(deps, input.stream);
    localPath = tmp.path;
    size = tmp.size;
    ownsTemp = true;
  } else if (input.path) {
    localPath = input.path;
    size = (await fsp.stat(localPath)).size;
    if (size > MAX_UPLOAD_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", FILE_TOO_LARGE_MESSAGE);
  } else {
    throw new AppError("BAD_REQUEST", "No file was uploaded");
  }
  const removeTemp = async () => {
    if (ownsTemp || input.move) await fsp.rm(localPath, { force: true });
  };
  let row: MediaItem | undefined;
  try {
    if (size === 0) throw new AppError("BAD_REQUEST", "The file is empty");
    const detected = await fileTypeFromFile(localPath);
    const allowed = detected ? ALLOWED_MIME[detected.mime] : undefined;
    if (!allowed) throw new AppError("UNSUPPORTED_MEDIA_TYPE", UNSUPPORTED_TYPE_MESSAGE);
    let type: MediaType = allowed.mime.startsWith("video") ? "video" : "audio";
    if (allowed.ext === "webm" && input.typeHint) type = input.typeHint;
    const mime = type === "audio" && allowed.ext === "webm" ? "audio/webm" : allowed.mime;
    const name = input.name.trim().slice(0, 200) || "Untitled";
    row = await q.insertMediaItem(deps.db, {
      workspaceId,
      createdBy: input.createdBy ?? null,
      name,
      type,
      source: input.source,
      isDraft: input.isDraft ?? false,
      mimeType: mime,
      sizeBytes: size,
      originalSizeBytes: size,
    });
    const key = `${mediaPrefix(workspaceId, row.id)}/original.${allowed.ext}`;
    const stored = await deps.providers.storage.putFile(key, localPath, {
      contentType: mime,
      move: ownsTemp || input.move,
    });
    await q.insertRendition(deps.db, {
      mediaId: row.id,
      kind: "original",
      storageKey: key,
      mimeType: mime,
      sizeBytes: stored.size,
    });
    row = (await q.updateMediaItem(deps.db, row.id, { currentKey: key, updatedAt: new Date() })) ?? row;
  } catch (error) {
    await removeTemp();
    if (row) {
      await q.deleteMediaItem(deps.db, row.id);
      await deps.providers.storage.deletePrefix(mediaPrefix(workspaceId, row.id)).catch(() => {});
    }
    throw error;
  }
  await removeTemp();
  await deps.jobs.send(processMediaJob, { mediaId: row.id });
  return (await q.selectMediaItem(deps.db, row.id)) ?? row;
}

/** The media item as the API shows it (spec section 3: Media item), plus pipeline fields. */
export interface PublicMedia {
  id: number;
  name: string;
  type: MediaType;
  url: string;
  thumbnail_url: string | null;
  gif_url: string | null;
  mime_type: string;
  /** bytes */
  size: number;
  /** seconds */
  duration: number | null;
  width: number | null;
  height: number | null;
  created_at: string;
  /** "draft" or "published" */
  status: "draft" | "published";
  processing_status: MediaItem["processingStatus"];
  processing_error: string | null;
  source: MediaSource;
  version: number;
  /** how many versions the library can show (original + finished edits); present in list answers */
  version_count?: number;
}

/** Maps a row to the API shape; urls are owner-only (`/api/media/{id}/file|poster|gif`) and versioned. */
export function toPublicMedia(m: MediaItem): PublicMedia {
  const v = `v=${m.version}`;
  return {
    id: m.id,
    name: m.name,
    type: m.type,
    url: `/api/media/${m.id}/file?${v}`,
    thumbnail_url: m.posterKey ? `/api/media/${m.id}/poster?${v}` : null,
    gif_url: m.gifKey ? `/api/media/${m.id}/gif?${v}` : null,
    mime_type: m.currentKey?.endsWith(".mp4")
      ? "video/mp4"
      : m.currentKey?.endsWith(".mp3")
        ? "audio/mpeg"
        : m.mimeType,
    size: m.sizeBytes,
    duration: m.durationSeconds,
    width: m.width,
    height: m.height,
    created_at: m.createdAt.toISOString(),
    status: m.isDraft ? "draft" : "published",
    processing_status: m.processingStatus,
    processing_error: m.processingError,
    source: m.source,
    version: m.version,
  };
}

/** Every media item of the user, newest first. */
export async function listMedia(deps: Pick<AppContext, "db">, workspaceId: string): Promise<MediaItem[]> {
  return q.selectMediaItemsOfWorkspace(deps.db, workspaceId);
}

/**
 * One keyset page of the workspace's media items, newest first by (created_at, id): `limit + 1`
 * items (the extra one tells the caller a next page exists) after `after`, each with `ts`, its
 * `created_at::text` as Postgres prints it (microseconds and UTC offset kept). `after.createdAt` is
 * such a text (a previous row's `ts`, checked by the caller with lib/cursor's pgTimestampText), never
 * a JS Date: a Date holds milliseconds only, and would skip or repeat items created within one
 * millisecond. For the public API's GET /api/v1/media (api.v1.ts), which reads no more than a page.
 */
export async function listMediaPage(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  opts: { limit: number; after?: { createdAt: string; id: number } },
): Promise<{ m: MediaItem; ts: string }[]> {
  const after = opts.after && { ts: opts.after.createdAt, id: opts.after.id };
  return q.selectMediaItemsPageOfWorkspace(deps.db, workspaceId, opts.limit + 1, after);
}

/**
 * Every media item of the workspace in the API shape, newest first, each with `version_count`
 * (1 + its finished edits; one grouped query for the whole list).
 */
export async function listPublicMedia(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<PublicMedia[]> {
  const [items, counts] = await Promise.all([
    listMedia(deps, workspaceId),
    q.countDoneEditsOfWorkspace(deps.db, workspaceId),
  ]);
  const byId = new Map(counts.map((c) => [c.mediaId, c.n]));
  return items.map((m) => ({ ...toPublicMedia(m), version_count: 1 + (byId.get(m.id) ?? 0) }));
}

/** Drafts first, then published items, each newest first (spec section 7: GET /api/media/drafts). */
export async function listDraftsFirst(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<MediaItem[]> {
  const all = await listMedia(deps, workspaceId);
  return [...all.filter((m) => m.isDraft), ...all.filter((m) => !m.isDraft)];
}

/** Videos for campaign pickers (spec section 3: Video {id, title, url, thumbnail_url, duration}), ready ones only. */
export async function listMyVideos(deps: Pick<AppContext, "db">, workspaceId: string) {
  const all = await listMedia(deps, workspaceId);
  return all
    .filter((m) => m.type === "video" && m.processingStatus === "ready")
    .map((m) => {
      const p = toPublicMedia(m);
      return {
        id: m.id,
        title: m.name,
        url: p.url,
        thumbnail_url: p.thumbnail_url,
        gif_url: p.gif_url,
        duration: m.durationSeconds,
        status: p.status,
      };
    });
}

/**
 * One media item of the workspace, or null when absent or another workspace's (for other features:
 * campaign landing pages and thumbnails read media only through this).
 */
export async function findMedia(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  mediaId: number,
): Promise<MediaItem | null> {
  return (await q.selectMediaItemOfWorkspace(deps.db, workspaceId, mediaId)) ?? null;
}

/**
 * One media item of the user.
 * @throws AppError NOT_FOUND 'Media not found' when absent or owned by someone else.
 */
export async function getMedia(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  mediaId: number,
): Promise<MediaItem> {
  const row = await q.selectMediaItemOfWorkspace(deps.db, workspaceId, mediaId);
  if (!row) throw new AppError("NOT_FOUND", "Media not found");
  return row;
}

/** A campaign that uses a library item, as the Studio's delete dialog names it (mediaUses). */
export interface MediaUse {
  /** the campaign's id (its report is /campaigns/{id}) */
  id: number;
  name: string;
  /** the campaign's status: draft, scheduled, sending, paused, completed, cancelled, failed */
  status: string;
  /** it still has messages to send (scheduled, sending, paused): the item cannot be deleted meanwhile */
  pending: boolean;
}

/**
 * A feature whose records use library items (campaigns: video campaigns). The studio cannot import
 * it (it imports the studio), so it registers itself here with registerMediaUser when it loads.
 */
export interface MediaUser {
  /** the workspace's records using item `mediaId`, newest first */
  uses(deps: Pick<AppContext, "db">, workspaceId: string, mediaId: number): Promise<MediaUse[]>;
  /** runs in the deletion's transaction before the item's row goes (e.g. to note the deletion) */
  deleting(tx: DbOrTx, workspaceId: string, mediaId: number): Promise<void>;
}

const mediaUsers: MediaUser[] = [];

/**
 * Registers a feature that uses library items (campaigns, once, when its service module loads): its
 * uses are listed by mediaUses, refuse deleteMedia while pending, and it is told of each deletion.
 */
export function registerMediaUser(user: MediaUser): void {
  if (!mediaUsers.includes(user)) mediaUsers.push(user);
}

/** What the Studio's delete dialog shows of an item's uses (mediaUses). */
export interface MediaUses {
  /** the campaigns using it, newest first */
  campaigns: MediaUse[];
  /**
   * why it cannot be deleted now (the sentence deleteMedia's 409 gives): which campaign still has
   * messages to send and what to do; null when it can be deleted
   */
  refusal: string | null;
}

/**
 * The campaigns using one media item of the workspace (the Studio's delete dialog: how many and
 * which), and the sentence refusing its deletion while one still has messages to send.
 * @throws AppError NOT_FOUND 'Media not found' when absent or another workspace's.
 */
export async function mediaUses(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  mediaId: number,
): Promise<MediaUses> {
  const row = await getMedia(deps, workspaceId, mediaId);
  const campaigns = (await Promise.all(mediaUsers.map((u) => u.uses(deps, workspaceId, row.id)))).flat();
  const pending = campaigns.filter((u) => u.pending);
  return { campaigns, refusal: pending.length > 0 ? inUseRefusal(row, pending) : null };
}

/**
 * The refusal of deleting an item that campaigns with messages still to send use: which campaign
 * (or how many, naming the first three) and what to do (cancel, or wait until it finishes).
 */
function inUseRefusal(media: MediaItem, pending: MediaUse[]): string {
  const what = media.type === "video" ? "video" : "file";
  const quoted = pending.slice(0, 3).map((u) => `"${u.name}" (${u.status})`);
  const more = pending.length > 3 ? ` and ${pending.length - 3} more` : "";
  return pending.length === 1
    ? `This ${what} is used by the campaign ${quoted[0]}, which still has messages to send. Cancel that campaign or wait until it finishes, then delete the ${what}.`
    : `This ${what} is used by ${pending.length} campaigns that still have messages to send: ${quoted.join(", ")}${more}. Cancel them or wait until they finish, then delete the ${what}.`;
}

/**
 * Deletes a media item, its renditions, edits and stored files. Refused while a campaign using it
 * still has messages to send (scheduled, sending, paused: its messages would link to a dead page);
 * the registered users (mediaUses) are told in the deletion's transaction, so the landing pages and
 * engagement of campaigns already sent stay, their video marked deleted.
 * @throws AppError NOT_FOUND for an unknown id or another user's item; CONFLICT naming the campaign(s)
 * with messages still to send (REST body `campaigns`: id, name, status of each).
 */
export async function deleteMedia(deps: StudioDeps, workspaceId: string, mediaId: number): Promise<void> {
  const row = await getMedia(deps, workspaceId, mediaId);
  const { campaigns, refusal } = await mediaUses(deps, workspaceId, row.id);
  if (refusal)
    throw new AppError("CONFLICT", refusal, {
      expose: {
        campaigns: campaigns.filter((u) => u.pending).map(({ id, name, status }) => ({ id, name, status })),
      },
    });
  await deps.db.transaction(async (tx) => {
    for (const user of mediaUsers) await user.deleting(tx, workspaceId, row.id);
    await q.deleteMediaItem(tx, row.id, workspaceId);
  });
  await deps.providers.storage.deletePrefix(mediaPrefix(workspaceId, row.id)).catch((err) => {
    deps.log.warn({ err, mediaId }, "could not delete media files");
  });
}

/**
 * Before a workspace is deleted (features/account): returns the clean-up to run once its rows are
 * gone, which deletes every stored file of its media library (`u/<workspace>/`: originals, playback
 * renditions, posters, GIFs, edited versions, finished AI avatar videos). A storage failure is logged,
 * not thrown.
 */
export function mediaFilesCleanupForDeletion(
  deps: Pick<StudioDeps, "providers" | "log">,
  workspaceId: string,
) {
  return async (): Promise<void> => {
    await deps.providers.storage.deletePrefix(workspaceMediaPrefix(workspaceId)).catch((err) => {
      deps.log.warn({ err, workspaceId }, "a deleted workspace's media files were not removed");
    });
  };
}

/** Which stored file of an item to serve. */
export type MediaFileKind = "file" | "poster" | "gif" | "original";

/** A version id: `"original"` (the upload as processed) or the id of a finished edit. */
export type MediaVersionId = "original" | number;

/**
 * One playable version of a media item (issue 14: the editor saves a new version, the original is kept).
 * `id` is "original" or the edit id; `number` counts from 1 (the original) in the order they were made;
 * `duration` in seconds; `current` marks the version players and campaigns use now.
 */
export interface PublicMediaVersion {
  id: MediaVersionId;
  number: number;
  label: string;
  mode: "upload" | "trim" | "advanced";
  duration: number | null;
  created_at: string;
  current: boolean;
  /** owner-only URL of this version's file */
  url: string;
}

interface VersionRow {
  id: MediaVersionId;
  key: string;
  size: number;
  duration: number | null;
  mode: PublicMediaVersion["mode"];
  createdAt: Date;
}

async function versionRows(deps: Pick<AppContext, "db">, item: MediaItem): Promise<VersionRow[]> {
  const rends = await q.selectBaseRenditions(deps.db, item.id);
  const base = rends.find((r) => r.kind === "playback") ?? rends.find((r) => r.kind === "original");
  const edits = await q.selectDoneEdits(deps.db, item.id);
  const editSizes = new Map(
    (await q.selectEditRenditionSizes(deps.db, item.id)).map((r) => [r.editId, r.size]),
  );
  const rows: VersionRow[] = [];
  if (base)
    rows.push({
      id: "original",
      key: base.storageKey,
      size: base.sizeBytes,
      duration: base.durationSeconds ?? item.probe?.durationSeconds ?? null,
      mode: "upload",
      createdAt: item.createdAt,
    });
  for (const e of edits)
    if (e.outputKey)
      rows.push({
        id: e.id,
        key: e.outputKey,
        size: editSizes.get(e.id) ?? item.sizeBytes,
        duration: e.outputDurationSeconds,
        mode: e.mode,
        createdAt: e.finishedAt ?? e.createdAt,
      });
  return rows;
}

function toPublicVersion(item: MediaItem, r: VersionRow, index: number): PublicMediaVersion {
  return {
    id: r.id,
    number: index + 1,
    label: r.id === "original" ? "Original" : `Edit ${index}`,
    mode: r.mode,
    duration: r.duration,
    created_at: r.createdAt.toISOString(),
    current: r.key === item.currentKey,
    url: `/api/media/${item.id}/versions/${r.id}/file`,
  };
}

/**
 * Every version of a media item, oldest first: the original upload, then each finished edit. Editing
 * never overwrites: an edit renders into a new file and becomes the current version.
 * @throws AppError NOT_FOUND for an unknown id or another workspace's item.
 */
export async function listMediaVersions(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  mediaId: number,
): Promise<PublicMediaVersion[]> {
  const item = await getMedia(deps, workspaceId, mediaId);
  return (await versionRows(deps, item)).map((r, i) => toPublicVersion(item, r, i));
}

/**
 * Makes an earlier version current again (revert): players, the editor and new campaigns use it; no
 * version is deleted, so the newer edits stay restorable. Bumps `version` (cache keys) and queues a
 * `studio.derive-previews` job for the poster, GIF and peaks. Returns the updated item.
 * @throws AppError NOT_FOUND 'Version not found' for an unknown version; CONFLICT while processing or rendering.
 */
export async function restoreMediaVersion(
  deps: StudioDeps,
  workspaceId: string,
  mediaId: number,
  versionId: MediaVersionId,
): Promise<MediaItem> {
  const item = await readyForEdit(deps, workspaceId, mediaId);
  const row = (await versionRows(deps, item)).find((r) => r.id === versionId);
  if (!row) throw new AppError("NOT_FOUND", "Version not found");
  if (row.key === item.currentKey) return item;
  const updated = await q.updateMediaItem(
    deps.db,
    item.id,
    {
      currentKey: row.key,
      sizeBytes: row.size,
      durationSeconds: row.duration ?? item.durationSeconds,
      updatedAt: new Date(),
    },
    { workspaceId, bumpVersion: true },
  );
  await deps.jobs.send(derivePreviewsJob, { mediaId: item.id });
  return (await q.selectMediaItem(deps.db, item.id)) ?? updated ?? item;
}

/**
 * The storage key of one version of `item` (for serving its file).
 * @throws AppError NOT_FOUND 'Version not found'.
 */
export async function mediaVersionKey(
  deps: Pick<AppContext, "db">,
  item: MediaItem,
  versionId: MediaVersionId,
): Promise<string> {
  const row = (await versionRows(deps, item)).find((r) => r.id === versionId);
  if (!row) throw new AppError("NOT_FOUND", "Version not found");
  return row.key;
}

/**
 * Opens a stored file of `item` for HTTP serving with an optional byte range (RFC 9110 Range).
 * @throws AppError NOT_FOUND when the file does not exist (yet).
 */
export async function openMediaFile(
  deps: Pick<AppContext, "providers" | "db">,
  item: MediaItem,
  kind: MediaFileKind,
  rangeHeader?: string,
  versionId?: MediaVersionId,
) {
  const key =
    versionId !== undefined
      ? await mediaVersionKey(deps, item, versionId)
      : kind === "poster"
        ? item.posterKey
        : kind === "gif"
          ? item.gifKey
          : kind === "original"
            ? await originalKey(deps, item)
            : item.currentKey;
  if (!key) throw new AppError("NOT_FOUND", "File not ready yet");
  const stat = await deps.providers.storage.stat(key);
  if (!stat) throw new AppError("NOT_FOUND", "File not found");
  const contentType = contentTypeOf(key, item);
  const range = parseRange(rangeHeader, stat.size);
  if (range === "invalid") return { status: 416 as const, size: stat.size, contentType };
  const stream = await deps.providers.storage.get(key, range ?? undefined);
  return { status: range ? (206 as const) : (200 as const), stream, size: stat.size, range, contentType };
}

async function originalKey(deps: Pick<AppContext, "db">, item: MediaItem): Promise<string | null> {
  return q.selectOriginalKey(deps.db, item.id);
}

function contentTypeOf(key: string, item: MediaItem): string {
  if (key.endsWith(".mp4")) return "video/mp4";
  if (key.endsWith(".mp3")) return "audio/mpeg";
  if (key.endsWith(".jpg")) return "image/jpeg";
  if (key.endsWith(".gif")) return "image/gif";
  if (key.endsWith(".wav")) return "audio/wav";
  if (key.endsWith(".mov")) return "video/quicktime";
  return item.mimeType;
}

/**
 * Parses a single `bytes=` range (RFC 9110 section 14.1.2). Multi-range requests are served whole.
 * Returns null for no/ignored range, "invalid" when unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | "invalid" {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  let start: number;
  let end: number;
  if (m[1] === "" && m[2] === "") return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "invalid";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return "invalid";
  return { start, end };
}

const MIN_SEGMENT_SECONDS = 0.05;

function clampSelection(item: MediaItem, startTime: number, endTime: number) {
  const duration = item.durationSeconds ?? 0;
  const end = Math.min(endTime, duration);
  if (startTime >= duration) throw new AppError("BAD_REQUEST", "Start time is past the end of the media");
  if (end - startTime < MIN_SEGMENT_SECONDS)
    throw new AppError("BAD_REQUEST", "End time must be after start time");
  return { start: startTime, end };
}

/**
 * Refuses an edit whose output would last longer than MAX_MEDIA_SECONDS (2 hours): the kept segments'
 * total length (seconds) divided by the speed. A slow speed over a long selection would otherwise
 * render hours of video (CPU, time and disk).
 * @throws AppError BAD_REQUEST with the length it would have.
 */
function assertRenderLength(segments: { start: number; end: number }[], speed: number): void {
  const seconds = segments.reduce((sum, s) => sum + (s.end - s.start), 0) / speed;
  if (seconds > MAX_MEDIA_SECONDS)
    throw new AppError(
      "BAD_REQUEST",
      `This edit would be ${formatLength(seconds)} long; an edit can be at most ${formatLength(MAX_MEDIA_SECONDS)}. Select a shorter part or a faster speed.`,
    );
}

async function readyForEdit(deps: Pick<AppContext, "db">, workspaceId: string, mediaId: number) {
  const item = await getMedia(deps, workspaceId, mediaId);
  if (item.processingStatus === "processing")
    throw new AppError("CONFLICT", "This media is still processing. Please try again in a moment.");
  if (item.processingStatus === "failed" || !item.currentKey || !item.durationSeconds)
    throw new AppError(
      "UNPROCESSABLE",
      `This media could not be processed${item.processingError ? `: ${item.processingError}` : ""}`,
    );
  if (await q.selectActiveEditSince(deps.db, item.id, staleEditCutoff())) throw editBusy();
  return item;
}

/** An edit queued or started this long ago is stale (its job or worker died) and blocks nothing: 1 hour. */
const STALE_EDIT_MS = 60 * 60 * 1000;
const staleEditCutoff = () => new Date(Date.now() - STALE_EDIT_MS);
const editBusy = () =>
  new AppError("CONFLICT", "An edit of this media is still rendering. Please wait for it to finish.");

async function queueEdit(
  deps: StudioDeps,
  item: MediaItem,
  mode: "trim" | "advanced",
  edl: EditDecisionList,
  saveAsDraft: boolean,
): Promise<MediaEdit> {
  // one edit of an item at a time, queued ones included: checked again under the item's row lock, so
  // a burst of requests cannot queue renders (CPU, and a stored file each) past the first
  const edit = await q.insertMediaEditIfIdle(
    deps.db,
    {
      workspaceId: item.workspaceId,
      mediaId: item.id,
      mode,
      edl,
      inputKey: item.currentKey as string,
      saveAsDraft,
    },
    staleEditCutoff(),
  );
  if (!edit) throw editBusy();
  try {
    await deps.jobs.send(renderEditJob, { editId: edit.id });
  } catch (error) {
    // never queued: it must not hold the item for an hour
    await q.updateMediaEdit(
      deps.db,
      edit.id,
      { status: "failed", error: "the render could not be queued", finishedAt: new Date() },
      "queued",
    );
    throw error;
  }
  return (await q.selectMediaEdit(deps.db, edit.id)) ?? edit;
}

/**
 * Simple editor (spec sections 3, 5, 7): trim to startTime..endTime (seconds, end clamped to the
 * duration), volume 0-2, speed 0.5/1/2, fades 0-5 s. `status: "draft"` keeps the item a draft,
 * otherwise it is published. Queues the render job; returns the edit row (status queued, or done
 * when jobs run inline).
 * @throws AppError BAD_REQUEST for bad times or an output longer than 2 hours (assertRenderLength),
 *   NOT_FOUND, CONFLICT while processing or rendering.
 */
export async function applyTrim(deps: StudioDeps, workspaceId: string, raw: unknown): Promise<MediaEdit> {
  const input = parseInput(trimEditSchema, raw);
  const item = await readyForEdit(deps, workspaceId, input.mediaId);
  const sel = clampSelection(item, input.startTime, input.endTime);
  assertRenderLength([sel], input.speed);
  const edl: EditDecisionList = {
    segments: [sel],
    speed: input.speed,
    volume: input.volume,
    brightness: 100,
    contrast: 100,
    saturation: 100,
    blur: 0,
    fadeIn: input.fadeIn,
    fadeOut: input.fadeOut,
  };
  return queueEdit(deps, item, "trim", edl, input.status === "draft");
}

/**
 * Whether an advanced edit's picture settings leave the defaults (brightness, contrast or saturation
 * other than 100 %, blur above 0 px): colour grading and effects, which need the plan's premium
 * editor (billing.plans `premiumEditor`; spec section 6, editor tiers). Fades are not grading.
 */
export function isGraded(effects: {
  brightness: number;
  contrast: number;
  saturation: number;
  blur: number;
}): boolean {
  return (
    effects.brightness !== 100 || effects.contrast !== 100 || effects.saturation !== 100 || effects.blur !== 0
  );
}

/**
 * Advanced editor (spec sections 3, 5, 7): the selection startTime..endTime split by `cuts` into
 * segments (those in `removedSegments` dropped), volume, speed, picture effects, fades.
 * Publishes the item when rendered. Returns the queued edit.
 * @throws AppError BAD_REQUEST when every segment is dropped, times are bad or the output would last
 *   longer than 2 hours (assertRenderLength); PAYMENT_REQUIRED for
 *   colour grading or blur (isGraded) on a plan without the premium editor.
 */
export async function applyAdvanced(deps: StudioDeps, workspaceId: string, raw: unknown): Promise<MediaEdit> {
  const input = parseInput(advancedEditSchema, raw);
  // colour grading and blur are the premium editor's (spec section 6, editor tiers: free users can trim, change
  // volume and speed and fade); checked here, not only by the screens that lock them
  if (isGraded(input.effects)) await assertWorkspaceFeature(deps, workspaceId, "premiumEditor");
  const item = await readyForEdit(deps, workspaceId, input.mediaId);
  const sel = clampSelection(item, input.startTime, input.endTime);
  const { kept } = segmentsFromCuts(sel.start, sel.end, input.cuts, input.removedSegments);
  const segments = kept.filter((s) => s.end - s.start >= MIN_SEGMENT_SECONDS);
  if (!segments.length) throw new AppError("BAD_REQUEST", "Keep at least one segment");
  assertRenderLength(segments, input.speed);
  const edl: EditDecisionList = {
    segments,
    speed: input.speed,
    volume: input.volume,
    brightness: input.effects.brightness,
    contrast: input.effects.contrast,
    saturation: input.effects.saturation,
    blur: input.effects.blur,
    fadeIn: input.effects.fadeIn,
    fadeOut: input.effects.fadeOut,
  };
  return queueEdit(deps, item, "advanced", edl, false);
}

/** The edit as the API shows it: render status and progress (0-100 %). */
export function toPublicEdit(e: MediaEdit) {
  return {
    id: e.id,
    media_id: e.mediaId,
    mode: e.mode,
    status: e.status,
    progress: Math.round(e.progress * 1000) / 10,
    error: e.error,
    output_duration: e.outputDurationSeconds,
    created_at: e.createdAt.toISOString(),
    finished_at: e.finishedAt?.toISOString() ?? null,
  };
}

/**
 * One edit of the user (render progress polling).
 * @throws AppError NOT_FOUND for an unknown id or another user's edit.
 */
export async function getEdit(
  deps: Pick<AppContext, "db">,
  workspaceId: string,
  editId: number,
): Promise<MediaEdit> {
  const row = await q.selectMediaEditOfWorkspace(deps.db, workspaceId, editId);
  if (!row) throw new AppError("NOT_FOUND", "Edit not found");
  return row;
}
