import { type AnyJobDefinition, defineHandler } from "../../jobs/define";
import {
  derivePreviewsJob,
  PROCESS_RETRIES,
  processMediaJob,
  RENDER_RETRIES,
  renderEditJob,
} from "./studio.jobs";
import { derivePreviews, processMedia, renderEdit } from "./studio.pipeline";
import * as q from "./studio.queries";

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
        await q.updateMediaItem(deps.db, data.mediaId, {
          processingStatus: "failed",
          processingError: LAST_ATTEMPT_MESSAGE,
          updatedAt: new Date(),
        });
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
        await q.updateMediaEdit(deps.db, data.editId, {
          status: "failed",
          error: LAST_ATTEMPT_MESSAGE,
          finishedAt: new Date(),
        });
      throw error;
    }
    if (ok) {
      const edit = await q.selectMediaEdit(deps.db, data.editId);
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
