import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";

/** Where tests/e2e/server.ts records its database URL for the specs (one file per port). */
export function e2eInfoPath(port: number | string): string {
  return path.join(os.tmpdir(), `pitchwise-e2e-${port}.json`);
}

/**
 * The port of a spec's local webhook receiver (127.0.0.1): tests/e2e/server.ts puts
 * `127.0.0.1:{this port}` in OUTBOUND_ALLOWED_HOSTS, the only private target its webhooks may reach.
 */
export function e2eReceiverPort(port: number | string = process.env.E2E_PORT ?? "3100"): number {
  return Number(port) + 10_000;
}

/**
 * Runs `fn` with a connection to the e2e server's database, for arranging state no screen can make
 * (a workspace's plan before billing exists). Throws when the server did not record its URL.
 */
export async function withE2eDb<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const port = process.env.E2E_PORT ?? "3100";
  const { databaseUrl } = JSON.parse(fs.readFileSync(e2eInfoPath(port), "utf8")) as { databaseUrl: string };
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
