import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

type Studio = inferRouterOutputs<AppRouter>["studio"];

/** A media item as `studio.list` returns it (spec section 3: Media item). */
export type Media = Studio["list"][number];

/** A render job's state (`studio.edit`): progress in percent (0-100). */
export type EditState = Studio["edit"];

/** One version of a media item (`studio.versions`). */
export type MediaVersion = Studio["versions"][number];

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
