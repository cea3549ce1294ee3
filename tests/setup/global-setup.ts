import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { runMigrations } from "../../src/server/db/client";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "../../src/server/db/embedded";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

let embedded: EmbeddedDatabase | null = null;
let dir: string | null = null;

/**
 * One real Postgres for the whole run: TEST_DATABASE_URL when set, otherwise an embedded cluster in a
 * temp dir on a free port. Migrations are applied once; every test creates its own user, so tests
 * share the database without cleanup.
 */
export async function setup(project: TestProject) {
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-test-pg-"));
    fs.chmodSync(dir, 0o777); // initdb runs as the postgres user when we are root
    const port = 55000 + Math.floor(Math.random() * 5000);
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(dir, "pg"),
      port,
      database: "pitchwise_test",
      persistent: false,
    });
    url = embedded.url;
  }
  await runMigrations(url);
  project.provide("databaseUrl", url);
}

export async function teardown() {
  await embedded?.stop().catch(() => {});
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
