import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contactImports } from "../../src/server/db/schema";
import { MAX_FIELD_CHARS } from "../../src/server/features/crm/crm.import";
import { importContactsJob, importStorageKey } from "../../src/server/features/crm/crm.jobs";
import { handlerOf } from "../../src/server/jobs/registry";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** On the Enterprise plan (unlimited contacts): these files hold more rows than the free plan allows. */
async function signUpUnlimited() {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "enterprise");
  return s;
}

type ImportRow = Record<string, unknown> & {
  errors: { line: number; reason: string; kept?: boolean; field?: string }[];
};

/** Runs the import job over `file` for `workspaceId` as a worker would; returns the stored import row. */
async function runImport(workspaceId: string, file: string): Promise<ImportRow> {
  const importId = randomUUID();
  await t.providers.storage.putFile(importStorageKey(importId), file, { contentType: "text/csv" });
  await t.db.insert(contactImports).values({
    id: importId,
    workspaceId,
    fileName: path.basename(file),
    fileSize: fs.statSync(file).size,
  });
  await handlerOf(importContactsJob).handler(
    { importId },
    { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log },
    { id: randomUUID(), retryCount: 0 },
  );
  const [row] = await t.sql`select * from contact_imports where id = ${importId}`;
  return row as ImportRow;
}

/** Writes `head`, then `lines` lines made by `line(i)`, then `tail` to a file in the data dir. */
function writeCsv(name: string, head: string, lines: number, line: (i: number) => string, tail = "") {
  const file = path.join(t.env.DATA_DIR, name);
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, head);
  let buf = "";
  for (let i = 0; i < lines; i++) {
    buf += line(i);
    if (buf.length > 1024 * 1024) {
      fs.writeSync(fd, buf);
      buf = "";
    }
  }
  fs.writeSync(fd, buf + tail);
  fs.closeSync(fd);
  return file;
}

async function contactCount(workspaceId: string) {
  const [{ n }] = await t.sql`select count(*)::int as n from contacts where workspace_id = ${workspaceId}`;
  return n as number;
}

describe("CSV quotes and line ends the record limiter and papaparse read alike (defect: field-size limit bypass)", () => {
  it('a stray quote ("x"y,) before 25 MB of lines: that row is reported, the lines after it are imported, in bounded time', async () => {
    const { user } = await signUpUnlimited();
    const pad = "n".repeat(960);
    const rows = 25_000;
    const file = writeCsv(
      "stray-quote.csv",
      `email,name,notes\n"x"y,Bad Row,${pad}\n`,
      rows,
      (i) => `u${i}@stray.example,User ${i},${pad}\n`,
    );
    expect(fs.statSync(file).size).toBeGreaterThan(23 * 1024 * 1024);
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const started = Date.now();
    const imp = await runImport(user.id, file);
    const seconds = (Date.now() - started) / 1000;
    const growth = process.resourceUsage().maxRSS * 1024 - peakBefore;
    expect(imp).toMatchObject({
      status: "completed",
      rows_processed: rows + 1,
      created: rows,
      error_count: 1,
    });
    expect(imp.errors).toHaveLength(1);
    expect(imp.errors[0]?.line).toBe(2);
    expect(imp.errors[0]?.reason).toMatch(/^The row has a quote in the middle of a field \("x"y\)/);
    expect(await contactCount(user.id)).toBe(rows);
    // before the fix papaparse held the rest of the file as one field: ~6 s per 20 MB, growing
    // with the square of the size, and hundreds of MB of memory
    expect(seconds).toBeLessThan(90);
    expect(growth).toBeLessThan(400 * 1024 * 1024);
  }, 180_000);

  it("a lone CR inside a field of an LF file does not end the row: a 20 MB field of CR-separated pieces is rejected as too long", async () => {
    const { user } = await signUpUnlimited();
    const piece = `${"y".repeat(999)}\r`;
    const file = writeCsv(
      "lone-cr.csv",
      "email,name\ncr@cr.example,",
      20_000,
      () => piece,
      `\nann@cr.example,Ann\rBee\n${Array.from({ length: 100 }, (_, i) => `v${i}@cr.example,V ${i}\n`).join("")}`,
    );
    const imp = await runImport(user.id, file);
    expect(imp).toMatchObject({ status: "completed", rows_processed: 102, created: 101, error_count: 1 });
    expect(imp.errors).toEqual([
      {
        line: 2,
        reason: `A field is longer than ${MAX_FIELD_CHARS.toLocaleString("en-US")} characters; the row was not read`,
      },
    ]);
    // a short field with a lone CR is a field with a CR in it (as papaparse reads it), not two rows
    const [ann] =
      await t.sql`select first_name, last_name from contacts where workspace_id = ${user.id} and email = 'ann@cr.example'`;
    expect(ann).toEqual({ first_name: "Ann", last_name: "Bee" });
  }, 120_000);
});

