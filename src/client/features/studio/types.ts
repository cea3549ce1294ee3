import type { PublicMedia } from "@/server/features/studio/studio.service";

/** A media item as `/api/media/list` returns it (spec section 3: Media item). */
export type Media = PublicMedia;

/** A render job's state (`/api/media/edits/{id}`): progress in percent (0-100). */
export interface EditState {
  id: number;
  media_id: number;
  mode: "trim" | "advanced";
  status: "queued" | "rendering" | "done" | "failed";
  progress: number;
  error: string | null;
  output_duration: number | null;
}

/** Waveform peaks (`/api/media/{id}`): channels of values in [-1, 1]. */
export interface Peaks {
  durationSeconds: number;
  channels: number[][];
}

/** The tabs of /studio (spec section 2) plus the library view. */
export const STUDIO_TABS = [
  "record-video",
  "record-audio",
  "upload",
  "ai-avatar",
  "editor",
  "library",
] as const;
export type StudioTab = (typeof STUDIO_TABS)[number];
