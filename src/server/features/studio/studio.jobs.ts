import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/** Job contracts of the studio feature (what callers enqueue); the work is in studio.handlers.ts. */

/** Retries of media processing; the last failed attempt marks the item failed. */
export const PROCESS_RETRIES = 2;
/** How long pg-boss lets one processing attempt run before it retries the job: 30 minutes, in seconds. */
export const PROCESS_EXPIRE_SECONDS = 1800;
/** Retries of an edit render; the last failed attempt marks the edit failed. */
export const RENDER_RETRIES = 1;
/** How long pg-boss lets one render attempt run before it retries the job elsewhere: 1 hour, in seconds. */
export const RENDER_EXPIRE_SECONDS = 3600;

/** Probes a new media item and makes its playback rendition, poster, GIF and peaks. */
export const processMediaJob = defineJob({
  name: "studio.process-media",
  schema: z.object({ mediaId: z.number().int().positive() }),
  options: { retryLimit: PROCESS_RETRIES, expireInSeconds: PROCESS_EXPIRE_SECONDS, localConcurrency: 2 },
});

/** Refreshes poster, GIF and peaks after a render. */
export const derivePreviewsJob = defineJob({
  name: "studio.derive-previews",
  schema: z.object({ mediaId: z.number().int().positive() }),
  options: { retryLimit: 2, expireInSeconds: 900, localConcurrency: 2 },
});

/** Renders an edit decision list with one ffmpeg filter graph, then queues the preview refresh. */
export const renderEditJob = defineJob({
  name: "studio.render-edit",
  schema: z.object({ editId: z.number().int().positive() }),
  options: { retryLimit: RENDER_RETRIES, expireInSeconds: RENDER_EXPIRE_SECONDS, localConcurrency: 2 },
});
