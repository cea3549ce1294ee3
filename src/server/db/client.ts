import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { APP_ROOT } from "../lib/paths";
import * as schema from "./schema";

/**
 * Postgres settings of every pooled connection (sent at connection start). `jit: off`: the app's
 * statements each read a page or a few rows, but a plan's cost estimate includes branches that run
 * only for some values (the search page's walk for a broad term, estimated as a walk through a
 * 1,000,000-contact workspace), and past jit_above_cost Postgres compiled the statement first:
 * 40-48 ms of JIT compilation (auto_explain) on a search that ran in 8 ms, 2 of every 40 runs
 * (bench:crm 1M, search + stage HTTP p95 42-61 ms).
 */
export const CONNECTION_SETTINGS = { jit: "off" } as const;

/** The drizzle options of every handle over the app's connections: the schema and snake_case columns. */
export const DRIZZLE_CONFIG = { schema, casing: "snake_case" } as const;

/**
 * Opens a pooled postgres.js connection and a drizzle instance over it (snake_case columns), with
 * CONNECTION_SETTINGS. `max` is the pool size (connections).
 */
export function createDb(url: string, opts: { max?: number } = {}) {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    idle_timeout: 30,
    connection: CONNECTION_SETTINGS,
  });
  const db = drizzle(sql, DRIZZLE_CONFIG);
  return { db, sql };
}

export type Db = ReturnType<typeof createDb>["db"];
export type Sql = ReturnType<typeof createDb>["sql"];
/** A drizzle transaction or the db itself: query functions accept either. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/** `drizzle/` of the application folder (the same from `src/` under tsx and from the `dist/server` bundle). */
export const MIGRATIONS_FOLDER = path.join(APP_ROOT, "drizzle");

/** Applies drizzle-kit migrations from `drizzle/` (idempotent; a lock keeps concurrent runs safe). */
export async function runMigrations(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(727274)`;
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
    await sql`select pg_advisory_unlock(727274)`;
  } finally {
    await sql.end();
  }
}
