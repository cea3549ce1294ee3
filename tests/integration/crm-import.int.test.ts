import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contactImports } from "../../src/server/db/schema";
import { ContactImporter, indexImportSearch } from "../../src/server/features/crm/crm.import";
import { importContactsJob, importStorageKey } from "../../src/server/features/crm/crm.jobs";
import { handlerOf } from "../../src/server/jobs/registry";
import { type ImportRecord, importCsv, uploadContactsFile } from "../contacts-import";
import {
  type AuthedClient,
  createTestApp,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";

let t: TestApp;

/** Import mechanics are tested on the Enterprise plan (unlimited contacts); the limit in billing-limits. */
async function signUpUnlimited() {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "enterprise");
  return s;
}
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const upload = uploadContactsFile;

type ImportJson = ImportRecord;

/** Uploads and returns the finished import (the inline job client runs the job during the request). */
async function importFile(
  client: AuthedClient,
  name: string,
  content: Buffer | string,
  fields: Record<string, string> = {},
) {
  return await importCsv(client, content, fields, name);
}

const csvDir = SHARED_DATA ? path.join(SHARED_DATA, "csv") : "";
const readShared = (name: string) => fs.readFileSync(path.join(csvDir, name));

describe.skipIf(!SHARED_DATA)(`shared CSV files (${SHARED_DATA ? "present" : SHARED_DATA_MISSING})`, () => {
  it.each([
    ["datablist-customers-100.csv", 100],
    ["datablist-people-100.csv", 100],
    ["csv_semicolon.csv", 2],
  ])("%s imports %i contacts through the streaming upload", async (file, expected) => {
    const { client } = await signUpUnlimited();
    const imp = await importFile(client, file, readShared(file));
    expect(imp).toMatchObject({
      status: "completed",
      rows_processed: expected,
      created: expected,
      imported: expected,
      errors: 0,
      progress: 1,
    });
    const list = (await client.get("/api/contacts?limit=1")).json();
    expect(list.pagination.total).toBe(expected);
  });

  it("datablist-customers-100.csv keeps quoted commas, messy phones (raw + E.164) and maps company/city/country/website", async () => {
    const { client } = await signUpUnlimited();
    await importFile(client, "c.csv", readShared("datablist-customers-100.csv"));
    const linda = (await client.get("/api/contacts?search=stanleyblackwell@benson.org")).json().contacts[0];
    expect(linda).toMatchObject({
      first_name: "Linda",
      last_name: "Olsen",
      company: "Dominguez, Mcmillan and Donovan",
      city: "Bensonview",
      country: "Dominican Republic",
      phone: "001-808-617-6467x12895",
      website: "http://www.good-lyons.com/",
      lead_source: "csv_import",
    });
    const sheryl = (await client.get("/api/contacts?search=zunigavanessa@smith.info")).json().contacts[0];
    // 229-077-xxxx has an exchange starting with 0: not a valid North American number (libphonenumber),
    // so the row is kept as typed with no E.164 and cannot be texted or called (issue 14)
    expect(sheryl).toMatchObject({ phone: "229.077.5154", phone_e164: null });
    const d = (await client.get(`/api/contacts/${sheryl.id}`)).json();
    expect(d.activities.map((a: { activity_type: string }) => a.activity_type)).toEqual(["imported"]);
  });

  it("datablist-people-100.csv maps quoted job titles", async () => {
    const { client } = await signUpUnlimited();
    await importFile(client, "p.csv", readShared("datablist-people-100.csv"));
    const c = (await client.get("/api/contacts?search=elijah57@example.net")).json().contacts[0];
    expect(c).toMatchObject({ first_name: "Shelby", last_name: "Terrell", job_title: "Games developer" });
  });

  it("datablist-customers-10000.csv: 10,000 created; re-import skips all; update mode changes nothing and says so", async () => {
    const { client, user } = await signUpUnlimited();
    const content = readShared("datablist-customers-10000.csv");
    let imp = await importFile(client, "big.csv", content);
    expect(imp).toMatchObject({
      status: "completed",
      rows_processed: 10_000,
      created: 10_000,
      skipped: 0,
      errors: 0,
    });
    expect((await client.get("/api/contacts?limit=1")).json().pagination.total).toBe(10_000);
    imp = await importFile(client, "big.csv", content);
    expect(imp).toMatchObject({ status: "completed", created: 0, updated: 0, skipped: 10_000, imported: 0 });
    // the same file in update mode: every row equals its contact, so none is written (they kept
    // their updated_at) and all count as skipped, where it said "updated: 10,000"
    const [{ stamp }] =
      await t.sql`select max(updated_at)::text as stamp from contacts where workspace_id = ${user.id}`;
    imp = await importFile(client, "big.csv", content, { on_duplicate: "update" });
    expect(imp).toMatchObject({
      status: "completed",
      created: 0,
      updated: 0,
      skipped: 10_000,
      imported: 0,
    });
    const [{ stamp: after }] =
      await t.sql`select max(updated_at)::text as stamp from contacts where workspace_id = ${user.id}`;
    expect(after).toBe(stamp);
    // one row changed in the file: that contact alone is updated
    const edited = Buffer.from(
      content.toString("utf8").replace(",Heather,Callahan,", ",Heathcliff,Callahan,"),
    );
    expect(edited.equals(content)).toBe(false);
    imp = await importFile(client, "big.csv", edited, { on_duplicate: "update" });
    expect(imp).toMatchObject({ status: "completed", created: 0, updated: 1, skipped: 9_999, imported: 1 });
    expect((await client.get("/api/contacts?limit=1")).json().pagination.total).toBe(10_000);
  });

  it("semicolon export from Thunderbird: names and emails", async () => {
    const { client } = await signUpUnlimited();
    await importFile(client, "tb.csv", readShared("csv_semicolon.csv"));
    const names = (await client.get("/api/contacts"))
      .json()
      .contacts.map(
        (c: { first_name: string; last_name: string; email: string }) =>
          `${c.first_name} ${c.last_name} <${c.email}>`,
      );
    expect(names.sort()).toEqual(["Jane Doe <jane@doe.invalid>", "John Doe <john@doe.invalid>"]);
  });

  const spectrum = [
    ["comma_in_quotes.csv", 1],
    ["empty.csv", 2],
    ["empty_crlf.csv", 2],
    ["escaped_quotes.csv", 2],
    ["json.csv", 1],
    ["location_coordinates.csv", 1],
    ["newlines.csv", 3],
    ["newlines_crlf.csv", 3],
    ["quotes_and_newlines.csv", 2],
    ["simple.csv", 1],
    ["simple_crlf.csv", 1],
    ["utf8.csv", 2],
  ] as const;

  it.each(spectrum)(
    "csv-spectrum/%s has no email column: 422 with a clear message, nothing imported",
    async (file) => {
      const { client } = await signUpUnlimited();
      const res = await upload(client, { name: file, content: readShared(`csv-spectrum/${file}`) });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatch(
        /^No email column found \(columns: .+\)\. Every contact needs an email; map a column to Email\.$/,
      );
      expect((await client.get("/api/contacts")).json().pagination.total).toBe(0);
    },
  );

  it.each(spectrum)(
    "csv-spectrum/%s mapped by hand: every one of its %i records is read and rejected with its line",
    async (file, records) => {
      const { client } = await signUpUnlimited();
      const imp = await importFile(client, file, readShared(`csv-spectrum/${file}`), {
        mapping: JSON.stringify({ email: 0, first_name: 1 }),
      });
      expect(imp).toMatchObject({
        status: "completed",
        rows_processed: records,
        created: 0,
        errors: records,
      });
      expect(imp.error_rows.map((e) => e.line)).toEqual(Array.from({ length: records }, (_, i) => i + 2));
      for (const e of imp.error_rows) expect(e.reason).toMatch(/^(Invalid email '.*'|Missing email)$/s);
    },
  );

  it("encoding/node-csv-365-utf8-bom-windows.csv: the BOM is stripped from the first header", async () => {
    const { client } = await signUpUnlimited();
    const imp = await importFile(
      client,
      "bom.csv",
      readShared("encoding/node-csv-365-utf8-bom-windows.csv"),
      { mapping: JSON.stringify({ email: 0 }) },
    );
    expect(imp).toMatchObject({ status: "completed", rows_processed: 1, errors: 1 });
    expect(imp.error_rows).toEqual([{ line: 2, reason: "Invalid email '1'", kept: false }]);
    const res = await upload(client, {
      name: "bom.csv",
      content: readShared("encoding/node-csv-365-utf8-bom-windows.csv"),
    });
    expect(res.json().error).toContain("(columns: a, b, c)");
  });
});

