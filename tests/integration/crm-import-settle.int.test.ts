import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runMigrations } from "../../src/server/db/client";
import { ContactImporter } from "../../src/server/features/crm/crm.import";
import { indexImportSearchJob } from "../../src/server/features/crm/crm.jobs";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

/**
 * Issue 11 (search after an import): an import writes its contacts pending (`search_indexed` false)
 * and its follow-ups rewrite them indexed. The old row versions kept their entries in the
 * pending-search index until a VACUUM, and every search of the workspace visited them (a bitmap scan
 * cannot mark entries dead). The follow-up job now marks them dead with one plain index scan.
 *
 * A database of its own: whether Postgres may mark a row version dead depends on the snapshots open
 * in the same database, and other test files run statements side by side in the shared one.
 */
const dbName = `pw_settle_${process.pid}_${Date.now()}`;
let admin: postgres.Sql;
let t: TestApp;

beforeAll(async () => {
  const base = new URL(inject("databaseUrl"));
  admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  base.pathname = `/${dbName}`;
  await runMigrations(base.toString());
  t = await createTestApp({ DATABASE_URL: base.toString() });
  // no autovacuum on this database's contacts: it would clean the entries in the test's place
  await t.sql`alter table contacts set (autovacuum_enabled = false)`;
});

afterAll(async () => {
  await t?.close();
  await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin?.end({ timeout: 5 });
});

/**
 * Entries of `workspaceId` a bitmap scan of the pending-search index returns (EXPLAIN ANALYZE's
 * actual rows of its Bitmap Index Scan; entries marked dead are skipped, dead ones not yet marked are
 * not).
 */
async function pendingIndexEntries(workspaceId: string): Promise<number> {
  const plan = await t.sql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    await tx`set local enable_indexscan = off`;
    await tx`set local enable_indexonlyscan = off`;
    return tx`explain (analyze, format json)
      select count(*) from contacts where workspace_id = ${workspaceId} and not search_indexed`;
  });
  type Node = { "Node Type": string; "Index Name"?: string; "Actual Rows"?: number; Plans?: Node[] };
  const find = (n: Node): Node | undefined =>
    n["Node Type"] === "Bitmap Index Scan" && n["Index Name"] === "contacts_search_pending_idx"
      ? n
      : n.Plans?.map(find).find(Boolean);
  const root = (plan[0] as unknown as { "QUERY PLAN": { Plan: Node }[] })["QUERY PLAN"][0]!.Plan;
  const scan = find(root);
  if (!scan) throw new Error(`no bitmap scan of contacts_search_pending_idx in ${JSON.stringify(root)}`);
  return scan["Actual Rows"] as number;
}

describe("an import's search-index follow-up", () => {
  it("leaves no dead entries of the workspace in the pending-search index; search finds the contacts", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "enterprise");
    const importId = randomUUID();
    const importer = new ContactImporter(t.sql, user.id, {
      onDuplicate: "skip",
      mappedFields: new Set(["first_name", "last_name", "email", "company"]),
      source: "csv_import",
      importId,
      deferSearchIndex: true,
    });
    await importer.open();
    const n = 3000;
    await importer.add(
      Array.from({ length: n }, (_, i) => ({
        line: i + 2,
        values: {
          first_name: `First${i}`,
          last_name: i % 16 === 0 ? "Garcia" : "Other",
          email: `c${i}@settle.example.com`,
          company: `Company ${i % 97}`,
        },
      })),
    );
    expect(await importer.finish()).toMatchObject({ created: n, errorCount: 0 });
    expect(await pendingIndexEntries(user.id)).toBe(n);

    // what a follow-up's rewrite leaves: every contact indexed, its pending version dead
    const { updated, xid } = await t.sql.begin(async (tx) => {
      const u = await tx`update contacts set search_indexed = true where workspace_id = ${user.id}`;
      const [row] = await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`;
      return { updated: u.count, xid: row!.xid };
    });
    expect(updated).toBe(n);
    expect(await pendingIndexEntries(user.id)).toBe(n);

    // the follow-up job as the worker runs it (its own rewrite has nothing left to do), once nothing
    // can still see the rewritten versions: no other session of this database holds a snapshot (on a
    // loaded machine a pg-boss poll can be mid-statement), and no transaction anywhere in the cluster
    // that began before the rewrite is still running (every snapshot taken meanwhile, the pruning
    // scan's own too, counts it as running, so no version it might see can be marked dead: other test
    // files' imports and a DROP DATABASE run side by side). Once both hold, later ones cannot undo it.
    await expect
      .poll(
        async () =>
          (
            await t.sql`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and pid <> pg_backend_pid() and backend_xmin is not null`
          )[0]?.n === 0 &&
          (await t.sql`select pg_snapshot_xmin(pg_current_snapshot()) > ${xid}::xid8 as done`)[0]?.done,
        { timeout: 20_000, interval: 20 },
      )
      .toBe(true);
    await t.jobs.send(indexImportSearchJob, { workspaceId: user.id, importId });
    expect(t.jobs.failures).toEqual([]);
    expect(await pendingIndexEntries(user.id)).toBe(0);

    const res = await client.get("/api/contacts?search=garcia&limit=5");
    expect(res.statusCode).toBe(200);
    expect(res.json().pagination.total).toBe(Math.ceil(n / 16));
    expect(res.json().contacts.map((c: { last_name: string }) => c.last_name)).toEqual(
      Array(5).fill("Garcia"),
    );
  });
});
