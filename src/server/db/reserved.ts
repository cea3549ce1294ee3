import { PgTransaction } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import { type Db, type DbOrTx, DRIZZLE_CONFIG, type Sql } from "./client";

/** A connection taken out of the pool with `sql.reserve()` (until its `release()`). */
export type ReservedSql = Awaited<ReturnType<Sql["reserve"]>>;

let savepoints = 0;

/** The handles openTransactionDb made (their queries run inside an open transaction). */
const openTransactionDbs = new WeakSet<object>();

/**
 * Whether queries on `db` run inside a transaction: a drizzle transaction, or an openTransactionDb
 * handle. A failed statement there aborts the whole transaction, so a caller that means to survive
 * one runs it in a savepoint (`db.transaction(fn)`).
 */
export function inTransaction(db: DbOrTx): boolean {
  return db instanceof PgTransaction || openTransactionDbs.has(db);
}

/**
 * A drizzle handle on a reserved connection whose transaction is run by hand (`begin` ... `commit`
 * sent as statements: crm.import ContactImporter's batches), so that service functions taking a
 * `DbOrTx` can write in that open transaction. Its queries run on `conn`, in the open transaction.
 * Its `.transaction(fn)` does not begin a transaction: it runs `fn` in a SAVEPOINT of the open one
 * (released when `fn` resolves; rolled back to, and the error rethrown, when `fn` throws), and so
 * does a nested `tx.transaction(fn)`. That is what such functions expect of a drizzle transaction
 * (webhooks emitWebhookEvents stores its rows in a savepoint, so an error there undoes only them).
 * Use it only while `conn` is inside its `begin`: outside one, SAVEPOINT fails (Postgres 25P01).
 * Cheap (no statement is sent until a query runs); rows are parsed as on the pool `conn` came from.
 */
export function openTransactionDb(conn: ReservedSql): Db {
  /** The part of a postgres.js client that drizzle's session and transactions use. */
  interface Client {
    options: { parsers: object; serializers: object };
    unsafe: ReservedSql["unsafe"];
    begin<T>(fn: (c: Client) => Promise<T>): Promise<T>;
    savepoint<T>(fn: (c: Client) => Promise<T>): Promise<T>;
  }
  const client: Client = {
    // drizzle sets its parsers here at construction; the pool's own options (already set by
    // createDb's drizzle) are what postgres.js parses this connection's rows with
    options: { parsers: {}, serializers: {} },
    unsafe: (...args) => conn.unsafe(...args),
    begin: (fn) => savepoint(fn),
    savepoint: (fn) => savepoint(fn),
  };
  async function savepoint<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    const name = `pw_sp_${++savepoints}`;
    await conn.unsafe(`savepoint ${name}`);
    let result: T;
    try {
      result = await fn(client);
    } catch (e) {
      await conn.unsafe(`rollback to savepoint ${name}`);
      throw e;
    }
    await conn.unsafe(`release savepoint ${name}`);
    return result;
  }
  const db = drizzle(client as unknown as Sql, DRIZZLE_CONFIG);
  openTransactionDbs.add(db);
  return db;
}