describe("CSV dialects and encodings", () => {
  const header = "First Name,Last Name,Email,Phone,Company,City,State\r\n";
  const row = 'José,Núñez,jose@example.com,(989) 555-0101,"Café ""Olé"", Inc.",Bay City,MI\r\n';

  it("UTF-8 with BOM, CRLF, quotes and embedded newlines", async () => {
    const { client, user } = await signUpUnlimited();
    const content = `\uFEFF${header}${row}Ann,Lee,ann@example.com,,"Multi\nLine Co",Saginaw,MI\r\n`;
    const imp = await importFile(client, "utf8.csv", content);
    expect(imp).toMatchObject({ created: 2, errors: 0 });
    // the import's follow-up job (run inline here) has put them into the trigram index
    const indexed = await t.sql`select search_indexed from contacts where workspace_id = ${user.id}`;
    expect(indexed.map((r) => r.search_indexed)).toEqual([true, true]);
    const jose = (await client.get("/api/contacts?search=jose@example.com")).json().contacts[0];
    expect(jose).toMatchObject({
      first_name: "José",
      last_name: "Núñez",
      company: 'Café "Olé", Inc.',
      phone_e164: "+19895550101",
      city: "Bay City",
      state: "MI",
    });
    const ann = (await client.get("/api/contacts?search=ann@example.com")).json().contacts[0];
    expect(ann.company).toBe("Multi\nLine Co");
    // geocoded after the import (Bay City, MI centroid)
    const d = (await client.get(`/api/contacts/${jose.id}`)).json();
    expect(d.contact.latitude).toBeCloseTo(43.64, 1);
  });

  it("UTF-16 LE with BOM, tab-delimited", async () => {
    const { client } = await signUpUnlimited();
    const text = `\uFEFF${header.replace(/,/g, "\t")}Zoë\tÅberg\tzoe@example.com\t\tNordic\tDetroit\tMI\r\n`;
    const imp = await importFile(client, "utf16.csv", Buffer.from(text, "utf16le"));
    expect(imp).toMatchObject({ created: 1, errors: 0 });
    const c = (await client.get("/api/contacts")).json().contacts[0];
    expect(c).toMatchObject({ first_name: "Zoë", last_name: "Åberg", company: "Nordic" });
  });

  it("Latin-1 (Windows-1252), semicolon-delimited", async () => {
    const { client } = await signUpUnlimited();
    const text =
      "Vorname First Name;Last Name;E-Mail;Firma Company\nJürgen;Müller;jm@example.de;Bäckerei Größe\n";
    const imp = await importFile(client, "latin1.csv", Buffer.from(text, "latin1"));
    expect(imp).toMatchObject({ created: 1, errors: 0 });
    const c = (await client.get("/api/contacts")).json().contacts[0];
    expect(c).toMatchObject({
      first_name: "Jürgen",
      last_name: "Müller",
      email: "jm@example.de",
      company: "Bäckerei Größe",
    });
  });

  it("reported lines count blank rows, as a spreadsheet numbers the rows (they were reported too early)", async () => {
    const { client } = await signUpUnlimited();
    const stamp = Date.now();
    const content = [
      "Name,Email",
      "",
      `Ann Blank,ann-${stamp}@example.com`,
      "  ",
      ",",
      "Bob Blank,not-an-email",
      "",
    ].join("\r\n");
    const imp = await importFile(client, "blank-rows.csv", content);
    expect(imp).toMatchObject({ status: "completed", rows_processed: 2, created: 1, errors: 1 });
    expect(imp.error_rows).toEqual([{ line: 6, reason: "Invalid email 'not-an-email'", kept: false }]);
  });

  it("rejected rows are reported with line and reason, and downloadable as CSV", async () => {
    const { client } = await signUpUnlimited();
    const content =
      "Name,Email,Lifecycle Stage,Lead Score\n" +
      "Ok Person,ok@example.com,Customer,10\n" +
      "No Email,,lead,1\n" +
      "Bad Email,not-an-email,lead,1\n" +
      "Dup Person,OK@example.com,lead,1\n" +
      "Bad Stage,bs@example.com,whale,1\n" +
      "Bad Score,sc@example.com,lead,101\n" +
      "=Evil,evil@example.com,lead,\n";
    const imp = await importFile(client, "mixed.csv", content);
    expect(imp).toMatchObject({ status: "completed", rows_processed: 7, created: 2, errors: 5 });
    expect(imp.error_rows).toEqual([
      { line: 3, reason: "Missing email", kept: false },
      { line: 4, reason: "Invalid email 'not-an-email'", kept: false },
      { line: 5, reason: "Duplicate email ok@example.com, already on line 2", kept: false },
      {
        line: 6,
        reason: "Lifecycle stage 'whale' is not one of subscriber, lead, prospect, customer, advocate",
        kept: false,
      },
      { line: 7, reason: "Lead score '101' must be a whole number from 0 to 100", kept: false },
    ]);
    const ok = (await client.get("/api/contacts?search=ok@example.com")).json().contacts[0];
    expect(ok).toMatchObject({
      first_name: "Ok",
      last_name: "Person",
      lifecycle_stage: "customer",
      lead_score: 10,
    });
    const res = await client.get(`/api/contacts/imports/${imp.id}/errors.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/csv");
    const lines = res.body.trim().split(/\r?\n/);
    expect(lines[0]).toBe("line,reason,row,imported");
    expect(lines).toHaveLength(6);
    expect(lines[1]).toBe('3,Missing email,"No Email,,lead,1",no');
    // another user cannot read this import
    const other = await signUpUnlimited();
    expect((await other.client.get(`/api/contacts/imports/${imp.id}`)).statusCode).toBe(404);
    expect((await other.client.get(`/api/contacts/imports/${imp.id}/errors.csv`)).statusCode).toBe(404);
  });

  it("update mode overwrites mapped non-empty fields only", async () => {
    const { client } = await signUpUnlimited();
    await importFile(client, "a.csv", "email,company,city\nu@example.com,Old Co,Flint\n");
    const imp = await importFile(client, "b.csv", "email,company,city\nu@example.com,New Co,\n", {
      on_duplicate: "update",
    });
    expect(imp).toMatchObject({ updated: 1, created: 0 });
    const c = (await client.get("/api/contacts")).json().contacts[0];
    expect(c).toMatchObject({ company: "New Co", city: "Flint" });
  });
});

describe("search index catch-up after a file import", () => {
  it("finds the contacts before the follow-up job indexes them, and after; typos once it has run", async () => {
    const { client, user } = await signUpUnlimited();
    const other = await signUpUnlimited();
    const importId = randomUUID();
    // what the import job does: contacts written with the search indexes deferred
    const importer = new ContactImporter(t.sql, user.id, {
      onDuplicate: "skip",
      mappedFields: new Set(["first_name", "last_name", "email", "company"]),
      source: "csv_import",
      importId,
      deferSearchIndex: true,
    });
    await importer.open();
    await importer.add(
      ["Zebulon", "Ximena", "Yolanda"].map((first, i) => ({
        line: i + 2,
        values: {
          first_name: first,
          last_name: "Quackenbush",
          email: `${first}@fjordline.example`,
          company: "Fjordline",
        },
      })),
    );
    expect(await importer.finish()).toMatchObject({ created: 3, errorCount: 0 });
    const flags = async () =>
      (await t.sql`select search_indexed from contacts where workspace_id = ${user.id}`).map(
        (r) => r.search_indexed,
      );
    expect(await flags()).toEqual([false, false, false]);
    const names = async (c: typeof client, q: string) =>
      (await c.get(`/api/contacts?search=${encodeURIComponent(q)}`))
        .json()
        .contacts.map((x: { first_name: string }) => x.first_name)
        .sort();
    // pending: found by substring (name, company, email), not by another account
    expect(await names(client, "quackenb")).toEqual(["Ximena", "Yolanda", "Zebulon"]);
    expect(await names(client, "fjordline.ex")).toEqual(["Ximena", "Yolanda", "Zebulon"]);
    expect(await names(client, "zebulon@")).toEqual(["Zebulon"]);
    expect(await names(other.client, "quackenb")).toEqual([]);
    // the typo dictionary waits for the follow-up job
    expect(await names(client, "quackenbash")).toEqual([]);

    expect(await indexImportSearch(t.sql, user.id, importId)).toEqual({ words: 5, indexed: 3 });
    expect(await flags()).toEqual([true, true, true]);
    expect(await names(client, "quackenb")).toEqual(["Ximena", "Yolanda", "Zebulon"]);
    expect(await names(client, "quackenbash")).toEqual(["Ximena", "Yolanda", "Zebulon"]);
    expect(await names(other.client, "quackenb")).toEqual([]);
    // a second run finds nothing left to do
    expect(await indexImportSearch(t.sql, user.id, importId)).toEqual({ words: 0, indexed: 0 });
  });
});

describe("files of several batches (two writers)", () => {
  const rowsCsv = (n: number, tag: string, at?: { line: number; company: string }) => {
    const out = ["first_name,last_name,email,company"];
    for (let i = 2; i <= n + 1; i++)
      out.push(`F${i},L${i},${tag}-${i}@example.com,${at && at.line === i ? at.company : `Co ${i}`}`);
    return `${out.join("\n")}\n`;
  };

  it("a NUL character rejects its row, not the batch", async () => {
    const { client } = await signUpUnlimited();
    const imp = await importFile(
      client,
      "nul.csv",
      rowsCsv(25_000, "nul", { line: 20_001, company: "Bad\u0000Co" }),
    );
    expect(imp).toMatchObject({ status: "completed", rows_processed: 25_000, created: 24_999, errors: 1 });
    expect(imp.error_rows[0]).toMatchObject({
      line: 20_001,
      reason: "The row contains a NUL character (binary data)",
    });
    expect((await client.get("/api/contacts?search=nul-25001@")).json().pagination.total).toBe(1);
  });

  it("a batch failing in the background fails the import; committed batches stay and the next import works", async () => {
    const { client, user } = await signUpUnlimited();
    const tag = `boom${process.pid}${Date.now()}`;
    // a row Postgres refuses in the third batch, while the second may still be in flight
    await t.sql.unsafe(`
      create or replace function ${tag}() returns trigger language plpgsql as $$
      begin
        if new.email = '${tag}-25000@example.com' then raise exception 'refused by test'; end if;
        return new;
      end $$;
      create trigger ${tag} before insert on contacts for each row execute function ${tag}();`);
    let imp: ImportJson;
    try {
      imp = await importFile(client, "boom.csv", rowsCsv(30_000, tag));
    } finally {
      await t.sql.unsafe(`drop trigger if exists ${tag} on contacts; drop function if exists ${tag}();`);
    }
    expect(imp).toMatchObject({
      status: "failed",
      failure_reason: "The import failed unexpectedly; no further rows were imported",
    });
    const [{ n, pending }] = await t.sql`
      select count(*)::int as n, count(*) filter (where not search_indexed)::int as pending
      from contacts where workspace_id = ${user.id}`;
    // batches 1 and 2 were committed; the follow-up still put them into the search index
    expect(n).toBe(20_000);
    expect(pending).toBe(0);
    const again = await importFile(client, "again.csv", rowsCsv(30_000, tag));
    expect(again).toMatchObject({ status: "completed", created: 10_000, skipped: 20_000 });
  });
});

describe("an import whose worker died", () => {
  it.each([
    ["skip", { created: 1_200, updated: 0, skipped: 1 }],
    ["update", { created: 1_200, updated: 1, skipped: 0 }],
  ] as const)(
    "runs again from the start (%s mode): nothing lost, nothing twice, exact totals",
    async (mode, totals) => {
      const { client, user } = await signUpUnlimited();
      // a contact the user had before, also in the file
      expect(
        (await client.post("/api/contacts", { first_name: "Old", email: "old@example.com" })).statusCode,
      ).toBe(200);
      const lines = ["first_name,email,company", "Old,old@example.com,Again Co"];
      for (let i = 1; i <= 1_200; i++) lines.push(`P${i},p${i}@example.com,Co ${i}`);
      const file = path.join(t.env.DATA_DIR, `resume-${mode}.csv`);
      fs.writeFileSync(file, `${lines.join("\n")}\n`);
      const importId = randomUUID();
      await t.providers.storage.putFile(importStorageKey(importId), file, { contentType: "text/csv" });
      // what the first attempt left: the import processing, its first 500 contacts written
      await t.db.insert(contactImports).values({
        id: importId,
        workspaceId: user.id,
        fileName: "resume.csv",
        fileSize: fs.statSync(file).size,
        onDuplicate: mode,
        status: "processing",
        rowsProcessed: 501,
        created: 500,
      });
      const first = new ContactImporter(t.sql, user.id, {
        onDuplicate: mode,
        mappedFields: new Set(["first_name", "email", "company"]),
        source: "csv_import",
        importId,
        deferSearchIndex: true,
      });
      await first.open();
      await first.add(
        Array.from({ length: 500 }, (_, k) => ({
          line: k + 3,
          values: { first_name: `P${k + 1}`, email: `p${k + 1}@example.com`, company: `Co ${k + 1}` },
        })),
      );
      await first.finish();
      // pg-boss runs the job again (retryCount 1) once the dead worker's heartbeat has lapsed
      await handlerOf(importContactsJob).handler(
        { importId },
        { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log },
        { id: randomUUID(), retryCount: 1 },
      );
      const imp = (await client.get(`/api/contacts/imports/${importId}`)).json().import as ImportJson;
      expect(imp).toMatchObject({ status: "completed", rows_processed: 1_201, errors: 0, ...totals });
      const [counts] = await t.sql`
        select count(*)::int as n, count(distinct lower(email))::int as emails,
          count(*) filter (where not search_indexed)::int as pending,
          count(*) filter (where import_id = ${importId})::int as from_import
        from contacts where workspace_id = ${user.id}`;
      expect(counts).toEqual({ n: 1_201, emails: 1_201, pending: 0, from_import: 1_200 });
      const old = (await client.get("/api/contacts?search=old@example.com")).json().contacts[0];
      expect(old.company).toBe(mode === "update" ? "Again Co" : null);
    },
  );
});

describe("bad uploads", () => {
  it("non-CSV extension, binary content, empty file, 50 MB of garbage, not multipart, bad mapping", async () => {
    const { client } = await signUpUnlimited();
    let res = await upload(client, {
      name: "photo.png",
      content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
      type: "image/png",
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ success: false, error: "Only .csv files can be imported" });
    res = await upload(client, {
      name: "photo.csv",
      content: Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
        randomBytes(2000),
      ]),
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toBe("This file is not a CSV text file. Please upload a .csv file.");
    res = await upload(client, { name: "empty.csv", content: "" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("The file is empty");
    res = await upload(client, { name: "blank.csv", content: "\n\n\n" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("The file has no header row");
    res = await upload(client, { name: "garbage.csv", content: randomBytes(50 * 1024 * 1024) });
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toBe("This file is not a CSV text file. Please upload a .csv file.");
    res = await client.post("/api/contacts/import/upload", { file: "a,b" });
    expect(res.statusCode).toBe(415);
    res = await upload(client, { name: "m.csv", content: "email\na@b.co\n" }, { mapping: "{nope" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("mapping must be a JSON object of field -> column index");
    res = await upload(
      client,
      { name: "m.csv", content: "email\na@b.co\n" },
      { mapping: JSON.stringify({ email: 5 }) },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("The mapping points at column 6, but the file has 1 columns");
    res = await upload(
      client,
      { name: "m.csv", content: "email\na@b.co\n" },
      { mapping: JSON.stringify({ shoe_size: 0 }) },
    );
    expect(res.statusCode).toBe(400);
    expect((await client.get("/api/contacts")).json().pagination.total).toBe(0);
    // leftovers are cleaned up
    const dir = path.join(t.env.DATA_DIR, "imports");
    expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
  });

  it("an unknown import id gives 404", async () => {
    const { client } = await signUpUnlimited();
    expect((await client.get("/api/contacts/imports/00000000-0000-0000-0000-000000000000")).statusCode).toBe(
      404,
    );
    expect((await client.get("/api/contacts/imports/nope")).statusCode).toBe(404);
  });
});

describe("POST /api/contacts/import (JSON)", () => {
  it("imports the documented rows and returns success, imported, errors", async () => {
    const { client } = await signUpUnlimited();
    const res = await client.post("/api/contacts/import", {
      contacts: [
        {
          first_name: "A",
          last_name: "One",
          email: "a1@example.com",
          phone: "9895550111",
          company: "Co",
          city: "Bay City",
          state: "MI",
        },
        { first_name: "B", email: "" },
        { first_name: "C", email: { nested: true } },
        { first_name: "D", email: "d@example.com", phone: 9895550112 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      imported: 2,
      created: 2,
      updated: 0,
      skipped: 0,
      errors: 2,
      phone_invalid: 0,
      fields_cleared: 0,
      opt_outs_kept: 0,
      error_rows: [
        { line: 2, reason: "Missing email", kept: false },
        { line: 3, reason: "email must be text, not object", kept: false },
      ],
    });
    const d = (await client.get("/api/contacts?search=d@example.com")).json().contacts[0];
    expect(d.phone_e164).toBe("+19895550112");
  });

  it("an upload's on_duplicate other than skip or update is refused (it was read as skip); blank is skip", async () => {
    const { client } = await signUpUnlimited();
    await importFile(client, "first.csv", "email,first_name\nsame@example.com,Ann\n");
    for (const value of ["overwrite", "UPDATE", "update "]) {
      const res = await upload(
        client,
        { name: "again.csv", content: "email,first_name\nsame@example.com,Bea\n" },
        {
          on_duplicate: value,
        },
      );
      expect(res.statusCode, value).toBe(400);
      expect(res.json().error).toBe("On duplicate must be one of: skip, update");
    }
    const blank = await importFile(client, "blank.csv", "email,first_name\nsame@example.com,Cy\n", {
      on_duplicate: "",
    });
    expect(blank.status === "queued" || blank.status === "processing" || blank.status === "completed").toBe(
      true,
    );
    const contact = async () => (await client.get("/api/contacts?search=same@example.com")).json().contacts;
    await expect
      .poll(async () => (await client.get(`/api/contacts/imports/${blank.id}`)).json().import.status, {
        timeout: 30_000,
      })
      .toBe("completed");
    expect((await contact()).map((c: { first_name: string }) => c.first_name)).toEqual(["Ann"]);
  });

  it("wrong types give 400", async () => {
    const { client } = await signUpUnlimited();
    for (const body of [
      {},
      { contacts: "a,b,c" },
      { contacts: [1, 2] },
      { contacts: [{ email: "a@b.co" }], on_duplicate: "merge" },
    ]) {
      const res = await client.post("/api/contacts/import", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().success).toBe(false);
    }
    const res = await client.inject({
      method: "POST",
      url: "/api/contacts/import",
      payload: "garbage",
      headers: { "content-type": "text/plain" },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Send a JSON object: {"contacts": [{"first_name", "email", ...}]}');
  });
});
