import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SegmentFilter } from "../../src/server/db/schema";
import { contacts } from "../../src/server/db/schema";
import { contactOrder, contactWhere } from "../../src/server/features/crm/crm.queries";
import { type AuthedClient, createTestApp, setPlan, signUp, type TestApp } from "../helpers";
import { planNodes, planOfRow } from "../query-plan";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** Signs up and imports `n` contacts in one JSON import: one statement, so one shared created_at. */
async function userWithImport(n: number, tag: string) {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "enterprise"); // more contacts than Free's 100
  const rows = Array.from({ length: n }, (_, i) => ({
    first_name: `P${i}`,
    email: `${tag}-${i}@example.com`,
    lifecycle_stage: i % 5 === 0 ? "customer" : "lead",
  }));
  const res = await u.client.post("/api/contacts/import", { contacts: rows });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().created).toBe(n);
  return u;
}

async function exportedIds(client: AuthedClient, query = "") {
  const res = await client.get(`/api/contacts/export.csv${query}`);
  expect(res.statusCode).toBe(200);
  const rows = Papa.parse<string[]>(res.body.replace(/^\uFEFF/, ""), { skipEmptyLines: true }).data;
  expect(rows[0]?.[0]).toBe("id");
  return rows.slice(1).map((r) => Number(r[0]));
}

describe("CSV export pages by a key that survives the round trip (issue 11 #2)", () => {
  let u: Awaited<ReturnType<typeof userWithImport>>;
  beforeAll(async () => {
    u = await userWithImport(10_000, "exp");
  });

  it("exports all 10,000 contacts of one import (one shared created_at), each once, newest first", async () => {
    const [{ distinct }] = await t.sql`
      select count(distinct created_at)::int as distinct from contacts where workspace_id = ${u.user.id}`;
    expect(distinct).toBe(1);
    const ids = await exportedIds(u.client);
    expect(ids.length).toBe(10_000);
    expect(new Set(ids).size).toBe(10_000);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    // a filtered export too (2,000 customers: exactly one page, then an empty one)
    const customers = await exportedIds(u.client, "?stage=customer");
    expect(new Set(customers).size).toBe(2_000);
  });

  it("with created_at ties (microseconds apart, same millisecond) straddling every 2,000-row page boundary", async () => {
    const v = await signUp(t.app);
    await t.sql`
      insert into contacts (workspace_id, first_name, email, created_at)
      select ${v.user.id}::uuid, 'T' || g, 'tie-' || g || '@example.com',
        -- groups of 7 share a timestamp; groups are 1 microsecond apart, so all 6,500 fall within
        -- a few milliseconds and a page boundary (every 2,000) always splits a group
        timestamptz '2026-01-01 00:00:00.000001+00' + ((g / 7) * interval '1 microsecond')
      from generate_series(1, 6500) g`;
    const ids = await exportedIds(v.client);
    expect(ids.length).toBe(6_500);
    expect(new Set(ids).size).toBe(6_500);
  });

  it("list pages over the shared created_at return every contact once", async () => {
    const seen = new Set<number>();
    for (let page = 1; page <= 50; page++) {
      const res = await u.client.get(`/api/contacts?page=${page}&limit=200`);
      expect(res.statusCode).toBe(200);
      for (const c of res.json().contacts as { id: number }[]) seen.add(c.id);
    }
    expect(seen.size).toBe(10_000);
  });
});

