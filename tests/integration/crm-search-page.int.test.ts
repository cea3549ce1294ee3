import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Contact } from "../../src/server/db/schema";
import {
  contactWhere,
  countContactsWhere,
  normaliseSearch,
  selectBroadSearchPage,
  selectSearchPage,
} from "../../src/server/features/crm/crm.queries";
import { listContacts, listContactsJson, toContactJson } from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/**
 * The screen's search in one statement (crm.queries selectSearchPage, issue 11) against a reference:
 * the contacts whose search_text contains the term, filtered and ordered in plain SQL.
 */
describe("a search page in one statement (crm.queries selectSearchPage)", () => {
  it("gives the same pages, totals and JSON as the plain SQL of the filter: indexed and not-yet-indexed contacts, stage and status, empty pages, LIKE wildcards, the size gate", async () => {
    const { user } = await signUp(t.app);
    const ws = user.id;
    // 130 contacts of one import (one created_at); every third awaits its search indexing
    await t.sql`
      insert into contacts (workspace_id, first_name, last_name, email, company, lifecycle_stage, lead_status, search_indexed, created_at)
      select ${ws}::uuid, 'Pat' || g, case when g % 2 = 0 then 'Garcia' else 'Nguyen' end,
             'p' || g || '@example.com',
             case when g % 10 = 0 then '50%_off Ltd' else 'Acme ' || g end,
             case when g % 3 = 0 then 'customer' else 'lead' end,
             case when g % 4 = 0 then 'qualified' else 'new' end,
             g % 3 <> 1, '2026-11-01 10:00:00.123456+00'
      from generate_series(1, 130) g`;
    const reference = async (term: string, stage?: string, status?: string) => {
      const rows = await t.sql<{ id: string }[]>`
        select id from contacts
        where workspace_id = ${ws} and strpos(search_text, ${term}) > 0
          and (${stage ?? null}::text is null or lifecycle_stage = ${stage ?? null})
          and (${status ?? null}::text is null or lead_status = ${status ?? null})
        order by created_at desc, id desc`;
      return rows.map((r) => Number(r.id));
    };
    const cases: { search: string; stage?: "lead" | "customer"; status?: "new" | "qualified" }[] = [
      { search: "garcia" },
      { search: "GARCIA", stage: "customer" },
      { search: "nguyen", status: "qualified" },
      { search: "garcia", stage: "lead", status: "new" },
      { search: "50%_off" },
      { search: "pat1" },
      { search: "zzq" },
    ];
    for (const c of cases) {
      const ids = await reference(c.search.toLowerCase(), c.stage, c.status);
      expect(ids.length, c.search).toBeLessThan(131);
      for (const [page, limit] of [
        [1, 20],
        [2, 20],
        [4, 20],
        [99, 20],
      ] as const) {
        const input = { search: c.search, stage: c.stage, status: c.status, page, limit };
        const r = await listContacts(t.ctx, ws, input);
        const want = ids.slice((page - 1) * limit, page * limit);
        expect(
          r.contacts.map((x) => x.id),
          JSON.stringify(input),
        ).toEqual(want);
        expect(r.pagination, JSON.stringify(input)).toEqual({
          page,
          pages: Math.max(1, Math.ceil(ids.length / limit)),
          total: ids.length,
          limit,
        });
        // the json form: the same contacts, as JSON.stringify(toContactJson(row)) writes them
        const j = await listContactsJson(t.ctx, ws, input);
        expect(j.pagination).toEqual(r.pagination);
        expect(j.contacts.text).toBe(JSON.stringify(r.contacts));
      }
    }
    // the rows are the contacts themselves, column for column
    const [first] = (await listContacts(t.ctx, ws, { search: "pat12", page: 1, limit: 1 })).contacts;
    const [row] = await t.sql<
      Record<string, unknown>[]
    >`select id from contacts where workspace_id = ${ws} and first_name = 'Pat129'`;
    expect(first?.id).toBe(Number(row?.id));
    const full = await t.db.query.contacts.findFirst({ where: (c, { eq }) => eq(c.id, Number(row?.id)) });
    expect(first).toEqual(toContactJson(full as Contact));

    // the size gate: a workspace larger than countUpTo reads nothing and says so (null)
    const page = { offset: 0, limit: 10, cap: 1000 };
    expect(await selectSearchPage(t.db, ws, { term: "garcia" }, { ...page, countUpTo: 129 })).toBeNull();
    const open = await selectSearchPage(t.db, ws, { term: "garcia" }, { ...page, countUpTo: 130 });
    expect(open?.matched).toBe(65);
    expect(open?.rows.map((r) => r.c.id)).toEqual((await reference("garcia")).slice(0, 10));
    // matched stops at cap + 1 (the caller shows "1000+")
    const capped = await selectSearchPage(
      t.db,
      ws,
      { term: "pat" },
      { offset: 0, limit: 5, cap: 40, countUpTo: 130 },
    );
    expect(capped?.matched).toBe(41);
    // past the cap the page comes from a walk of the workspace newest first, in the same statement:
    // the reference's contacts, with stage and status, across not-yet-indexed contacts, in both forms
    for (const by of [
      { term: "pat" },
      { term: "pat", lifecycleStage: "lead" },
      { term: "acme", leadStatus: "new" },
    ]) {
      const ids = await reference(by.term, by.lifecycleStage, by.leadStatus);
      for (const offset of [0, 5, 35]) {
        const at = { offset, limit: 5, cap: 20, countUpTo: 130 };
        const r = await selectSearchPage(t.db, ws, by, at);
        expect(r?.matched, JSON.stringify(by)).toBe(21);
        expect(
          r?.rows.map((x) => x.c.id),
          `${JSON.stringify(by)} @${offset}`,
        ).toEqual(ids.slice(offset, offset + 5));
        const j = await selectSearchPage(t.db, ws, by, at, "json");
        expect(j?.rows.map((x) => x.json.toString())).toEqual(
          r?.rows.map((x) => JSON.stringify(toContactJson(x.c))),
        );
      }
    }
    // the broad form (index order, no count): the same contacts page by page, in both forms, with
    // stage and status, and across the not-yet-indexed contacts
    for (const c of cases) {
      const ids = await reference(c.search.toLowerCase(), c.stage, c.status);
      const by = { term: c.search.toLowerCase(), lifecycleStage: c.stage, leadStatus: c.status };
      for (const offset of [0, 7, 60, 200]) {
        const rows = await selectBroadSearchPage(t.db, ws, by, 8, offset);
        expect(
          rows.map((r) => r.c.id),
          `${c.search} @${offset}`,
        ).toEqual(ids.slice(offset, offset + 8));
        const json = await selectBroadSearchPage(t.db, ws, by, 8, offset, "json");
        expect(json.map((r) => r.json.toString())).toEqual(
          rows.map((r) => JSON.stringify(toContactJson(r.c))),
        );
      }
    }
    // and inside a transaction (drizzle's prepared query): the same rows
    await t.db.transaction(async (tx) => {
      const inTx = await selectBroadSearchPage(tx, ws, { term: "garcia" }, 8, 3);
      expect(inTx.map((r) => r.c.id)).toEqual((await reference("garcia")).slice(3, 11));
    });
    // another workspace's id finds nothing of this one
    const other = await signUp(t.app);
    const none = await selectSearchPage(
      t.db,
      other.user.id,
      { term: "garcia" },
      { ...page, countUpTo: 1000 },
    );
    expect(none).toEqual({ rows: [], matched: 0 });
    expect(await selectBroadSearchPage(t.db, other.user.id, { term: "garcia" }, 10, 0)).toEqual([]);
  });

  it("the workspace-keyed search index finds exactly the contacts a substring match finds, in its own workspace only", async () => {
    const { user } = await signUp(t.app);
    const ws = user.id;
    // a workspace whose id shares its first 24 bits with ws: its trigrams share ws's index keys
    const twinId = `${ws.slice(0, 6)}${ws[6] === "0" ? "1" : "0"}${ws.slice(7)}`;
    await t.sql`insert into workspaces (id, name, slug, owner_id) values (${twinId}, 'Twin', ${`twin-${twinId}`}, ${ws})`;
    const texts = [
      ["Sheryl", "Smith627", "sheryl.smith627.109300@gmail.com", "Rasmussen 4321 Plumbing", "+19890109300"],
      ["Linda", "King441", "linda.king441@example.com", "Hooli 441", "+12125550441"],
      ["José", "Müller", "jose.muller@example.de", "Café Ørsted", "+4930123456"],
      ["Jo", "Ng", "jo@ng.io", "A-B Co", null],
      ["Mary-Ann", "O'Neil", "maryann@oneil.ie", "O'Neil & Sons", "+353861234567"],
      ["Léa", "Dubois", "lea@dubois.fr", "Hooli 4410", "+33612345678"],
      ["Иван", "Петров", "ivan@example.ru", "ООО Ромашка", "+74951234567"],
    ] as const;
    for (const [workspace, n] of [
      [ws, 3],
      [twinId, 2],
    ] as const)
      for (let i = 0; i < n; i++)
        for (const [first, last, email, company, phone] of texts)
          await t.sql`insert into contacts (workspace_id, first_name, last_name, email, company, phone, search_indexed)
            values (${workspace}, ${first}, ${last}, ${`${i}.${email}`}, ${company}, ${phone}, ${i !== 1})`;
    const reference = async (term: string) =>
      (
        await t.sql<{ id: string }[]>`
          select id from contacts where workspace_id = ${ws} and strpos(search_text, ${term}) > 0
          order by created_at desc, id desc`
      ).map((r) => Number(r.id));
    const terms = [
      "smith627",
      "ith6",
      "mith627.1093",
      "sheryl smith",
      "l smi",
      "rasmussen 4321",
      "rasmusen 4321",
      "hooli 441",
      "hooli 4410",
      "oli 44",
      " 441 ",
      "441",
      "king441@",
      ".king441@exam",
      "@example.com",
      "(989)",
      "+1989",
      "0109300",
      "müller",
      "ller",
      "café ørsted",
      "ørsted",
      "é ø",
      "jo",
      "a-b",
      "ng.io",
      "mary-ann o'neil",
      "'neil & s",
      "dubois.fr",
      "иван",
      "ромашка",
      "о р",
      "zzq",
    ];
    for (const term of terms) {
      // search_text is stored accents folded and lower-cased, as normaliseSearch gives a term
      const want = await reference(normaliseSearch(term));
      const r = await listContacts(t.ctx, ws, { search: term, page: 1, limit: 200 });
      // listContacts corrects a typo when nothing matches: compare only the terms that match
      if (want.length > 0 || term === "zzq")
        expect(
          r.contacts.map((c) => c.id),
          term,
        ).toEqual(want);
      expect(await countContactsWhere(t.db, contactWhere(ws, { search: term })), term).toBe(want.length);
    }
    // a keyable term's search reads the index once the workspace is large enough to make it pay
    await t.sql`
      insert into contacts (workspace_id, first_name, email, search_indexed)
      select ${ws}::uuid, 'Filler' || g, 'filler' || g || '@example.net', true from generate_series(1, 5000) g`;
    await t.sql`analyze contacts`;
    await t.db.transaction(async (tx) => {
      const plan = await tx.execute(
        sql`explain select id from contacts where ${contactWhere(ws, { search: "hooli 441" })}`,
      );
      expect(JSON.stringify(plan)).toContain("contacts_ws_search_keys_idx");
    });
  });
});
