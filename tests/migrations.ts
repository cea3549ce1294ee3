import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MIGRATIONS_FOLDER } from "../src/server/db/client";

/**
 * A temporary copy of the migrations folder whose journal ends at `tag` (e.g.
 * "0051_campaign_recipients_campaign_address"), for migrating a test database to the schema before a
 * migration under test. Returns the folder's path (drizzle `migrationsFolder`).
 */
export function migrationsUpTo(tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pw-migrations-"));
  fs.cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = path.join(dir, "meta/_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalPath, "utf8"));
  const last = journal.entries.findIndex((e: { tag: string }) => e.tag === tag);
  journal.entries = journal.entries.slice(0, last + 1);
  fs.writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}
