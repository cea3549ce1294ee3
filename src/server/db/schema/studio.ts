import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "./auth";
import { workspaces } from "./workspaces";

/** Media kinds (spec section 5: a type starting with video is video, otherwise audio). */
export const MEDIA_TYPES = ["video", "audio"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** Processing states of a media item's pipeline (probe, renditions, poster, GIF, peaks). */
export const PROCESSING_STATUSES = ["processing", "ready", "failed"] as const;
export type ProcessingStatus = (typeof PROCESSING_STATUSES)[number];

/** Where a media item came from. */
export type MediaSource = "upload" | "recording" | "avatar" | "edit";

/** Derived files of a media item. `playback` is the H.264/AAC MP4 (video) or MP3 (audio) that players use. */
export type RenditionKind = "original" | "playback" | "poster" | "gif" | "edit";

/** What ffprobe said about the original (seconds, pixels). */
export interface MediaProbe {
  formatName?: string;
  durationSeconds?: number;
  bitRate?: number;
  videoCodec?: string | null;
  audioCodec?: string | null;
  width?: number | null;
  height?: number | null;
  frameRate?: number | null;
  sampleRate?: number | null;
  channels?: number | null;
}

/** Waveform peaks for wavesurfer.js: `channels[c][i]` in [-1, 1] (max abs per bucket, sign kept). */
export interface WaveformPeaks {
  durationSeconds: number;
  channels: number[][];
}

/**
 * A media item (spec section 3: id number, name, type video|audio, url, size bytes, duration seconds,
 * created_at, status with "draft" seen). Scoped by user_id. `isDraft` is the spec's draft status; the
 * pipeline state is `processingStatus`.
 */
export const mediaItems = pgTable(
  "media_items",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** who did it (the acting user); null once that user is deleted */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    name: text().notNull(),
    type: text().$type<MediaType>().notNull(),
    source: text().$type<MediaSource>().notNull().default("upload"),
    isDraft: boolean().notNull().default(false),
    processingStatus: text().$type<ProcessingStatus>().notNull().default("processing"),
    /** ffmpeg's reason when processing failed */
    processingError: text(),
    /** MIME decided by magic bytes (file-type) */
    mimeType: text().notNull(),
    /** size in bytes of what the player plays (the original until a playback rendition exists) */
    sizeBytes: bigint({ mode: "number" }).notNull(),
    originalSizeBytes: bigint({ mode: "number" }).notNull(),
    durationSeconds: doublePrecision(),
    width: integer(),
    height: integer(),
    probe: jsonb().$type<MediaProbe>(),
    peaks: jsonb().$type<WaveformPeaks>(),
    /** storage key of the file players use (the latest edit, else the playback rendition, else the original) */
    currentKey: text(),
    posterKey: text(),
    gifKey: text(),
    /** bumps on every finished render; part of cache keys */
    version: integer().notNull().default(1),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  // the library's order, newest first by (created_at, id): keyset pages of GET /api/v1/media (0034)
  (t) => [index("media_items_ws_created_id_idx").on(t.workspaceId, t.createdAt, t.id)],
);

/** Every stored file of a media item (original, renditions, renders); deleted with the item. */
export const mediaRenditions = pgTable(
  "media_renditions",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    mediaId: bigint({ mode: "number" })
      .notNull()
      .references(() => mediaItems.id, { onDelete: "cascade" }),
    kind: text().$type<RenditionKind>().notNull(),
    storageKey: text().notNull(),
    mimeType: text().notNull(),
    sizeBytes: bigint({ mode: "number" }).notNull(),
    durationSeconds: doublePrecision(),
    /** the edit that produced it (kind "edit") */
    editId: bigint({ mode: "number" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("media_renditions_media_idx").on(t.mediaId),
    uniqueIndex("media_renditions_key_uq").on(t.storageKey),
  ],
);

/** Render states of an edit decision list. */
export const RENDER_STATUSES = ["queued", "rendering", "done", "failed"] as const;
export type RenderStatus = (typeof RENDER_STATUSES)[number];

/**
 * An edit decision list (times in seconds of the input file): kept segments in order, playback speed,
 * volume factor (0-2), picture effects, fades. Rendered by one ffmpeg filter graph.
 */
export interface EditDecisionList {
  segments: { start: number; end: number }[];
  speed: number;
  volume: number;
  brightness: number;
  contrast: number;
  saturation: number;
  blur: number;
  fadeIn: number;
  fadeOut: number;
}

/** One edit of a media item and its render job (status, progress 0-1, ffmpeg's reason on failure). */
export const mediaEdits = pgTable(
  "media_edits",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** who did it (the acting user); null once that user is deleted */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    mediaId: bigint({ mode: "number" })
      .notNull()
      .references(() => mediaItems.id, { onDelete: "cascade" }),
    mode: text().$type<"trim" | "advanced">().notNull(),
    edl: jsonb().$type<EditDecisionList>().notNull(),
    /** storage key the render read from */
    inputKey: text().notNull(),
    /** keep the item a draft (simple editor "Save Draft") or publish it (export / advanced save) */
    saveAsDraft: boolean().notNull().default(false),
    status: text().$type<RenderStatus>().notNull().default("queued"),
    progress: real().notNull().default(0),
    error: text(),
    outputKey: text(),
    outputDurationSeconds: doublePrecision(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp({ withTimezone: true }),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index("media_edits_media_idx").on(t.mediaId, t.createdAt),
    index("media_edits_user_idx").on(t.workspaceId),
  ],
);

export type MediaItem = typeof mediaItems.$inferSelect;
export type NewMediaItem = typeof mediaItems.$inferInsert;
export type MediaRendition = typeof mediaRenditions.$inferSelect;
export type MediaEdit = typeof mediaEdits.$inferSelect;
