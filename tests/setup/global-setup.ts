import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { createDb, runMigrations } from "../../src/server/db/client";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

let child: ChildProcess | null = null;
let dir: string | null = null;

/** Starts tests/setup/embedded-pg-process.ts and resolves with its database URL. */
function startEmbeddedInChild(dataDir: string, port: number, database: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(import.meta.dirname, "embedded-pg-process.ts"),
        dataDir,
        String(port),
        database,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    let out = "";
    let err = "";
    proc.stdout?.on("data", (d) => {
      out += String(d);
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve(JSON.parse(line).url);
    });
    proc.stderr?.on("data", (d) => {
      err += String(d);
    });
    proc.on("exit", (code) => reject(new Error(`embedded Postgres exited (${code}): ${err.slice(-2000)}`)));
  });
}

/**
 * One real Postgres for the whole run: TEST_DATABASE_URL when set, otherwise an embedded cluster (in a
 * child process) in a temp dir on a free port. Migrations are applied once; every test creates its own
 * user, so tests share the database without cleanup.
 */
export async function setup(project: TestProject) {
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-test-pg-"));
    fs.chmodSync(dir, 0o777); // initdb runs as the postgres user when we are root
    const port = 55000 + Math.floor(Math.random() * 5000);
    url = await startEmbeddedInChild(path.join(dir, "pg"), port, "pitchwise_test");
  }
  await runMigrations(url);
  // tests/unique-phone.ts: phone-number suffixes unique across the test files sharing this database
  const { sql } = createDb(url, { max: 1 });
  await sql`CREATE SEQUENCE IF NOT EXISTS test_phone_suffix MINVALUE 3000 MAXVALUE 8999 CYCLE`;
  await sql.end({ timeout: 5 });
  project.provide("databaseUrl", url);
}

export async function teardown() {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child?.once("exit", r));
    child.kill("SIGTERM");
    // wait up to 15 s for the cluster to stop; the timer is cleared so it cannot hold vitest open
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
    clearTimeout(timer);
  }
  child?.stdout?.destroy();
  child?.stderr?.destroy();
  child?.unref();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