describe("malformed quotes are reported by line, the rows after them imported (defect: silent swallowing)", () => {
  it('a quote in the middle of a field ("Bobby" Jones) rejects that row only; the 200 rows after it are imported', async () => {
    const { user } = await signUpUnlimited();
    const normal = Array.from({ length: 200 }, (_, i) => `n${i}@quote.com,Normal ${i}\n`).join("");
    const file = path.join(t.env.DATA_DIR, "mid-quote.csv");
    fs.writeFileSync(
      file,
      `email,name\nq1@quote.com,"Bobby" Jones\n${normal}q2@quote.com,"Ed Evans"\nlast@quote.com,Last One\n`,
    );
    const imp = await runImport(user.id, file);
    expect(imp).toMatchObject({ status: "completed", rows_processed: 203, created: 202, error_count: 1 });
    expect(imp.errors).toHaveLength(1);
    expect(imp.errors[0]).toMatchObject({ line: 2 });
    expect(imp.errors[0]?.reason).toBe(
      'The row has a quote in the middle of a field ("Bobby" J): a field that starts with a quote must end with a quote followed by a comma or the end of the line, and a quote inside it must be doubled (""). The row was not read; the lines after it were read as rows',
    );
    const got =
      await t.sql`select email, first_name, last_name from contacts where workspace_id = ${user.id} and email in ('q2@quote.com', 'n199@quote.com', 'q1@quote.com') order by email`;
    expect(got).toEqual([
      { email: "n199@quote.com", first_name: "Normal", last_name: "199" },
      { email: "q2@quote.com", first_name: "Ed", last_name: "Evans" },
    ]);
  });

  it("an unterminated quote rejects its row and the line after it is still imported", async () => {
    const { user } = await signUpUnlimited();
    const file = path.join(t.env.DATA_DIR, "unterminated.csv");
    fs.writeFileSync(file, 'email,name\n"a@h6.com","unterminated\nb@h6.com,B');
    const imp = await runImport(user.id, file);
    expect(imp).toMatchObject({ status: "completed", rows_processed: 2, created: 1, error_count: 1 });
    expect(imp.errors[0]).toMatchObject({ line: 2 });
    expect(imp.errors[0]?.reason).toMatch(
      /^The row has a field that starts with a quote and is never closed/,
    );
    const got = await t.sql`select email, first_name from contacts where workspace_id = ${user.id}`;
    expect(got).toEqual([{ email: "b@h6.com", first_name: "B" }]);
  });

  it("a name too long for the contact is left out with a warning, not cut silently", async () => {
    const { user } = await signUpUnlimited();
    const file = path.join(t.env.DATA_DIR, "long-name.csv");
    fs.writeFileSync(file, `email,name\nlong@name.com,Ann ${"z".repeat(600)}\n`);
    const imp = await runImport(user.id, file);
    expect(imp).toMatchObject({ status: "completed", rows_processed: 1, created: 1, error_count: 0 });
    expect(imp.errors).toEqual([
      expect.objectContaining({
        line: 2,
        kept: true,
        field: "last_name",
        reason: expect.stringMatching(/^Last name '/),
      }),
    ]);
    const [c] = await t.sql`select first_name, last_name from contacts where workspace_id = ${user.id}`;
    expect(c).toEqual({ first_name: "Ann", last_name: null });
  });
});
