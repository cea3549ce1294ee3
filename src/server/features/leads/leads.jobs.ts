import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/**
 * Website enrichment of one search's results (issue 13): visits each result's website (robots.txt
 * honoured, at most 3 pages, 5 s and 1 MiB per page, SSRF-guarded) for public emails, social profiles
 * and a contact form, applies the filters that needed them, then emits `lead_search.completed`.
 * The work is in leads.handlers.ts. Up to 500 sites at 5 s x 4 pages each, 6 at a time: expiry 1 h.
 */
export const enrichSearchJob = defineJob({
  name: "leads.enrich-search",
  schema: z.object({ searchId: z.uuid(), workspaceId: z.uuid() }),
  options: {
    retryLimit: 2,
    retryDelay: 30,
    expireInSeconds: 3600,
    heartbeatSeconds: 30,
    localConcurrency: 1,
  },
});

/**
 * Removes Google content other than place ids from a Google search's stored results once the period
 * Google's terms allow has passed (GOOGLE_PLACES_RETENTION_DAYS after the search finished); sent with
 * that `startAfter` when the search completes, and it also sweeps any other expired search (a lost job).
 * Retries back off from 5 minutes doubling, each wait capped at 1 hour (without the cap startBoss's
 * 300 s default made every wait exactly 5 minutes): 5 retries over 2.25 to 3.2 hours.
 */
export const purgeGoogleContentJob = defineJob({
  name: "leads.purge-google-content",
  schema: z.object({ searchId: z.uuid() }),
  options: { retryLimit: 5, retryDelay: 300, retryBackoff: true, retryDelayMax: 3600, expireInSeconds: 600 },
});
