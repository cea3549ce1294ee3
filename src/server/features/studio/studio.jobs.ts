import { eq } from "drizzle-orm";
import { z } from "zod";
import { mediaEdits, mediaItems } from "../../db/schema";
import { type AnyJobDefinition, defineJob } from "../../jobs/define";
import { renderRecipientAvatarJob } from "./studio.avatar-campaigns";
import { derivePreviews, processMedia, renderEdit } from "./studio.pipeline";

const PROCESS_RETRIES = 2;
const RENDER_RETRIES = 1;
const LAST_ATTEMPT_MESSAGE = "an internal error stopped processing; please try again";

/**
 * Probes a new media item and makes its playback rendition, poster, GIF and peaks. ffmpeg failures
 * end as `failed` at once; other errors are retried, and on the last attempt the item is marked
 * failed so it never stays "processing" forever.
 */
export const processMediaJob = defineJob({
  name: "studio.process-media",
  schema: z.object({ mediaId: z.number().int().positive() }),
  handler: async (data, deps, meta) => {
    try {
      await processMedia(deps, data.mediaId);
    } catch (error) {
      if (meta.retryCount >= PROCESS_RETRIES)
        await deps.db
          .update(mediaItems)
          .set({ processingStatus: "failed", processingError: LAST_ATTEMPT_MESSAGE, updatedAt: new Date() })
          .where(eq(mediaItems.id, data.mediaId));
      throw error;
    }
  },
  options: { retryLimit: PROCESS_RETRIES, expireInSeconds: 1800, localConcurrency: 2 },
});

/** Refreshes poster, GIF and peaks after a render. */
export const derivePreviewsJob = defineJob({
  name: "studio.derive-previews",
  schema: z.object({ mediaId: z.number().int().positive() }),
  handler: async (data, deps) => derivePreviews(deps, data.mediaId),
  options: { retryLimit: 2, expireInSeconds: 900, localConcurrency: 2 },
});

/**
 * Renders an edit decision list with one ffmpeg filter graph, then queues the preview refresh.
 * On the last failed attempt the edit is marked failed (the editor's progress poll then ends).
 */
export const renderEditJob = defineJob({
  name: "studio.render-edit",
  schema: z.object({ editId: z.number().int().positive() }),
  handler: async (data, deps, meta) => {
    let ok: boolean;
    try {
      ok = await renderEdit(deps, data.editId);
    } catch (error) {
      if (meta.retryCount >= RENDER_RETRIES)
        await deps.db
          .update(mediaEdits)
          .set({ status: "failed", error: LAST_ATTEMPT_MESSAGE, finishedAt: new Date() })
          .where(eq(mediaEdits.id, data.editId));
      throw error;
    }
    if (ok) {
      const [edit] = await deps.db
        .select({ mediaId: mediaEdits.mediaId })
        .from(mediaEdits)
        .where(eq(mediaEdits.id, data.editId));
      if (edit) await deps.jobs.send(derivePreviewsJob, { mediaId: edit.mediaId });
    }
  },
  options: { retryLimit: RENDER_RETRIES, expireInSeconds: 3600, localConcurrency: 2 },
});

/** pg-boss jobs of the studio feature. */
export const studioJobs: AnyJobDefinition[] = [
  processMediaJob,
  renderEditJob,
  derivePreviewsJob,
  renderRecipientAvatarJob,
];
