import { eq } from "drizzle-orm";
import { z } from "zod";
import { mediaEdits } from "../../db/schema";
import { type AnyJobDefinition, defineJob } from "../../jobs/define";
import { derivePreviews, processMedia, renderEdit } from "./studio.pipeline";

/** Probes a new media item and makes its playback rendition, poster, GIF and peaks. */
export const processMediaJob = defineJob({
  name: "studio.process-media",
  schema: z.object({ mediaId: z.number().int().positive() }),
  handler: async (data, deps) => processMedia(deps, data.mediaId),
  options: { retryLimit: 2, expireInSeconds: 1800, localConcurrency: 2 },
});

/** Refreshes poster, GIF and peaks after a render. */
export const derivePreviewsJob = defineJob({
  name: "studio.derive-previews",
  schema: z.object({ mediaId: z.number().int().positive() }),
  handler: async (data, deps) => derivePreviews(deps, data.mediaId),
  options: { retryLimit: 2, expireInSeconds: 900, localConcurrency: 2 },
});

/** Renders an edit decision list with one ffmpeg filter graph, then queues the preview refresh. */
export const renderEditJob = defineJob({
  name: "studio.render-edit",
  schema: z.object({ editId: z.number().int().positive() }),
  handler: async (data, deps) => {
    const ok = await renderEdit(deps, data.editId);
    if (ok) {
      const [edit] = await deps.db
        .select({ mediaId: mediaEdits.mediaId })
        .from(mediaEdits)
        .where(eq(mediaEdits.id, data.editId));
      if (edit) await deps.jobs.send(derivePreviewsJob, { mediaId: edit.mediaId });
    }
  },
  options: { retryLimit: 1, expireInSeconds: 3600, localConcurrency: 2 },
});

/** pg-boss jobs of the studio feature. */
export const studioJobs: AnyJobDefinition[] = [processMediaJob, renderEditJob, derivePreviewsJob];
