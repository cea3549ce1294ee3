import { defineHandler } from "../../jobs/define";
import { enrichSearchJob, purgeGoogleContentJob } from "./leads.jobs";
import { enrichSearch, failEnrichment, purgeExpiredGoogleContent } from "./leads.service";

const enrichSearchHandler = defineHandler(enrichSearchJob, {
  handler: async (data, deps, meta) => {
    try {
      await enrichSearch(deps, data.searchId, data.workspaceId);
    } catch (e) {
      // the last attempt: the screen and the API show the enrichment failed
      if (meta.retryCount >= (enrichSearchJob.options?.retryLimit ?? 0))
        await failEnrichment(deps, data.searchId, data.workspaceId);
      throw e;
    }
  },
});

const purgeGoogleContentHandler = defineHandler(purgeGoogleContentJob, {
  handler: async (data, deps) => {
    await purgeExpiredGoogleContent(deps, data.searchId);
  },
});

/** The leads feature's job handlers (registered by src/server/jobs/registry.ts). */
export const leadsHandlers = [enrichSearchHandler, purgeGoogleContentHandler];
