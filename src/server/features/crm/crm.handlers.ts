import os from "node:os";
import { and, eq, sql } from "drizzle-orm";
import { retryOnRace } from "../../db/retry";
import { contactImports } from "../../db/schema";
import { type AnyJobDefinition, defineHandler, type JobDeps, PermanentJobError } from "../../jobs/define";
import { AppError } from "../../lib/errors";
import { StorageNotFoundError } from "../../providers/storage";
import { phoneCountryOf } from "../workspaces/workspaces.service";
import { importEventListener } from "./crm.contact-events";
import type { ColumnMapping, ImportField } from "./crm.csv";
import { ContactImporter, type ImportResult, indexImportSearch, streamCsvFile } from "./crm.import";
import {
  analyzeContactsJob,
  geocodeContactsJob,
  importContactsJob,
  importStorageKey,
  indexImportSearchJob,
} from "./crm.jobs";
import { importContactLimit, refreshContactSearchState, settleImportSearch } from "./crm.service";

const GEO_BATCH = 5000;

/**
 * Geocodes a user's contacts that have a postal code or city + state but no coordinates, with the
 * geocoder provider (offline `zipcodes` by default), 5,000 per statement. Misses are marked
 * (`geocoded_at` set, coordinates null) so they are not retried until the address changes.
 */
export async function geocodePendingContacts(
  deps: Pick<JobDeps, "db" | "providers">,
  workspaceId: string,
  contactIds?: number[],
) {
  let total = 0;
  for (;;) {
    const idFilter = contactIds?.length
      ? sql`and id = any(${`{${contactIds.map(Number).join(",")}}`}::bigint[])`
      : sql``;
    const rows = (await deps.db.execute(sql`
      select id, city, state, postal_code, country from contacts
      where workspace_id = ${workspaceId} and latitude is null and geocoded_at is null
        and (postal_code is not null or (city is not null and state is not null)) ${idFilter}
      order by id limit ${GEO_BATCH}`)) as unknown as {
      id: string | number;
      city: string | null;
      state: string | null;
      postal_code: string | null;
      country: string | null;
    }[];
    if (rows.length === 0) break;
    const results = await deps.providers.geocoder.geocodeMany(
      rows.map((r) => ({ city: r.city, state: r.state, postalCode: r.postal_code, country: r.country })),
    );
    const values = rows.map((r, i) => ({
      id: Number(r.id),
      lat: results[i]?.latitude ?? null,
      lng: results[i]?.longitude ?? null,
    }));
    await deps.db.execute(sql`
      update contacts c set latitude = v.lat, longitude = v.lng, geocoded_at = now(),
        -- a new row version either way: take an import's contact into the trigram index now
        -- rather than in a second version from its search catch-up
        search_indexed = true
      from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id bigint, lat double precision, lng double precision)
      where c.id = v.id and c.workspace_id = ${workspaceId}`);
    total += rows.length;
    if (rows.length < GEO_BATCH) break;
  }
  return total;
}

const geocodeContactsHandler = defineHandler(geocodeContactsJob, {
  async handler(data, deps) {
    await geocodePendingContacts(deps, data.workspaceId, data.contactIds);
  },
});

/**
 * Runs a streaming CSV import (`contact_imports` row): parse, COPY, upsert, with progress written
 * after every batch, and the batch's contact.created / contact.updated webhook events when an
 * endpoint listens (importEventListener); then queues geocoding and the search-index follow-up. A
 * missing file or a binary file fails the import with a readable reason (not retried). When the worker running it
 * dies (its pg-boss heartbeat stops), pg-boss runs it again: the file is imported again from the
 * start, which the upsert by email makes idempotent, and the totals count the contacts the
 * interrupted attempt created as created (they carry the import's id), not as skipped or updated. A
 * deadlock with another writer that outlasted the batch's own retries imports the file again the same
 * way (up to 3 runs), instead of failing the import.
 */
