import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/**
 * Job contracts of the crm feature (what callers enqueue); the work is in crm.handlers.ts.
 */

/**
 * Geocodes a workspace's contacts that lack coordinates (all of them, or `contactIds`); see
 * geocodePendingContacts in crm.handlers.ts.
 */
export const geocodeContactsJob = defineJob({
  name: "crm.geocode-contacts",
  schema: z.object({
    workspaceId: z.string().uuid(),
    contactIds: z.array(z.number().int().positive()).max(10_000).optional(),
  }),
  // a saved address is expected on the map a moment later: fetched within 0.5 s
  options: { retryLimit: 2, retryDelay: 5, pollingIntervalSeconds: 0.5 },
});

/** Where an upload is spooled on the web machine while it is checked: `<DATA_DIR>/imports/<id>.csv`. */
export function importFilePath(dataDir: string, importId: string) {
  return `${dataDir}/imports/${importId}.csv`;
}

/** A spooled upload not written to for this long is an orphan (a finished upload moves to storage within seconds). */
export const IMPORT_SPOOL_ORPHAN_MS = 10 * 60 * 1000;

/**
 * Removes orphaned uploads from the spool folder `<DATA_DIR>/imports`: files not modified for
 * `olderThanMs` (default IMPORT_SPOOL_ORPHAN_MS), left by a process that died mid-upload. An upload
 * in progress keeps its mtime fresh, so another process sharing DATA_DIR is never disturbed.
 * Returns how many files were removed (0 when the folder does not exist).
 */
export async function sweepImportSpool(
  dataDir: string,
  olderThanMs = IMPORT_SPOOL_ORPHAN_MS,
): Promise<number> {
  const dir = path.join(dataDir, "imports");
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return 0;
    throw e;
  }
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const st = await fs.promises.stat(file).catch(() => null);
    if (!st?.isFile() || st.mtimeMs > cutoff) continue;
    await fs.promises.rm(file, { force: true });
    removed++;
  }
  return removed;
}

/** Storage key of an uploaded import file (storage provider: local disk or S3, so any worker can read it). */
export function importStorageKey(importId: string) {
  return `imports/${importId}.csv`;
}

/**
 * Runs a streaming CSV import of a `contact_imports` row (the file at `importStorageKey(importId)`);
 * a dead worker's import is run again (heartbeat 30 s), idempotently.
 */
export const importContactsJob = defineJob({
  name: "crm.import-contacts",
  schema: z.object({ importId: z.string().uuid() }),
  // the uploader watches its progress bar: fetched within 0.5 s
  options: {
    retryLimit: 2,
    retryDelay: 1,
    heartbeatSeconds: 30,
    expireInSeconds: 3600,
    pollingIntervalSeconds: 0.5,
  },
});

/** Puts an import's contacts into the search indexes (dictionary and trigram index). */
export const indexImportSearchJob = defineJob({
  name: "crm.index-import-search",
  schema: z.object({ workspaceId: z.string().uuid(), importId: z.string().uuid() }),
});

/**
 * Refreshes the planner's statistics of the contacts table after rows were written in bulk (JSON
 * imports, the v1 bulk upsert, campaign CSV recipients); see refreshContactStatsSoon in
 * crm.contacts.ts. No payload: ANALYZE is table-wide. A `short` queue: one waiting job per key.
 */
export const analyzeContactsJob = defineJob({
  name: "crm.analyze-contacts",
  schema: z.object({}),
  options: { retryLimit: 1, retryDelay: 5, policy: "short" },
});
