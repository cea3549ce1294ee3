import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

// Issue 15 benchmark blocker: contacts written in bulk outside the CSV file import (the v1 bulk
// upsert, the JSON import, campaign CSV recipients) refresh the planner's statistics through a
// debounced crm.analyze-contacts job, as the CSV import's follow-up job does.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** last_analyze (ms, 0 when never) and reltuples of the contacts table. */
async function contactStats() {
  const [row] = await t.db.execute<{ last_analyze: string | null; reltuples: number }>(sql`
    select s.last_analyze, c.reltuples::float8 as reltuples
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.relid = 'contacts'::regclass`);
  return {
    lastAnalyze: row.last_analyze ? new Date(row.last_analyze).getTime() : 0,
    reltuples: Number(row.reltuples),
  };
}

/** Pages and heap rows waiting in a GIN index's pending list (pgstattuple's pgstatginindex). */
async function pending(index: string) {
  await t.db.execute(sql`create extension if not exists pgstattuple`);
  const [row] = await t.db.execute<{ pending_pages: number; pending_tuples: string }>(
    sql`select pending_pages, pending_tuples from pgstatginindex(${index}::regclass)`,
  );
  return { pages: Number(row.pending_pages), rows: Number(row.pending_tuples) };
}

const analyzeJobs = () => t.jobs.deferred.filter((d) => d.job.name === "crm.analyze-contacts");

describe("contacts statistics after bulk writes", () => {
  it("the v1 bulk upsert queues one debounced ANALYZE that refreshes the statistics and merges the search indexes' pending lists", async () => {
    await t.jobs.runDeferred();
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "enterprise" }).where(eq(workspaces.id, u.user.id));
    const res = await u.client.post("/api/api-keys", { name: "stats", scopes: ["contacts:write"] });
    const key = res.json().key as string;
    const before = await contactStats();
    for (let b = 0; b < 3; b++) {
      const r = await t.app.inject({
        method: "POST",
        url: "/api/v1/contacts/bulk",
        headers: { authorization: `Bearer ${key}` },
        payload: {
          contacts: Array.from({ length: 1000 }, (_, i) => ({
            first_name: `S${b}-${i}`,
            email: `s${b}-${i}@stats.example.com`,
          })),
        },
      });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ created: 1000 });
    }
    // debounced: three bulk calls, one waiting job, due a few seconds later
    const queued = analyzeJobs();
    expect(queued).toHaveLength(1);
    expect(queued[0].options.startAfter!.getTime()).toBeGreaterThan(Date.now());
    // the new contacts wait in the search indexes' pending lists, which every search reads whole
    expect((await pending("contacts_ws_search_keys_idx")).pages).toBeGreaterThan(0);
    // the job as the worker runs it: statistics refreshed, pending lists merged into the indexes
    expect(await t.jobs.runDeferred()).toBeGreaterThanOrEqual(1);
    expect(t.jobs.failures.filter((f) => f.job === "crm.analyze-contacts")).toEqual([]);
    // merged: this test's 3,000 rows are no longer pending (other test files write contacts into the
    // same database meanwhile, so a few of theirs may be; a bulk upsert leaves no dictionary words
    // pending, the import's search indexing adds them)
    expect((await pending("contacts_ws_search_keys_idx")).rows).toBeLessThan(3000);
    const after = await contactStats();
    expect(after.lastAnalyze).toBeGreaterThan(before.lastAnalyze);
    expect(after.reltuples).toBeGreaterThanOrEqual(3000);
    expect(analyzeJobs()).toHaveLength(0);
  });

  it("the JSON import and campaign CSV recipients queue it too; nothing written, nothing queued", async () => {
    await t.jobs.runDeferred();
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "enterprise" }).where(eq(workspaces.id, u.user.id));
    const r = await u.client.post("/api/contacts/import", {
      contacts: [{ first_name: "Jo", email: "jo@stats.example.com" }],
    });
    expect(r.statusCode).toBe(200);
    expect(analyzeJobs()).toHaveLength(1);
    await t.jobs.runDeferred();

    // every row invalid: no write, no job
    const bad = await u.client.post("/api/contacts/import", { contacts: [{ first_name: "No email" }] });
    expect(bad.statusCode).toBe(200);
    expect(bad.json()).toMatchObject({ imported: 0 });
    expect(analyzeJobs()).toHaveLength(0);

    const ids = await findOrCreateContacts({ db: t.db, jobs: t.jobs }, u.user.id, [
      { name: "Csv One", email: "csv1@stats.example.com" },
      { name: "Csv Two", phone: "+12125550123" },
    ]);
    expect(ids).toHaveLength(2);
    expect(analyzeJobs()).toHaveLength(1);
    // the same rows again create nothing and queue nothing new
    await t.jobs.runDeferred();
    await findOrCreateContacts({ db: t.db, jobs: t.jobs }, u.user.id, [{ email: "csv1@stats.example.com" }]);
    expect(analyzeJobs()).toHaveLength(0);
  });
});