export const importContactsHandler = defineHandler(importContactsJob, {
  async handler(data, deps) {
    const [imp] = await deps.db.select().from(contactImports).where(eq(contactImports.id, data.importId));
    if (!imp) throw new PermanentJobError(`import ${data.importId} not found`);
    if (imp.status === "completed" || imp.status === "failed") return;
    // an earlier attempt got as far as processing, then its worker died
    const resumed = imp.status === "processing";
    const key = importStorageKey(imp.id);
    const save = async (
      status: string,
      bytes: number,
      r: ImportResult,
      extra: Partial<typeof contactImports.$inferInsert> = {},
    ) => {
      await deps.db
        .update(contactImports)
        .set({
          status,
          bytesProcessed: bytes,
          rowsProcessed: r.rows,
          created: r.created,
          updated: r.updated,
          skipped: r.skipped,
          errorCount: r.errorCount,
          phoneInvalid: r.phoneInvalid ?? 0,
          fieldsCleared: r.fieldsCleared ?? 0,
          optOutsKept: r.optOutsKept ?? 0,
          ...extra,
        })
        .where(and(eq(contactImports.id, imp.id), eq(contactImports.workspaceId, imp.workspaceId)));
    };
    const empty: ImportResult = { rows: 0, created: 0, updated: 0, skipped: 0, errorCount: 0, errors: [] };
    await save("processing", 0, empty);
    let local: { path: string; cleanup: () => Promise<void> } | null = null;
    try {
      local = await deps.providers.storage.toLocalFile(key, os.tmpdir()).catch((e) => {
        if (e instanceof StorageNotFoundError)
          throw new AppError("NOT_FOUND", "The uploaded file is no longer available; please upload it again");
        throw e;
      });
      const mapping = imp.mapping as ColumnMapping;
      // the plan's contact limit (issue 12)
      const contactLimit = await importContactLimit(deps, imp.workspaceId);
      const phoneCountry = await phoneCountryOf(deps, imp.workspaceId);
      // contact.created / contact.updated (issue 15) stored in each batch's transaction, queued
      // after its commit, when an endpoint listens: asked once per import, so an import nobody
      // listens to returns no ids, reads nothing back and runs nothing more per batch
      const events = await importEventListener(deps, imp.workspaceId);
      const file = local.path;
      // a batch is already run again on a deadlock (ContactImporter); should one still fail with a
      // deadlock, the file is imported again from the start (idempotent, like a resumed import)
      // rather than the import failing
      let attempts = 0;
      const result = await retryOnRace(
        () => {
          attempts++;
          return streamCsvFile(
            file,
            (m) =>
              new ContactImporter(deps.sql, imp.workspaceId, {
                onDuplicate: imp.onDuplicate === "update" ? "update" : "skip",
                mappedFields: new Set(Object.keys(m) as ImportField[]),
                source: "csv_import",
                importId: imp.id,
                deferSearchIndex: true,
                writers: 2,
                contactLimit,
                phoneCountry,
                events,
              }),
            { mapping, onProgress: (bytes, r) => save("processing", bytes, r) },
          );
        },
        {
          attempts: 3,
          onRetry: (err, attempt) =>
            deps.log.warn(
              { err, importId: imp.id, attempt },
              "contact import deadlocked; importing the file again",
            ),
        },
      );
      if (resumed || attempts > 1) {
        const [row] = await deps.sql<{ n: number }[]>`
          select count(*)::int as n from contacts where workspace_id = ${imp.workspaceId} and import_id = ${imp.id}`;
        const earlier = Math.max(0, (row?.n ?? 0) - result.created);
        result.created += earlier;
        // this run found them as they were (skipped; or updated, in update mode, where a row differs
        // from what the earlier attempt wrote, e.g. edited in between)
        const fromSkipped = Math.min(earlier, result.skipped);
        result.skipped -= fromSkipped;
        result.updated = Math.max(0, result.updated - (earlier - fromSkipped));
        deps.log.info({ importId: imp.id, earlier }, "interrupted contact import resumed and completed");
      }
      await save("completed", imp.fileSize, result, { errors: result.errors, finishedAt: new Date() });
      await deps.jobs.send(
        geocodeContactsJob,
        { workspaceId: imp.workspaceId },
        { singletonKey: `geo:${imp.workspaceId}` },
      );
    } catch (e) {
      const reason =
        e instanceof AppError ? e.message : "The import failed unexpectedly; no further rows were imported";
      if (!(e instanceof AppError)) deps.log.error({ err: e, importId: imp.id }, "contact import failed");
      await deps.db
        .update(contactImports)
        .set({ status: "failed", failureReason: reason, finishedAt: new Date() })
        .where(eq(contactImports.id, imp.id));
    } finally {
      await local?.cleanup().catch(() => {});
      await deps.providers.storage.delete(key).catch(() => {});
      // the created contacts go into the search indexes after the import (also after a failure
      // part-way: earlier batches are committed)
      await deps.jobs.send(indexImportSearchJob, { workspaceId: imp.workspaceId, importId: imp.id });
    }
  },
});

/**
 * Puts an import's contacts into the search indexes: the search dictionary and the trigram index
 * (see indexImportSearch), then refreshes the planner's statistics of the columns an import moves
 * (ANALYZE of IMPORT_ANALYZE_COLUMNS, a 30,000-row sample; autovacuum would wait for 10% of the
 * table to change, so a 10,000-contact import into a large database went unseen) and merges the
 * search indexes' pending lists (mergeSearchIndexPending: every search reads them whole until then),
 * and marks the dead pending-index entries of the rewritten contacts (settleImportSearch).
 * Safe to run twice.
 */
const indexImportSearchHandler = defineHandler(indexImportSearchJob, {
  async handler(data, deps) {
    const r = await indexImportSearch(deps.sql, data.workspaceId, data.importId);
    const settled = await settleImportSearch(deps.sql, data.workspaceId);
    deps.log.info({ ...data, ...r, ...settled }, "import search index caught up, statistics refreshed");
  },
});

/**
 * Refreshes the contacts table's planner statistics after a bulk write (analyzeContactStats) and
 * merges the search indexes' pending lists (mergeSearchIndexPending); queued, debounced, by
 * refreshContactStatsSoon.
 */
const analyzeContactsHandler = defineHandler(analyzeContactsJob, {
  async handler(_data, deps) {
    const merged = await refreshContactSearchState(deps.sql);
    deps.log.info({ merged }, "contacts statistics refreshed after a bulk write");
  },
});

/** The crm feature's job handlers (worker registry). */
export const crmHandlers: AnyJobDefinition[] = [
  analyzeContactsHandler,
  geocodeContactsHandler,
  importContactsHandler,
  indexImportSearchHandler,
];
