import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { APP_ROOT } from "../lib/paths";
import * as schema from "./schema";

/**
 * Opens a pooled postgres.js connection and a drizzle instance over it (snake_case columns).
 * `max` is the pool size (connections).
 */
export function createDb(url: string, opts: { max?: number } = {}) {
  const sql = postgres(url, { max: opts.max ?? 10, onnotice: () => {}, idle_timeout: 30 });
  const db = drizzle(sql, { schema, casing: "snake_case" });
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
