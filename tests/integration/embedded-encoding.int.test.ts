/**
 * The embedded PostgreSQL (npm start and the tests without TEST_DATABASE_URL) is a UTF8 database with
 * Unicode case rules whatever the machine's locale. initdb takes its encoding from the environment:
 * with no LANG / LC_* set (a bare container such as node:bookworm-slim) the cluster was SQL_ASCII
 * under the C locale, where lower('JOSÉ') is 'josÉ' (a search for 'josé' missed the contact), 'é' is
 * not a letter to pg_trgm, and normalize() (migration 0052, NFC email addresses) raises an error.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "../../src/server/db/embedded";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-pgenc-"));
fs.chmodSync(tmp, 0o777);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A free port near the e2e/bench ones, for this file's own cluster. */
const PORT = 54_000 + (process.pid % 900);

describe("embedded PostgreSQL encoding", () => {
  it("is UTF8 with Unicode lower() and letters when the environment sets no locale", async () => {
    const saved = { LANG: process.env.LANG, LC_ALL: process.env.LC_ALL, LC_CTYPE: process.env.LC_CTYPE };
    delete process.env.LANG;
    delete process.env.LC_ALL;
    delete process.env.LC_CTYPE;
    let db: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
    try {
      db = await startEmbeddedPostgres({ dataDir: path.join(tmp, "pg"), port: PORT, persistent: false });
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    }
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<{ encoding: string; lowered: string; letter: boolean; nfc: string }[]>`
        select current_setting('server_encoding') as encoding, lower('JOSÉ GARCÍA') as lowered,
          'é' ~ '[[:alpha:]]' as letter, normalize(U&'jose\\0301', NFC) as nfc`;
      expect(row).toEqual({ encoding: "UTF8", lowered: "josé garcía", letter: true, nfc: "josé" });
    } finally {
      await sql.end({ timeout: 5 });
      await db.stop();
    }
  }, 120_000);
});
