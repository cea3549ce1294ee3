import {
  bigint,
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "./auth";
import { mediaItems } from "./studio";
import { workspaces } from "./workspaces";

/** Avatar providers (spec section 9: d-id standard quality, heygen premium; `local` is the offline preview). */
export const AVATAR_PROVIDERS = ["local", "did", "heygen"] as const;
export type AvatarProviderName = (typeof AVATAR_PROVIDERS)[number];

/**
 * Pitchwise's own states of an avatar video (spec section 4 "Avatar video"): `created` (accepted, the
 * vendor has not started), `processing` (vendor rendering, or Pitchwise downloading/processing the
 * result), `completed` (a Pitchwise URL exists), `error` (vendor failure, rejection or time limit).
 */
export const AVATAR_STATUSES = ["created", "processing", "completed", "error"] as const;
export type AvatarVideoStatus = (typeof AVATAR_STATUSES)[number];

/**
 * One avatar video job: the script sent to a provider, the vendor's id and last status, and the
 * media item it became once downloaded into Pitchwise storage. Scoped by user_id.
 */
export const avatarVideos = pgTable(
  "avatar_videos",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** the owner; null only for a landing-page demo video (then `demoRequestId` and `publicToken` are set) */
    workspaceId: uuid().references(() => workspaces.id, { onDelete: "cascade" }),
    /** who did it (the acting user); null once that user is deleted */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    provider: text().$type<AvatarProviderName>().notNull(),
    /** the vendor's id (D-ID talk id `tlk_...`, HeyGen video_id); for `local` the row id */
    vendorVideoId: text(),
    status: text().$type<AvatarVideoStatus>().notNull().default("created"),
    /** the vendor's own last status word (D-ID created/started/done/error/rejected, HeyGen pending/...) */
    vendorStatus: text(),
    script: text().notNull(),
    /** name of the media item in the library */
    title: text().notNull(),
    /** reason shown to the user when status is error */
    error: text(),
    /** status polls made so far */
    attempts: integer().notNull().default(0),
    /** consecutive transient failures (network, 429, 5xx): drives the poll backoff */
    transientFailures: integer().notNull().default(0),
    /** the vendor's result URL as last seen (time-limited: HeyGen's expire after 7 days) */
    vendorVideoUrl: text(),
    /** the library item once the result is stored in Pitchwise */
    mediaId: bigint({ mode: "number" }).references(() => mediaItems.id, { onDelete: "set null" }),
    /** seconds of the finished video */
    durationSeconds: doublePrecision(),
    /** polling stops with an error after this moment */
    deadlineAt: timestamp({ withTimezone: true }).notNull(),
    nextPollAt: timestamp({ withTimezone: true }),
    /** the landing-page demo request this video answers (one video per request) */
    demoRequestId: bigint({ mode: "number" }),
    /** unguessable token of the public demo video page `/a/{token}` */
    publicToken: text(),
    /** storage key of a demo video's file (library videos live in media items instead) */
    storageKey: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index("avatar_videos_user_created_idx").on(t.workspaceId, t.createdAt),
    uniqueIndex("avatar_videos_vendor_uq").on(t.provider, t.vendorVideoId),
    uniqueIndex("avatar_videos_demo_request_uq").on(t.demoRequestId),
    uniqueIndex("avatar_videos_public_token_uq").on(t.publicToken),
  ],
);

export type AvatarVideo = typeof avatarVideos.$inferSelect;
