import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { contactJsonWriter, dataRowColumns, JsonBytes } from "../../src/server/features/crm/crm.contact-json";
import {
  listContacts,
  listContactsJson,
  listContactsPage,
  listContactsPageJson,
  toContactJson,
} from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;
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

  it("writes each page's JSON exactly as JSON.stringify(toContactJson(row)): escapes, unicode, nulls, numbers, jsonb, times with and without microseconds", async () => {
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
    const expectedJson = JSON.stringify(expected.map(toContactJson));

    // the public API's page, whole and by cursor
    const all = await listContactsPageJson(t.ctx, ws, {}, 10);
    expect(all.json.text).toBe(expectedJson);
    const texts: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await listContactsPageJson(t.ctx, ws, {}, 1, cursor);
      texts.push(page.json.text.slice(1, -1));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(`[${texts.join(",")}]`).toBe(expectedJson);
    // a stage filter, a search (JSON.stringify path) and inside a transaction
    const customers = await listContactsPageJson(t.ctx, ws, { lifecycle_stage: "customer" }, 10);
    expect(customers.json.text).toBe(
      JSON.stringify(expected.filter((c) => c.lifecycleStage === "customer").map(toContactJson)),
    );
    const searched = await listContactsPageJson(t.ctx, ws, { search: "micro" }, 10);
    expect(searched.json.text).toBe(
      JSON.stringify(expected.filter((c) => c.firstName === "Micro").map(toContactJson)),
    );
    await t.db.transaction(async (tx) => {
      const inTx = await listContactsPageJson({ db: tx as never }, ws, {}, 10);
      expect(inTx.json.text).toBe(expectedJson);
    });

    // a search's page read by ids (selectContactsPageByIds), as objects and as text
    const found = await listContacts(t.ctx, ws, { search: "example.com" });
    expect(found.contacts).toEqual(
      expected.filter((c) => c.email?.endsWith("example.com")).map(toContactJson),
    );
    expect((await listContactsJson(t.ctx, ws, { search: "example.com" })).contacts.text).toBe(
      JSON.stringify(found.contacts),
    );
    // the screen's list (GET /api/contacts): the same page as listContacts gives, as text
    for (const input of [{}, { stage: "customer" }, { limit: 2, page: 2 }, { search: "émile" }] as const) {
      const objects = await listContacts(t.ctx, ws, input);
      const text = await listContactsJson(t.ctx, ws, input);
      expect(text.contacts.text).toBe(JSON.stringify(objects.contacts));
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

  it("converts a timestamptz text in any session offset as a JS Date would, and numbers and jsonb outside the common forms as JSON.stringify would", () => {
    const props = ["id", "createdAt", "updatedAt", "firstName", "customFields", "latitude"] as const;
    const write = contactJsonWriter((p) => {
      const i = (props as readonly string[]).indexOf(p);
      return i < 0 ? props.length : i; // the other columns read the trailing null
    });
    /** A DataRow message of text columns (null: SQL null), as Postgres sends one. */
    const dataRow = (values: (string | null)[]) => {
      const cols = values.map((v) => {
        if (v === null) return Buffer.from([0xff, 0xff, 0xff, 0xff]);
        const bytes = Buffer.from(v, "utf8");
        const len = Buffer.alloc(4);
        len.writeInt32BE(bytes.length);
        return Buffer.concat([len, bytes]);
      });
      const body = Buffer.concat(cols);
      const head = Buffer.alloc(7);
      head[0] = 0x44;
      head.writeInt32BE(6 + body.length, 1);
      head.writeInt16BE(values.length, 5);
      return Buffer.concat([head, body]);
    };
    const run = (values: (string | null)[]) => {
      const msg = dataRow(values);
      const at = new Int32Array(2 * values.length);
      dataRowColumns(msg, at);
      const out = new JsonBytes(16); // small: the writer grows it
      write(msg, at, out);
      return JSON.parse(out.bytes().toString("utf8"));
    };
    for (const ts of [
      "2026-01-02 05:04:05.678912+02",
      "2026-01-02 03:04:05-05:30",
      "2026-01-02 03:04:05.1+00",
      "2026-01-02 03:04:05+00",
      "0999-01-02 03:04:05+00",
    ]) {
      const out = run(["7", ts, ts, "A", '{"a": 1}', "12.5", null]);
      expect(out.created_at).toBe(new Date(ts).toISOString());
      expect(out.updated_at).toBe(new Date(ts).toISOString());
      expect(out).toMatchObject({ id: 7, first_name: "A", custom_fields: { a: 1 }, latitude: 12.5 });
    }
    const ts = "2026-01-02 03:04:05+00";
    // escapes through the fallback while the (small) buffer grows, then the fast path again
    const escaped = run(["7", ts, ts, 'Zoë "q" \\ \n\u0001 ✓', '{"a": "x"}', "-83.89", null]);
    expect(escaped).toMatchObject({
      first_name: 'Zoë "q" \\ \n\u0001 ✓',
      custom_fields: { a: "x" },
      latitude: -83.89,
    });
    expect(escaped.created_at).toBe("2026-01-02T03:04:05.000Z");
    for (const [float, expected] of [
      ["1e-07", "1e-7"],
      ["-0", "0"],
      ["1e+20", "100000000000000000000"],
      ["NaN", "null"],
      ["Infinity", "null"],
      ["0.30000000000000004", "0.30000000000000004"],
      ["-179.999999", "-179.999999"],
    ] as const) {
      const msg = dataRow(["7", ts, ts, "A", "{}", float, null]);
      const at = new Int32Array(14);
      dataRowColumns(msg, at);
      const out = new JsonBytes();
      write(msg, at, out);
      expect(out.bytes().toString()).toContain(`"latitude":${expected},`);
      expect(JSON.stringify(Number(float))).toBe(expected);
    }
    // jsonb in Postgres's text form (spaces, key order) comes out as JSON.stringify(JSON.parse(text))
    const custom = '{"b": "x \\"q\\"", "10": 1.50, "a": [1, 2]}';
    const outCustom = new JsonBytes();
    const msg = dataRow(["7", ts, ts, "A", custom, null, null]);
    const at = new Int32Array(14);
    dataRowColumns(msg, at);
    write(msg, at, outCustom);
    expect(outCustom.bytes().toString()).toContain(`"custom_fields":${JSON.stringify(JSON.parse(custom))},`);
  });
});
