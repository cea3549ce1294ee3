import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import {
  listContacts,
  listContactsJson,
  listContactsPage,
  listContactsPageJson,
  toContactJson,
} from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;

/**
 * A page's JSON text (as Postgres writes it) holds the same values as `objects`, each object's keys in
 * the same order (toContactJson's).
 */
function expectJsonOf(text: string, objects: object[]) {
  const parsed = JSON.parse(text) as object[];
  expect(parsed).toEqual(objects);
  expect(parsed.map((o) => Object.keys(o))).toEqual(objects.map((o) => Object.keys(o)));
}
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("the contact list's page statement (crm.queries selectContactsPage)", () => {
  it("decodes rows exactly as drizzle's own select does: every column, nulls, numbers, booleans, jsonb, times; pages by keyset without gaps", async () => {
    const { user } = await signUp(t.app);
    const ws = user.id;
    const created = await t.db
      .insert(contacts)
      .values([
        { workspaceId: ws, firstName: "Maria", lastName: "Lopez", email: "maria@example.com" },
        {
          workspaceId: ws,
          firstName: "Sam",
          email: "sam@example.com",
          phone: "+14155550132",
          company: "Sam's Plumbing",
          lifecycleStage: "customer",
          leadStatus: "qualified",
          leadScore: 87,
          smsOptIn: true,
          latitude: 43.59,
          longitude: -83.89,
          geocodedAt: new Date("2026-03-01T10:20:30.123Z"),
          customFields: { plan: "gold", note: "ünïcödé ✓" },
        },
        { workspaceId: ws, firstName: null, lastName: null, email: null, phone: "+442079460018" },
      ])
      .returning();
    expect(created).toHaveLength(3);
    const ids = created.map((c) => c.id);
    const expected = await t.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.workspaceId, ws), inArray(contacts.id, ids)))
      .orderBy(desc(contacts.createdAt), desc(contacts.id));

    // one page of all three, then pages of one by the cursor
    const all = await listContactsPage(t.ctx, ws, {}, 10);
    expect(all.contacts).toEqual(expected);
    expect(all.nextCursor).toBeNull();
    const seen = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await listContactsPage(t.ctx, ws, {}, 1, cursor);
      seen.push(...page.contacts);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
    // a stage filter is its own statement shape
    const customers = await listContactsPage(t.ctx, ws, { lifecycle_stage: "customer" }, 10);
    expect(customers.contacts).toEqual(expected.filter((c) => c.lifecycleStage === "customer"));
    // and inside a transaction (drizzle's prepared query, same rows)
    await t.db.transaction(async (tx) => {
      const inTx = await listContactsPage({ db: tx as never }, ws, {}, 10);
      expect(inTx.contacts).toEqual(expected);
    });
  });

  it("writes each page's JSON (Postgres) with toContactJson's values and key order: escapes, unicode, nulls, numbers, jsonb, times with and without microseconds", async () => {
    const { user } = await signUp(t.app);
    const ws = user.id;
    await t.db.insert(contacts).values([
      {
        workspaceId: ws,
        firstName: 'Zoë "Quote" \\ back',
        lastName: "line\nbreak\ttab \u0001 ctrl </script>",
        email: "zoe@example.com",
        phone: "+14155550132",
        phoneRaw: "(415) 555-0132",
        mobile: "+447700900123",
        company: "Émile & Söhne 😀",
        lifecycleStage: "customer",
        leadStatus: "qualified",
        leadScore: 87,
        engagementScore: -3,
        smsOptIn: true,
        callOptIn: true,
        emailOptIn: false,
        latitude: 1e-7,
        longitude: -179.999999,
        customFields: { plan: "gold", 'key with "quotes"': "✓\u2028" },
        website: "https://example.com/?a=1&b=2",
      },
      { workspaceId: ws, firstName: null, lastName: null, email: null, latitude: 0, longitude: -0 },
      { workspaceId: ws, firstName: "Micro", email: "micro@example.com" },
    ]);
    // times as an import writes them: microseconds, none, and one shared by two rows
    await t.db.execute(
      sql`update contacts set created_at = '2026-01-02 03:04:05.678912+00', updated_at = '2026-01-02 03:04:05+00' where workspace_id = ${ws} and first_name is distinct from 'Micro'`,
    );
    await t.db.execute(
      sql`update contacts set created_at = '2025-12-31 23:59:59.999999+00', updated_at = '2026-02-03 04:05:06.07+00' where workspace_id = ${ws} and first_name = 'Micro'`,
    );
    const expected = await t.db
      .select()
      .from(contacts)
      .where(eq(contacts.workspaceId, ws))
      .orderBy(desc(contacts.createdAt), desc(contacts.id));
    expect(expected).toHaveLength(3);
    const expectedJson = expected.map(toContactJson);

    // the public API's page, whole and by cursor
    const all = await listContactsPageJson(t.ctx, ws, {}, 10);
    expectJsonOf(all.json.text, expectedJson);
    const texts: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await listContactsPageJson(t.ctx, ws, {}, 1, cursor);
      texts.push(page.json.text.slice(1, -1));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expectJsonOf(`[${texts.join(",")}]`, expectedJson);
    // a stage filter, a search (JSON.stringify path) and inside a transaction
    const customers = await listContactsPageJson(t.ctx, ws, { lifecycle_stage: "customer" }, 10);
    expectJsonOf(
      customers.json.text,
      expected.filter((c) => c.lifecycleStage === "customer").map(toContactJson),
    );
    const searched = await listContactsPageJson(t.ctx, ws, { search: "micro" }, 10);
    expectJsonOf(searched.json.text, expected.filter((c) => c.firstName === "Micro").map(toContactJson));
    await t.db.transaction(async (tx) => {
      const inTx = await listContactsPageJson({ db: tx as never }, ws, {}, 10);
      expectJsonOf(inTx.json.text, expectedJson);
    });

    // a search's page read by ids (selectContactsPageByIds), as objects and as text
    const found = await listContacts(t.ctx, ws, { search: "example.com" });
    expect(found.contacts).toEqual(
      expected.filter((c) => c.email?.endsWith("example.com")).map(toContactJson),
    );
    expectJsonOf(
      (await listContactsJson(t.ctx, ws, { search: "example.com" })).contacts.text,
      found.contacts,
    );
    // the screen's list (GET /api/contacts): the same page as listContacts gives, as text
    for (const input of [{}, { stage: "customer" }, { limit: 2, page: 2 }, { search: "émile" }] as const) {
      const objects = await listContacts(t.ctx, ws, input);
      const text = await listContactsJson(t.ctx, ws, input);
      expectJsonOf(text.contacts.text, objects.contacts);
      expect(text.pagination).toEqual(objects.pagination);
    }
    // the total comes with the page (one statement), and on its own past the last page
    expect((await listContacts(t.ctx, ws, { limit: 2 })).pagination).toEqual({
      page: 1,
      pages: 2,
      total: 3,
      limit: 2,
    });
    const past = await listContactsJson(t.ctx, ws, { page: 5, limit: 2 });
    expect(past.contacts.text).toBe("[]");
    expect(past.pagination).toEqual({ page: 5, pages: 2, total: 3, limit: 2 });
    expect((await listContacts(t.ctx, ws, { stage: "customer" })).pagination.total).toBe(1);
  });

  it("writes times as Date.prototype.toISOString does in any session time zone; -0 as 0", async () => {
    const { user } = await signUp(t.app);
    const ws = user.id;
    await t.db.insert(contacts).values({ workspaceId: ws, firstName: "T", latitude: -0, longitude: 12.5 });
    for (const ts of [
      "2026-01-02 05:04:05.678912+02",
      "2026-01-02 03:04:05.999999-05:30",
      "2026-01-02 03:04:05.1+00",
      "2026-01-02 03:04:05+00",
      "0999-01-02 03:04:05+00",
    ]) {
      await t.db.execute(
        sql`update contacts set created_at = ${ts}::timestamptz, updated_at = ${ts}::timestamptz where workspace_id = ${ws}`,
      );
      await t.db.transaction(async (tx) => {
        await tx.execute(sql`set local time zone 'Asia/Kolkata'`);
        const [out] = JSON.parse((await listContactsPageJson({ db: tx as never }, ws, {}, 10)).json.text);
        expect(out.created_at).toBe(new Date(ts).toISOString());
        expect(out.updated_at).toBe(new Date(ts).toISOString());
        expect(Object.is(out.latitude, 0)).toBe(true);
        expect(out).toMatchObject({ first_name: "T", custom_fields: {}, longitude: 12.5 });
      });
    }
  });
});
