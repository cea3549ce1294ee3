import { eq } from "drizzle-orm";
import { mediaEdits, mediaItems } from "../../db/schema";
import { type AnyJobDefinition, defineHandler } from "../../jobs/define";
import {
  derivePreviewsJob,
  PROCESS_RETRIES,
  processMediaJob,
  RENDER_RETRIES,
  renderEditJob,
} from "./studio.jobs";
import { derivePreviews, processMedia, renderEdit } from "./studio.pipeline";

const LAST_ATTEMPT_MESSAGE = "an internal error stopped processing; please try again";

/**
 * Probes a new media item and makes its playback rendition, poster, GIF and peaks. ffmpeg failures
 * end as `failed` at once; other errors are retried, and on the last attempt the item is marked
 * failed so it never stays "processing" forever.
 */
const processMediaHandler = defineHandler(processMediaJob, {
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
});

/** Refreshes poster, GIF and peaks after a render. */
const derivePreviewsHandler = defineHandler(derivePreviewsJob, {
  handler: async (data, deps) => derivePreviews(deps, data.mediaId),
});

/**
 * Renders an edit decision list with one ffmpeg filter graph, then queues the preview refresh.
 * On the last failed attempt the edit is marked failed (the editor's progress poll then ends).
 */
const renderEditHandler = defineHandler(renderEditJob, {
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
});

/** The studio feature's job handlers (worker registry). */
export const studioHandlers: AnyJobDefinition[] = [
  processMediaHandler,
  renderEditHandler,
  derivePreviewsHandler,
];