describe("contacts list page 1 on imported contacts (issue 11: linear list)", () => {
  it("reads one page from an index, with no sort and nothing filtered away, for no filter, a stage and a status, also when another workspace has many newer contacts", async () => {
    const u = await userWithImport(10_000, "plan");
    // another workspace imports 20,000 contacts after it: their ids are all higher. Ordered by id
    // alone, the planner walked the primary key backwards and filtered every one of them away
    // (3.95 s for page 1 at 300,000 + 300,000 contacts)
    await userWithImport(20_000, "newer");
    await t.sql`analyze contacts`;
    for (const filter of [{}, { lifecycle_stage: "lead" }, { lead_status: "new" }] as SegmentFilter[]) {
      // the statement listContacts runs for a page without search
      const q = t.db
        .select()
        .from(contacts)
        .where(contactWhere(u.user.id, filter))
        .orderBy(...contactOrder(filter))
        .limit(50)
        .offset(0)
        .toSQL();
      const [row] = await t.sql.unsafe(`explain (analyze, format json) ${q.sql}`, q.params as never[]);
      const all = planNodes(planOfRow(row));
      const shape = all.map((n) => `${n["Node Type"]}(${n["Actual Rows"]})`).join(" > ");
      expect(
        all.some((n) => /Sort/.test(n["Node Type"])),
        `${JSON.stringify(filter)}: ${shape}`,
      ).toBe(false);
      expect(Math.max(...all.map((n) => n["Actual Rows"])), shape).toBeLessThanOrEqual(51);
      const removed = all.reduce((sum, n) => sum + (n["Rows Removed by Filter"] ?? 0), 0);
      expect(removed, `${JSON.stringify(filter)}: ${shape}`).toBeLessThanOrEqual(50);
    }
  });

  it("a file import's follow-up refreshes the planner's statistics", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "enterprise"); // more contacts than Free's 100
    const estimate = async () => {
      const [row] = await t.sql.unsafe(
        `explain (format json) select * from contacts where workspace_id = '${user.id}'`,
      );
      return planOfRow(row)["Plan Rows"];
    };
    await t.sql`analyze contacts`;
    expect(await estimate()).toBeLessThan(1_000);
    const lines = ["first_name,email"];
    for (let i = 0; i < 10_000; i++) lines.push(`S${i},stats-${i}@example.com`);
    const boundary = "----pwstats";
    const payload = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\nContent-Type: text/csv\r\n\r\n${lines.join("\n")}\n\r\n--${boundary}--\r\n`,
    );
    const res = await client.inject({
      method: "POST",
      url: "/api/contacts/import/upload",
      payload,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode, res.body).toBe(202);
    // the inline job client ran the import and its follow-up (search index + ANALYZE)
    expect(await estimate()).toBeGreaterThan(5_000);
  });
});

describe("search counts by workspace size (crm.search SMALL_WORKSPACE)", () => {
  it("counts a broad term exactly up to 1,000 in a small workspace, and gives a lower bound past 20,000 contacts unless the term is selective", async () => {
    const seed = async (n: number) => {
      const u = await signUp(t.app);
      await t.sql`
        insert into contacts (workspace_id, first_name, email, company)
        select ${u.user.id}::uuid, 'Broad' || g, 'broad-' || g || '@example.com',
               case when g % 500 = 0 then 'Zebrafinch Ltd' else 'Acme' end
        from generate_series(1, ${n}) g`;
      await t.sql`analyze contacts`;
      return u;
    };
    const small = await seed(5_000);
    const smallBroad = (await small.client.get("/api/contacts?search=acme&limit=50")).json();
    expect(smallBroad.pagination).toEqual({ page: 1, pages: 20, total: 1000, limit: 50, total_capped: true });
    expect(smallBroad.contacts).toHaveLength(50);
    const newest = await t.sql<{ id: string }[]>`
      select id from contacts where workspace_id = ${small.user.id} and strpos(search_text, 'acme') > 0
      order by created_at desc, id desc limit 100`;
    expect(smallBroad.contacts.map((c: { id: number }) => c.id)).toEqual(
      newest.slice(0, 50).map((r) => Number(r.id)),
    );
    // the same term again and its next page (read by a walk now that it is known broad): the same
    // contacts, and still "1,000+"
    const again = (await small.client.get("/api/contacts?search=acme&limit=50")).json();
    expect(again).toEqual(smallBroad);
    const next = (await small.client.get("/api/contacts?search=acme&limit=50&page=2")).json();
    expect(next.pagination).toEqual({ page: 2, pages: 20, total: 1000, limit: 50, total_capped: true });
    expect(next.contacts.map((c: { id: number }) => c.id)).toEqual(
      newest.slice(50, 100).map((r) => Number(r.id)),
    );

    const large = await seed(25_000);
    const broad = (await large.client.get("/api/contacts?search=acme&limit=50")).json();
    // past SMALL_WORKSPACE the planner's estimate chooses: expecting more than BROAD_ESTIMATE matches,
    // one page plus one row is read ("51+"); on the run's shared database other files' contacts can
    // make 'acme' look rare (the estimate multiplies the workspace's share by the term's share of
    // the whole table), and the term is then counted up to SEARCH_COUNT_CAP ("1,000+"). Either way a
    // capped lower bound, never an exact count of 24,950 matches, and the newest 50 of them.
    expect([
      { page: 1, pages: 2, total: 51, limit: 50, total_capped: true },
      { page: 1, pages: 20, total: 1000, limit: 50, total_capped: true },
    ]).toContainEqual(broad.pagination);
    const newestLarge = await t.sql<{ id: string }[]>`
      select id from contacts where workspace_id = ${large.user.id} and strpos(search_text, 'acme') > 0
      order by created_at desc, id desc limit 100`;
    expect(broad.contacts.map((c: { id: number }) => c.id)).toEqual(
      newestLarge.slice(0, 50).map((r) => Number(r.id)),
    );
    // the same term again and its next page: a term counted past the cap is walked from then on (a
    // planner hint) and keeps its "1,000+"; a broad one keeps its lower bound. Same contacts either way
    expect((await large.client.get("/api/contacts?search=acme&limit=50")).json()).toEqual(broad);
    const largeNext = (await large.client.get("/api/contacts?search=acme&limit=50&page=2")).json();
    expect(largeNext.pagination).toEqual(
      broad.pagination.total === 1000
        ? { page: 2, pages: 20, total: 1000, limit: 50, total_capped: true }
        : { page: 2, pages: 3, total: 101, limit: 50, total_capped: true },
    );
    expect(largeNext.contacts.map((c: { id: number }) => c.id)).toEqual(
      newestLarge.slice(50).map((r) => Number(r.id)),
    );
    const selective = (await large.client.get("/api/contacts?search=zebrafinch&limit=10")).json();
    expect(selective.pagination).toEqual({ page: 1, pages: 5, total: 50, limit: 10 });
  }, 60_000);
});
