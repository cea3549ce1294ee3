import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb } from "../../src/server/db/client";
import { selectBroadSearchPage, selectSearchPage } from "../../src/server/features/crm/crm.queries";
import { createTestApp, signUp, type TestApp } from "../helpers";

// The search statements are prepared once per connection and meant to run on their generic plan
// (crm.queries opaque). In a database where other workspaces hold most contacts, the custom plans
// of a small workspace's search were estimated cheaper than the generic one (the planner saw the
// workspace's size and the term's index keys), so Postgres planned every run anew: bench:crm's
// 10,000-contact search beside 2,000,000 other contacts spent 0.75 ms per request planning.

let t: TestApp;
let one: ReturnType<typeof createDb>;
beforeAll(async () => {
  t = await createTestApp();
  // one connection, so that its pg_prepared_statements is the one the statements ran on
  one = createDb(inject("databaseUrl"), { max: 1 });
});
afterAll(async () => {
  await one?.sql.end({ timeout: 5 });
  await t?.close();
});

/** Inserts `n` contacts into `ws`; every 24th is a Garcia (as bench:crm's load accounts). */
async function seed(ws: string, n: number, tag: string) {
  await t.sql`
    insert into contacts (workspace_id, first_name, last_name, email, company)
    select ${ws}::uuid, 'First' || g,
      case when g % 24 = 0 then 'Garcia' else (array['Smith','Jones','Brown','Miller'])[1 + g % 4] end,
      ${tag} || g || '@example.com', 'Company ' || (g % 97)
    from generate_series(1, ${n}::int) g`;
}

/**
 * Plans made so far of the connection's prepared statements: the search page (its text has the CTE
 * "m") or the broad search (the walk's `|| ''` without that CTE).
 */
async function plansOf(which: "search" | "broad") {
  const rows = await one.sql<{ generic: number; custom: number; statement: string }[]>`
    select generic_plans::int as generic, custom_plans::int as custom, statement
    from pg_prepared_statements where not from_sql`;
  return rows.filter((r) =>
    which === "search"
      ? r.statement.includes('"m"')
      : r.statement.includes("|| '') like") && !r.statement.includes('"m"'),
  );
}

describe("search statements keep their generic plan (no planning per run)", () => {
  it("a small workspace's search beside a large one's contacts: after the first runs, every run uses the generic plan", async () => {
    const small = (await signUp(t.app)).user.id;
    const large = (await signUp(t.app)).user.id;
    const tag = `gp${Date.now()}`;
    await seed(small, 600, `${tag}s`);
    await seed(large, 100_000, `${tag}l`);
    await t.sql`analyze contacts`;

    const runs = 12;
    for (let i = 0; i < runs; i++) {
      const r = await selectSearchPage(
        one.db,
        small,
        { term: "garcia" },
        { offset: 0, limit: 50, cap: 1000, countUpTo: 20_000 },
        "json",
      );
      // the same answer on every plan: 600 / 24 Garcias
      expect(r?.matched).toBe(25);
      expect(r?.rows).toHaveLength(25);
    }
    const search = await plansOf("search");
    expect(search).toHaveLength(1);
    // Postgres makes five custom plans before it compares; from then on the generic one is kept
    expect(search[0]?.custom).toBeLessThanOrEqual(5);
    expect(search[0]?.generic).toBeGreaterThanOrEqual(runs - 5);

    for (let i = 0; i < runs; i++) {
      const rows = await selectBroadSearchPage(one.db, small, { term: "garcia" }, 51, 0, "json");
      // the walk finds the same 25 Garcias (fewer than the page)
      expect(rows).toHaveLength(25);
    }
    const broad = await plansOf("broad");
    expect(broad).toHaveLength(1);
    expect(broad[0]?.custom).toBeLessThanOrEqual(5);
    expect(broad[0]?.generic).toBeGreaterThanOrEqual(runs - 5);
  });
});
