import { randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contactImports } from "../../src/server/db/schema";
import { MAX_FIELD_CHARS } from "../../src/server/features/crm/crm.import";
import { importContactsJob, importStorageKey } from "../../src/server/features/crm/crm.jobs";
import { handlerOf } from "../../src/server/jobs/registry";
import { createTestApp, signUp, TEST_ORIGIN, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** Runs the import job over `file` for `workspaceId` as a worker would; returns the stored import row. */
async function runImport(workspaceId: string, file: string) {
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
  return row as Record<string, unknown> & { errors: { line: number; reason: string }[] };
}

describe("a CSV with a huge cell (issue 11 #6)", () => {
  it("a 95 MB single-field row is rejected with its line number and the import's memory stays flat", async () => {
    const { user } = await signUp(t.app);
    const file = path.join(t.env.DATA_DIR, "huge-cell.csv");
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, "first_name,email\nAda,ada@example.com\n");
    const mb = Buffer.alloc(1024 * 1024, "x");
    for (let i = 0; i < 95; i++) fs.writeSync(fd, mb);
    fs.writeSync(fd, "\nGrace,grace@example.com\n");
    fs.closeSync(fd);

    const rssBefore = process.memoryUsage().rss;
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const imp = await runImport(user.id, file);
    const peakAfter = process.resourceUsage().maxRSS * 1024;
    // how far the import pushed the process's peak resident memory (0 when it stayed under an
    // earlier peak); before the fix the import alone took it to ~2 GB
    const growth = peakAfter - peakBefore;
    expect(
      growth,
      `peak RSS ${Math.round(peakAfter / 1e6)} MB, before ${Math.round(peakBefore / 1e6)} MB (current ${Math.round(rssBefore / 1e6)} MB)`,
    ).toBeLessThan(300 * 1024 * 1024);

    expect(imp.status).toBe("completed");
    expect(imp).toMatchObject({ rows_processed: 3, created: 2, error_count: 1 });
    expect(imp.errors).toEqual([
      {
        line: 3,
        reason: `A field is longer than ${MAX_FIELD_CHARS.toLocaleString("en-US")} characters; the row was not read`,
      },
    ]);
    const [{ n }] = await t.sql`select count(*)::int as n from contacts where workspace_id = ${user.id}`;
    expect(n).toBe(2);
  }, 120_000);

  it("an over-long row is rejected by line while its neighbours import; a huge header fails the import readably", async () => {
    const { user } = await signUp(t.app);
    const long = Array.from({ length: 40 }, () => "y".repeat(8000)).join(",");
    const file = path.join(t.env.DATA_DIR, "long-row.csv");
    fs.writeFileSync(file, `first_name,email\nA,a@example.com\nB,b@example.com,${long}\nC,c@example.com\n`);
    const imp = await runImport(user.id, file);
    expect(imp).toMatchObject({ status: "completed", rows_processed: 3, created: 2, error_count: 1 });
    expect(imp.errors[0]).toMatchObject({
      line: 3,
      reason: expect.stringMatching(/^The row is longer than/),
    });

    const header = path.join(t.env.DATA_DIR, "huge-header.csv");
    fs.writeFileSync(header, `email,${"h".repeat(MAX_FIELD_CHARS + 1)}\na@example.com,1\n`);
    const bad = await runImport(user.id, header);
    expect(bad).toMatchObject({ status: "failed" });
    expect(bad.failure_reason).toMatch(/^The header row cannot be read: a field is longer than/);
  });
});

describe("upload spool cleanup (issue 11 #7)", () => {
  it("a client that aborts mid-upload leaves no file behind", async () => {
    const { cookie } = await signUp(t.app);
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (t.app.server.address() as net.AddressInfo).port;
    const spool = path.join(t.env.DATA_DIR, "imports");
    const boundary = "----pwabort";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nfirst_name,email\n`;
    const sock = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => sock.once("connect", () => resolve()));
    sock.write(
      `POST /api/contacts/import/upload HTTP/1.1\r\nHost: localhost:80\r\nOrigin: ${TEST_ORIGIN}\r\nCookie: ${cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n${head}`,
    );
    const rows = Buffer.from("Someone,someone@example.com\n".repeat(20_000));
    sock.write(rows);
    // the server has started spooling the file
    const deadline = Date.now() + 10_000;
    while (!(fs.existsSync(spool) && fs.readdirSync(spool).length > 0)) {
      if (Date.now() > deadline) throw new Error("the upload never reached the spool folder");
      await new Promise((r) => setTimeout(r, 20));
    }
    sock.destroy();
    const gone = Date.now() + 5_000;
    while (fs.readdirSync(spool).length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(fs.readdirSync(spool)).toEqual([]);
  });

  it("orphaned uploads older than ten minutes are swept at boot; fresh ones are kept", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pw-spool-"));
    const spool = path.join(dataDir, "imports");
    fs.mkdirSync(spool, { recursive: true });
    fs.writeFileSync(path.join(spool, "orphan.csv"), "email\na@example.com\n");
    const old = new Date(Date.now() - 60 * 60 * 1000);
    fs.utimesSync(path.join(spool, "orphan.csv"), old, old);
    fs.writeFileSync(path.join(spool, "uploading.csv"), "email\n");
    const app2 = await createTestApp({ DATA_DIR: dataDir });
    try {
      expect(fs.readdirSync(spool)).toEqual(["uploading.csv"]);
    } finally {
      await app2.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
